// Signed catalog update documents. The first byte picks: 0, the bytes as they came (any document
// a mirror could serve: almost all fail shape or signature); 1, the document signed here with
// this target's own key after parsing, so the checks behind the signature (file names, every
// file's contents through its loader) see mutated documents too. Whatever the input: no crash,
// every refusal has a code and a message, and an accepted update carries every knowledge file.

#include "catalog/catalogupdate.h"
#include "fuzzsupport.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <openssl/evp.h>

#include <memory>

using namespace tfsetup::core;

namespace {

struct Key {
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key{EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"),
                                                            &EVP_PKEY_free};
    QByteArray publicKey() const
    {
        QByteArray raw(32, '\0');
        size_t length = 32;
        EVP_PKEY_get_raw_public_key(key.get(), reinterpret_cast<unsigned char *>(raw.data()), &length);
        return raw;
    }
    QByteArray sign(const QByteArray &message) const
    {
        const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
        QByteArray signature(64, '\0');
        size_t length = 64;
        EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key.get());
        EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char *>(signature.data()), &length,
                       reinterpret_cast<const unsigned char *>(message.constData()), size_t(message.size()));
        return signature;
    }
};

// Signs what the document says, as the release script would have.
QByteArray signedHere(const Key &key, const QByteArray &input)
{
    QJsonObject root = QJsonDocument::fromJson(input).object();
    if (root.isEmpty())
        return input;
    QMap<QString, QByteArray> files;
    const QJsonObject fileObject = root.value(QStringLiteral("files")).toObject();
    for (auto it = fileObject.constBegin(); it != fileObject.constEnd(); ++it)
        files.insert(it.key(), it.value().toString().toUtf8());
    const QByteArray message = CatalogUpdates::canonicalForm(root.value(QStringLiteral("version")).toInteger(),
                                                             root.value(QStringLiteral("date")).toString(), files);
    root.insert(QStringLiteral("signature"),
                QJsonObject{{QStringLiteral("algorithm"), QStringLiteral("ed25519")},
                            {QStringLiteral("key_id"), CatalogUpdates::keyId(key.publicKey())},
                            {QStringLiteral("value"), QString::fromLatin1(key.sign(message).toBase64())}});
    return QJsonDocument(root).toJson(QJsonDocument::Compact);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const Key key;
    static const CatalogUpdateTrust trust = [] {
        CatalogUpdateTrust t;
        t.publicKey = key.publicKey();
        t.builtInVersion = 1;
        return t;
    }();
    const auto [selector, rest] = tfsetup::fuzz::select(data, size, 2);
    const QByteArray document = selector == 1 ? signedHere(key, rest) : rest;
    const auto update = CatalogUpdates::verify(document, trust, QStringLiteral("fuzz"));
    tfsetup::fuzz::checkResult(update);
    if (update.ok()) {
        TFSETUP_FUZZ_CHECK(update->version >= 1);
        for (const QString &name : CatalogUpdates::fileNames())
            TFSETUP_FUZZ_CHECK(update->files.contains(name));
    }
    return 0;
}
