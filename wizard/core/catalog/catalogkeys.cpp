#include "catalog/catalogkeys.h"

#include "catalog/catalogupdate.h"
#include "util/confined.h"
#include "util/jsonshape.h"
#include "util/runlog.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>

#include <algorithm>

namespace tfsetup::core {

using namespace Qt::StringLiterals;

namespace {

// An Ed25519 SubjectPublicKeyInfo in DER is this fixed header followed by the raw 32-byte key
// (RFC 8410, section 4).
constexpr char kSpkiPrefix[] = "\x30\x2a\x30\x05\x06\x03\x2b\x65\x70\x03\x21\x00";
constexpr qsizetype kSpkiPrefixSize = sizeof(kSpkiPrefix) - 1;
constexpr qsizetype kRawKeySize = 32;

bool isLowerHex(const QString &s, qsizetype size)
{
    return s.size() == size && std::all_of(s.cbegin(), s.cend(), [](QChar c) {
               return (c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f');
           });
}

const JsonShape &recordShape()
{
    static const JsonShape shape = [] {
        const auto hex = [](qsizetype size) {
            return [size](const QJsonValue &v) {
                return isLowerHex(v.toString(), size)
                    ? QString()
                    : CatalogKeys::tr("must be %1 lower-case hexadecimal digits").arg(size);
            };
        };
        return JsonShape::object({
            JsonShape::required(u"name"_s, JsonShape::text(200)),
            JsonShape::required(u"key_id"_s, JsonShape::text(16).where(hex(16))),
            JsonShape::required(u"public_key"_s, JsonShape::text(64).where(hex(64))),
            JsonShape::optional(u"added"_s, JsonShape::text(64)),
        });
    }();
    return shape;
}

void logIgnored(const QString &path, const QString &why)
{
    RunLog::warnOnce(u"catalog: a trusted-key file is ignored: "_s + QDir::toNativeSeparators(path) + u": "_s + why);
}

// One record below root, read without following a link on the way; the reason when it is not
// a record of the key its name says.
Result<TrustedKey> readRecord(const QString &root, const QString &fileName)
{
    const QString relative = CatalogKeys::folderBelowRoot() + u'/' + fileName;
    QFile file;
    if (const Status opened = openConfined(file, root, relative, ConfinedOpen::ReadOnly); !opened)
        return opened.error();
    const QByteArray bytes = file.read(CatalogKeys::maxRecordBytes + 1);
    const auto notRecord = [](const QString &why) { return Error{u"catalog_key_record"_s, why, {}}; };
    if (bytes.size() > CatalogKeys::maxRecordBytes)
        return notRecord(u"larger than %1 bytes"_s.arg(CatalogKeys::maxRecordBytes));
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject())
        return notRecord(u"not a JSON object: "_s + parseError.errorString());
    const QJsonObject o = doc.object();
    if (const auto problem = recordShape().check(o))
        return notRecord(problem->field + u' ' + problem->problem);
    TrustedKey key{o.value(u"name"_s).toString(), o.value(u"key_id"_s).toString(),
                   QByteArray::fromHex(o.value(u"public_key"_s).toString().toLatin1()), o.value(u"added"_s).toString()};
    if (CatalogUpdates::keyId(key.publicKey) != key.keyId)
        return notRecord(u"key_id is not the id of public_key"_s);
    if (fileName != key.keyId + u".json"_s)
        return notRecord(u"the file name is not the key_id"_s);
    return key;
}

} // namespace

QStringList CatalogKeys::systemRoots()
{
    const QString own = QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation);
    QStringList roots;
    for (const QString &dir : QStandardPaths::standardLocations(QStandardPaths::GenericConfigLocation)) {
        if (dir != own && !dir.isEmpty() && !roots.contains(dir))
            roots.append(dir);
    }
    return roots;
}

QString CatalogKeys::folderBelowRoot()
{
    return u"tfsetup/catalog-keys"_s;
}

QString CatalogKeys::recordPath(const QString &root, const QString &keyId)
{
    return root + u'/' + folderBelowRoot() + u'/' + keyId + u".json"_s;
}

QList<TrustedKey> CatalogKeys::read(const QStringList &roots)
{
    QList<TrustedKey> keys;
    for (const QString &root : roots) {
        const QString folder = root + u'/' + folderBelowRoot();
        if (!QFileInfo(folder).isDir())
            continue;
        // The listing may pass through a link; each file is then opened without following one.
        const QStringList names = QDir(folder).entryList({u"*.json"_s}, QDir::Files | QDir::System | QDir::Hidden,
                                                         QDir::Name);
        for (const QString &name : names) {
            const auto key = readRecord(root, name);
            if (!key) {
                logIgnored(folder + u'/' + name,
                           key.error().code == u"catalog_key_record"_s
                               ? key.error().message
                               : key.error().code + u": "_s + key.error().detail);
                continue;
            }
            if (std::none_of(keys.cbegin(), keys.cend(), [&key](const TrustedKey &k) { return k.keyId == key->keyId; }))
                keys.append(*key);
        }
    }
    return keys;
}

Result<QByteArray> CatalogKeys::parsePublicKey(const QByteArray &text)
{
    const QByteArray trimmed = text.trimmed();
    const auto invalid = [](const QString &detail) {
        return Error{u"catalog_key_invalid"_s,
                     tr("This is not an Ed25519 public key. Give the lab's public key as a PEM file (openssl pkey "
                        "-in KEY -pubout -out lab-public.pem) or as the 64 hexadecimal digits that "
                        "\"sign_catalog.py --key KEY --print-public-key\" prints."),
                     detail};
    };
    if (trimmed.size() == 2 * kRawKeySize) {
        const QString hex = QString::fromLatin1(trimmed).toLower();
        if (!isLowerHex(hex, 2 * kRawKeySize))
            return invalid(u"64 characters, not all hexadecimal digits"_s);
        return QByteArray::fromHex(hex.toLatin1());
    }
    if (trimmed.contains("PRIVATE KEY-----")) {
        return Error{u"catalog_key_private"_s,
                     tr("This file holds a private key. Never copy the lab's private key to the machines: give its "
                        "public half, made with \"openssl pkey -in KEY -pubout -out lab-public.pem\"."),
                     {}};
    }
    const QByteArray begin = "-----BEGIN PUBLIC KEY-----";
    const QByteArray end = "-----END PUBLIC KEY-----";
    const qsizetype from = trimmed.indexOf(begin);
    const qsizetype to = trimmed.indexOf(end);
    if (from < 0 || to < from)
        return invalid(u"neither a PEM public key nor 64 hexadecimal digits"_s);
    const auto decoded = QByteArray::fromBase64Encoding(
        trimmed.mid(from + begin.size(), to - from - begin.size()).simplified().replace(' ', ""),
        QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return invalid(u"the PEM body is not base64"_s);
    const QByteArray &der = *decoded;
    if (der.size() != kSpkiPrefixSize + kRawKeySize || !der.startsWith(QByteArrayView(kSpkiPrefix, kSpkiPrefixSize)))
        return invalid(u"the PEM key is not an Ed25519 SubjectPublicKeyInfo (%1 bytes)"_s.arg(der.size()));
    return der.right(kRawKeySize);
}

Result<TrustedKey> CatalogKeys::trust(const QString &root, const QByteArray &publicKey, const QString &name)
{
    if (publicKey.size() != kRawKeySize)
        return Error{u"catalog_key_invalid"_s, tr("An Ed25519 public key has 32 bytes."),
                     QString::number(publicKey.size())};
    const auto denied = [&root](const QString &detail) {
        return Error{u"catalog_trust_denied"_s,
#ifdef Q_OS_WIN
                     tr("The lab key could not be recorded in %1, where every account of this computer reads it. Run "
                        "the command again as an administrator (\"Run as administrator\").")
#else
                     tr("The lab key could not be recorded in %1, where every account of this computer reads it. Run "
                        "the command again as an administrator, with sudo.")
#endif
                         .arg(QDir::toNativeSeparators(root.isEmpty() ? root : root + u'/' + folderBelowRoot())),
                     detail};
    };
    if (root.isEmpty())
        return denied(u"no system configuration folder is known"_s);
    TrustedKey key{name.trimmed().isEmpty() ? tr("Lab key") : name.trimmed().left(200),
                   CatalogUpdates::keyId(publicKey), publicKey, QDateTime::currentDateTimeUtc().toString(Qt::ISODate)};
    const QJsonObject record{{u"name"_s, key.name},
                             {u"key_id"_s, key.keyId},
                             {u"public_key"_s, QString::fromLatin1(key.publicKey.toHex())},
                             {u"added"_s, key.added}};
    QDir().mkpath(root);
    const Status written = writeConfined(root, folderBelowRoot() + u'/' + key.keyId + u".json"_s,
                                         QJsonDocument(record).toJson(QJsonDocument::Indented));
    if (!written) {
        if (written.error().code == u"permission_denied"_s)
            return denied(written.error().detail);
        return written.error();
    }
    return key;
}

Result<TrustedKey> CatalogKeys::untrust(const QStringList &roots, const QString &keyId)
{
    const QString id = keyId.trimmed().toLower();
    const auto unknown = [&id]() {
        return Error{u"catalog_key_unknown"_s,
                     tr("No lab key with the id %1 is trusted on this computer; nothing was removed. \"tfsetup "
                        "catalog status\" lists the trusted keys.")
                         .arg(id),
                     {}};
    };
    if (!isLowerHex(id, 16))
        return unknown();
    for (const QString &root : roots) {
        const QString path = recordPath(root, id);
        if (!QFileInfo(path).exists() && !QFileInfo(path).isSymLink())
            continue;
        const auto key = readRecord(root, id + u".json"_s);
        if (!key) {
            return Error{u"catalog_key_not_ours"_s,
                         tr("%1 is not a key record tfsetup wrote, so it was left as it is. Remove it by hand if it "
                            "does not belong there.")
                             .arg(QDir::toNativeSeparators(path)),
                         key.error().message + u' ' + key.error().detail};
        }
        // readRecord reached it without a link on the way; removing the name removes only it.
        QFile record(path);
        if (!record.remove()) {
            return Error{u"catalog_trust_denied"_s,
#ifdef Q_OS_WIN
                         tr("The lab key %1 could not be removed from %2. Run the command again as an administrator "
                            "(\"Run as administrator\").")
#else
                         tr("The lab key %1 could not be removed from %2. Run the command again as an administrator, "
                            "with sudo.")
#endif
                             .arg(id, QDir::toNativeSeparators(path)),
                         record.errorString()};
        }
        return *key;
    }
    return unknown();
}

} // namespace tfsetup::core
