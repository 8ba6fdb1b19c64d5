#include "catalog/catalogupdate.h"

#include "catalog/catalog.h"
#include "catalog/catalogkeys.h"
#include "catalog/causes.h"
#include "catalog/gputable.h"
#include "catalog/placementrules.h"
#include "catalog/sourcecatalog.h"
#include "catalog/tflogrules.h"
#include "fetch/checksum.h"
#include "fetch/httpclient.h"
#include "util/confined.h"
#include "util/inputfile.h"
#include "util/jsonshape.h"
#include "util/runlog.h"

#include <QDate>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMutex>
#include <QSettings>
#include <QStandardPaths>
#include <QUrl>

#include <algorithm>

namespace tfsetup::core {

using namespace Qt::StringLiterals;

namespace {

constexpr auto kFormat = "tfsetup-catalog-update";
constexpr auto kBuiltInPrefix = ":/resources/catalog/";

// The public half of the release key that signs catalog updates (raw Ed25519, hex). The private
// half is kept by whoever makes releases, never in the repository.
constexpr auto kReleasePublicKey = "ddb67350d94a9af718621251c727ca7619538b979acd91f2eb7af1841e43bc05";

QMutex s_trustMutex;
std::optional<CatalogUpdateTrust> s_testTrust;

const JsonShape &documentShape()
{
    static const JsonShape shape = [] {
        const auto oneOf = [](const QString &expected) {
            return [expected](const QJsonValue &v) {
                return v.toString() == expected ? QString() : CatalogUpdates::tr("must be \"%1\"").arg(expected);
            };
        };
        const auto isoDate = [](const QJsonValue &v) {
            const QString s = v.toString();
            return s.size() == 10 && QDate::fromString(s, Qt::ISODate).isValid()
                ? QString()
                : CatalogUpdates::tr("must be a date written YYYY-MM-DD");
        };
        return JsonShape::object({
            JsonShape::required(u"format"_s, JsonShape::text(64).where(oneOf(QString::fromLatin1(kFormat)))),
            JsonShape::required(u"schema"_s, JsonShape::integer(1, 1)),
            JsonShape::required(u"version"_s, JsonShape::integer(1, qint64(1) << 52)),
            JsonShape::required(u"date"_s, JsonShape::text(10).where(isoDate)),
            JsonShape::required(u"files"_s, JsonShape::map(JsonShape::text(CatalogUpdates::maxDocumentBytes), 64)),
            JsonShape::required(u"signature"_s,
                                JsonShape::object({
                                    JsonShape::required(u"algorithm"_s, JsonShape::text(32).where(oneOf(u"ed25519"_s))),
                                    JsonShape::required(u"key_id"_s, JsonShape::text(64)),
                                    JsonShape::required(u"value"_s, JsonShape::text(256)),
                                })),
            JsonShape::optional(u"installed_from"_s,
                                JsonShape::object({
                                    JsonShape::optional(u"source"_s, JsonShape::text(4096)),
                                    JsonShape::optional(u"installed"_s, JsonShape::text(64)),
                                })),
        });
    }();
    return shape;
}

struct BuiltIn {
    qint64 version = 0;
    QString date;
    QString url;
};

BuiltIn builtIn()
{
    BuiltIn b;
    QFile f(QString::fromLatin1(kBuiltInPrefix) + u"release.json"_s);
    if (!f.open(QIODevice::ReadOnly))
        return b;
    const QJsonObject o = QJsonDocument::fromJson(f.read(64 * 1024)).object();
    b.version = o.value(u"version"_s).toInteger();
    b.date = o.value(u"date"_s).toString();
    b.url = o.value(u"update_url"_s).toString();
    return b;
}

// Each file must be what its loader reads: a JSON object the loader accepts.
std::optional<Error> checkContents(const QMap<QString, QByteArray> &files, const QString &origin)
{
    const auto damaged = [&origin](const QString &name, const Error &e) {
        return Error{u"catalog_update_contents"_s,
                     CatalogUpdates::tr("The catalog update %1 is refused: its file %2 cannot be used (%3). tfsetup "
                                        "keeps using the catalog it has. Ask whoever published the update for a "
                                        "corrected one.")
                         .arg(origin, name, e.message),
                     e.detail};
    };
    for (auto it = files.cbegin(); it != files.cend(); ++it) {
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(it.value(), &parseError);
        if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
            return damaged(it.key(),
                           Error{{}, CatalogUpdates::tr("it is not a JSON object"), parseError.errorString()});
        }
    }
    const auto catalog = Catalog::fromJson(files.value(u"tensorflow.json"_s), files.value(u"cuda.json"_s),
                                           files.value(u"libraries.json"_s), files.value(u"routes.json"_s));
    if (!catalog)
        return damaged(u"tensorflow.json, cuda.json, libraries.json, routes.json"_s, catalog.error());
    if (const auto gpus = GpuTable::fromJson(files.value(u"gpus.json"_s), u"gpus.json"_s); !gpus)
        return damaged(u"gpus.json"_s, gpus.error());
    if (const auto sources = SourceCatalog::fromJson(files.value(u"sources.json"_s)); !sources)
        return damaged(u"sources.json"_s, sources.error());
    if (const auto placement = PlacementRules::fromJson(
            QJsonDocument::fromJson(files.value(u"placement.json"_s)).object());
        !placement)
        return damaged(u"placement.json"_s, placement.error());
    const auto causes = CauseRegistry::fromJson(files.value(u"causes.json"_s));
    if (!causes)
        return damaged(u"causes.json"_s, causes.error());
    if (const auto tflog = TfLogRules::fromJson(files.value(u"tflog.json"_s), *causes); !tflog)
        return damaged(u"tflog.json"_s, tflog.error());
    return std::nullopt;
}

Error rollback(const QString &origin, qint64 version, qint64 have)
{
    return Error{
        u"catalog_update_rollback"_s,
        CatalogUpdates::tr("The catalog update %1 is refused: its version %2 is older than the catalog tfsetup "
                           "already has (version %3), and an older catalog is never installed over a newer "
                           "one. Nothing was changed; ask for the current update if you expected a newer one.")
            .arg(origin)
            .arg(version)
            .arg(have),
        {}};
}

} // namespace

QString CatalogUpdateTrust::storedPath() const
{
    return folder + u"/update.json"_s;
}

QStringList CatalogUpdates::fileNames()
{
    return {u"causes.json"_s, u"cuda.json"_s,    u"gpus.json"_s,       u"libraries.json"_s, u"placement.json"_s,
            u"routes.json"_s, u"sources.json"_s, u"tensorflow.json"_s, u"tflog.json"_s};
}

CatalogUpdateTrust CatalogUpdates::defaults()
{
    const BuiltIn b = builtIn();
    CatalogUpdateTrust t;
    t.folder = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + u"/catalog"_s;
    t.publicKey = QByteArray::fromHex(kReleasePublicKey);
    t.keyRoots = CatalogKeys::systemRoots();
    t.builtInVersion = b.version;
    t.builtInDate = b.date;
    t.defaultUrl = b.url;
    return t;
}

QList<TrustedKey> CatalogUpdateTrust::trustedLabKeys() const
{
    QList<TrustedKey> keys = labKeys;
    for (const TrustedKey &recorded : CatalogKeys::read(keyRoots)) {
        if (std::none_of(keys.cbegin(), keys.cend(),
                         [&recorded](const TrustedKey &k) { return k.keyId == recorded.keyId; }))
            keys.append(recorded);
    }
    return keys;
}

CatalogUpdateTrust CatalogUpdates::current()
{
    {
        const QMutexLocker lock(&s_trustMutex);
        if (s_testTrust)
            return *s_testTrust;
    }
    return defaults();
}

void CatalogUpdates::setTrustForTesting(std::optional<CatalogUpdateTrust> trust)
{
    const QMutexLocker lock(&s_trustMutex);
    s_testTrust = std::move(trust);
}

QByteArray CatalogUpdates::canonicalForm(qint64 version, const QString &date, const QMap<QString, QByteArray> &files)
{
    QByteArray out = QByteArray(kFormat) + "\nschema 1\nversion " + QByteArray::number(version) + "\ndate "
        + date.toUtf8() + "\nfiles " + QByteArray::number(files.size()) + '\n';
    // QMap orders its keys as QString compares them; the signer sorts UTF-8 bytes. The names are
    // ASCII (checked before), where both orders agree.
    for (auto it = files.cbegin(); it != files.cend(); ++it)
        out += "file " + it.key().toUtf8() + ' ' + QByteArray::number(it.value().size()) + '\n' + it.value() + '\n';
    return out;
}

QString CatalogUpdates::keyId(const QByteArray &publicKey)
{
    Hasher hasher(Checksum::Algorithm::Sha256);
    hasher.addData(publicKey);
    return QString::fromLatin1(hasher.finalHex().left(16));
}

Result<CatalogUpdate> CatalogUpdates::verify(const QByteArray &document, const CatalogUpdateTrust &trust,
                                             const QString &origin)
{
    const QString advice = tr("tfsetup keeps using the catalog it has. Download the update again: it may have been "
                              "cut off or changed on the way.");
    if (document.size() > maxDocumentBytes) {
        return Error{u"catalog_update_too_large"_s,
                     tr("The catalog update %1 is refused: it is larger than %2 MB, far more than a catalog holds. "
                        "Check that the address or file is a tfsetup catalog update.")
                         .arg(origin)
                         .arg(maxDocumentBytes / (1024 * 1024)),
                     QString::number(document.size())};
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(document, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        return Error{u"catalog_update_malformed"_s,
                     tr("The catalog update %1 is refused: it is not a complete catalog update document. %2")
                         .arg(origin, advice),
                     parseError.errorString()};
    }
    const QJsonObject root = doc.object();
    if (const auto problem = documentShape().check(root)) {
        return JsonShape::error(u"catalog_update_malformed"_s, tr("The catalog update %1").arg(origin), *problem,
                                advice);
    }

    CatalogUpdate u;
    u.version = root.value(u"version"_s).toInteger();
    u.date = root.value(u"date"_s).toString();
    const QJsonObject files = root.value(u"files"_s).toObject();
    for (auto it = files.constBegin(); it != files.constEnd(); ++it) {
        const QString &name = it.key();
        const bool safe = name.size() <= 64 && name.endsWith(u".json"_s)
            && std::all_of(name.cbegin(), name.cend(), [](QChar c) {
                              return (c >= u'a' && c <= u'z') || (c >= u'0' && c <= u'9') || c == u'_' || c == u'-'
                                  || c == u'.';
                          });
        if (!safe) {
            return JsonShape::error(u"catalog_update_malformed"_s, tr("The catalog update %1").arg(origin),
                                    {u"files"_s, tr("names a file \"%1\" that is not a catalog file name").arg(name)},
                                    advice);
        }
        u.files.insert(name, it.value().toString().toUtf8());
    }
    for (const QString &name : fileNames()) {
        if (!u.files.contains(name)) {
            return JsonShape::error(u"catalog_update_malformed"_s, tr("The catalog update %1").arg(origin),
                                    {u"files"_s, tr("lacks the file %1").arg(name)}, advice);
        }
    }
    const QJsonObject signature = root.value(u"signature"_s).toObject();
    u.keyId = signature.value(u"key_id"_s).toString();
    QByteArray signer;
    QList<TrustedKey> labKeys;
    if (u.keyId == keyId(trust.publicKey)) {
        signer = trust.publicKey;
        u.signedByRelease = true;
    } else {
        labKeys = trust.trustedLabKeys();
        for (const TrustedKey &lab : std::as_const(labKeys)) {
            if (lab.keyId == u.keyId && keyId(lab.publicKey) == u.keyId) {
                signer = lab.publicKey;
                u.signerName = lab.name;
            }
        }
    }
    if (signer.isEmpty()) {
        QStringList trusted{keyId(trust.publicKey)};
        for (const TrustedKey &lab : std::as_const(labKeys))
            trusted.append(lab.keyId);
        return Error{u"catalog_update_signature"_s,
                     tr("The catalog update %1 is refused: it is signed with the key %2, which this computer does not "
                        "trust. tfsetup keeps using the catalog it has. If it is your lab's catalog, ask your lab "
                        "administrator to run \"tfsetup catalog trust\" with the lab's public key on this computer; "
                        "otherwise take updates only from tfsetup's releases or a mirror that copies them unchanged.")
                         .arg(origin, u.keyId),
                     tr("signed with key %1, trusted keys %2").arg(u.keyId, trusted.join(u", "_s))};
    }
    const QByteArray value = QByteArray::fromBase64(signature.value(u"value"_s).toString().toLatin1(),
                                                    QByteArray::AbortOnBase64DecodingErrors);
    if (!verifyEd25519(signer, canonicalForm(u.version, u.date, u.files), value)) {
        return Error{u"catalog_update_signature"_s,
                     tr("The catalog update %1 is refused: its signature does not match its contents, so it was "
                        "changed after it was signed or damaged on the way. tfsetup keeps using the catalog it has. "
                        "Download it again; if this repeats, tell whoever runs the mirror.")
                         .arg(origin),
                     u"ed25519 signature mismatch"_s};
    }
    if (const auto problem = checkContents(u.files, origin))
        return *problem;
    const QJsonObject installedFrom = root.value(u"installed_from"_s).toObject();
    u.source = installedFrom.value(u"source"_s).toString();
    u.installedAt = installedFrom.value(u"installed"_s).toString();
    return u;
}

Result<CatalogUpdate> CatalogUpdates::stored(const CatalogUpdateTrust &trust)
{
    const QString path = trust.storedPath();
    if (!QFileInfo::exists(path))
        return Error{u"catalog_update_none"_s, tr("No catalog update is installed."), path};
    const auto bytes = readInputFile(path, tr("The installed catalog update"), maxDocumentBytes);
    if (!bytes) {
        const Error &e = bytes.error();
        return Error{e.code == u"input_too_large"_s ? u"catalog_update_too_large"_s : u"catalog_update_unreadable"_s,
                     tr("The installed catalog update cannot be read: %1 Run \"tfsetup catalog update\" to install "
                        "it again.")
                         .arg(e.message),
                     e.detail};
    }
    return verify(*bytes, trust, QDir::toNativeSeparators(path));
}

CatalogStatus CatalogUpdates::status(const CatalogUpdateTrust &trust)
{
    CatalogStatus s;
    s.builtInVersion = trust.builtInVersion;
    s.builtInDate = trust.builtInDate;
    auto update = stored(trust);
    if (!update) {
        if (update.error().code != u"catalog_update_none"_s) {
            s.updatePresent = true;
            s.refused = update.error();
        }
        return s;
    }
    s.updatePresent = true;
    s.update = *update;
    if (update->version <= trust.builtInVersion) {
        s.refused = Error{u"catalog_update_superseded"_s,
                          tr("The installed catalog update (version %1) is not newer than the catalog built into this "
                             "tfsetup (version %2), so the built-in one is used.")
                              .arg(update->version)
                              .arg(trust.builtInVersion),
                          {}};
    }
    return s;
}

std::optional<CatalogUpdate> CatalogUpdates::active(const CatalogUpdateTrust &trust)
{
    if (!QFileInfo::exists(trust.storedPath()))
        return std::nullopt;
    const CatalogStatus s = status(trust);
    if (s.inUse())
        return s.update;
    if (s.refused) {
        RunLog::warnOnce(u"catalog: the installed update is ignored, the built-in catalog is used: "_s
                         + s.refused->message + u" ("_s + s.refused->detail + u')');
    }
    return std::nullopt;
}

Result<CatalogUpdateOutcome> CatalogUpdates::install(const QByteArray &document, const QString &source,
                                                     const CatalogUpdateTrust &trust)
{
    auto update = verify(document, trust, source);
    if (!update)
        return update.error();
    CatalogUpdateOutcome outcome;
    const auto previous = stored(trust);
    if (previous)
        outcome.previousVersion = previous->version;
    if (update->version < trust.builtInVersion)
        return rollback(source, update->version, trust.builtInVersion);
    if (previous && update->version < previous->version)
        return rollback(source, update->version, previous->version);
    if ((previous && update->version == previous->version) || update->version == trust.builtInVersion) {
        outcome.update = previous && update->version == previous->version ? *previous : *update;
        return outcome; // already there: nothing to change
    }

    // The document as received, plus where it came from (outside the signed part).
    QJsonObject root = QJsonDocument::fromJson(document).object();
    update->source = source;
    update->installedAt = QDateTime::currentDateTimeUtc().toString(Qt::ISODate);
    root.insert(u"installed_from"_s, QJsonObject{{u"source"_s, update->source}, {u"installed"_s, update->installedAt}});
    const auto writeFailed = [&trust](const QString &why) {
        return Error{u"catalog_update_write_failed"_s,
                     tr("The catalog update could not be stored in %1. Check that the folder is writable and the disk "
                        "is not full, then try again; tfsetup keeps using the catalog it has.")
                         .arg(QDir::toNativeSeparators(trust.folder)),
                     why};
    };
    if (!QDir().mkpath(trust.folder))
        return writeFailed(u"mkpath failed"_s);
    if (const Status written = writeUserFile(trust.storedPath(), QJsonDocument(root).toJson(QJsonDocument::Indented));
        !written)
        return writeFailed(written.error().message);
    outcome.update = *update;
    outcome.installed = true;
    return outcome;
}

QCoro::Task<Result<CatalogUpdateOutcome>> CatalogUpdates::update(QString from, TransferOptions transfer,
                                                                 CatalogUpdateTrust trust)
{
    const bool isDefault = from.isEmpty();
    if (isDefault)
        from = trust.defaultUrl;
    if (from.isEmpty()) {
        co_return Error{u"catalog_update_no_source"_s,
                        tr("No address for catalog updates is known. Give one with --from (your lab's mirror or a "
                           "downloaded file)."),
                        {}};
    }
    const QUrl url(from, QUrl::StrictMode);
    const QString scheme = url.scheme().toLower();
    if (scheme == u"http"_s || scheme == u"https"_s) {
        HttpRequest request;
        request.url = url;
        request.accept = "application/json";
        request.maxBytes = maxDocumentBytes;
        const HttpClient client(std::move(transfer));
        const Result<HttpResponse> response = co_await client.get(request);
        if (!response && isDefault && response.error().httpStatus == 404) {
            CatalogUpdateOutcome nothing;
            nothing.published = false;
            co_return nothing;
        }
        if (!response) {
            if (response.error().code == u"too_large"_s) {
                co_return Error{u"catalog_update_too_large"_s,
                                tr("The catalog update %1 is refused: it is larger than %2 MB, far more than a catalog "
                                   "holds. Check that the address is a tfsetup catalog update.")
                                    .arg(from)
                                    .arg(maxDocumentBytes / (1024 * 1024)),
                                response.error().detail};
            }
            co_return response.error();
        }
        co_return install(response->body, from, trust);
    }
    // A drive letter ("C:/…") parses as a scheme; anything that is not http(s) or file:// is a path.
    const QString path = scheme == u"file"_s ? url.toLocalFile() : from;
    const auto bytes = readInputFile(path, tr("The catalog update file"), maxDocumentBytes);
    if (!bytes) {
        const Error &e = bytes.error();
        co_return Error{e.code == u"input_too_large"_s ? u"catalog_update_too_large"_s : u"catalog_update_unreadable"_s,
                        tr("Cannot use the catalog update: %1").arg(e.message), e.detail};
    }
    co_return install(*bytes, QDir::toNativeSeparators(QFileInfo(path).absoluteFilePath()), trust);
}

QString CatalogUpdates::configuredSource()
{
    return QSettings().value(u"catalog/updateFrom"_s).toString().trimmed();
}

} // namespace tfsetup::core
