#include "support/catalogsigning.h"

#include "catalog/catalogupdate.h"

#include <QFile>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <cstdio>

namespace tfsetup::test {

struct TestSigningKey::Impl {
    EVP_PKEY *key = nullptr;
    ~Impl() { EVP_PKEY_free(key); }
};

TestSigningKey::TestSigningKey()
    : d(std::make_unique<Impl>())
{
    d->key = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
}

TestSigningKey::~TestSigningKey() = default;

bool TestSigningKey::isValid() const
{
    return d->key != nullptr;
}

QByteArray TestSigningKey::publicKey() const
{
    QByteArray raw(32, '\0');
    size_t length = size_t(raw.size());
    if (!d->key || EVP_PKEY_get_raw_public_key(d->key, reinterpret_cast<unsigned char *>(raw.data()), &length) != 1)
        return {};
    return raw;
}

QByteArray TestSigningKey::sign(const QByteArray &message) const
{
    const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
    QByteArray signature(64, '\0');
    size_t length = size_t(signature.size());
    if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, d->key) != 1
        || EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char *>(signature.data()), &length,
                          reinterpret_cast<const unsigned char *>(message.constData()), size_t(message.size()))
            != 1)
        return {};
    return signature;
}

bool TestSigningKey::writePem(const QString &path) const
{
    FILE *f = std::fopen(QFile::encodeName(path).constData(), "wb");
    if (!f)
        return false;
    const bool ok = PEM_write_PrivateKey(f, d->key, nullptr, nullptr, 0, nullptr, nullptr) == 1;
    std::fclose(f);
    return ok;
}

QMap<QString, QByteArray> builtInCatalogFiles()
{
    QMap<QString, QByteArray> files;
    for (const QString &name : core::CatalogUpdates::fileNames()) {
        QFile f(QStringLiteral(":/resources/catalog/") + name);
        if (f.open(QIODevice::ReadOnly))
            files.insert(name, f.readAll());
    }
    return files;
}

QJsonObject signedCatalogUpdate(const TestSigningKey &key, qint64 version, const QMap<QString, QByteArray> &files,
                                const QString &date)
{
    QJsonObject fileObject;
    for (auto it = files.cbegin(); it != files.cend(); ++it)
        fileObject.insert(it.key(), QString::fromUtf8(it.value()));
    const QByteArray signature = key.sign(core::CatalogUpdates::canonicalForm(version, date, files));
    return QJsonObject{
        {QStringLiteral("format"), QStringLiteral("tfsetup-catalog-update")},
        {QStringLiteral("schema"), 1},
        {QStringLiteral("version"), version},
        {QStringLiteral("date"), date},
        {QStringLiteral("files"), fileObject},
        {QStringLiteral("signature"),
         QJsonObject{{QStringLiteral("algorithm"), QStringLiteral("ed25519")},
                     {QStringLiteral("key_id"), core::CatalogUpdates::keyId(key.publicKey())},
                     {QStringLiteral("value"), QString::fromLatin1(signature.toBase64())}}},
    };
}

} // namespace tfsetup::test
