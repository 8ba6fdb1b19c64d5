#include "fetch/checksum.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>

#include <openssl/evp.h>

namespace tfsetup::core {

namespace {
constexpr qsizetype kReadChunk = 1 << 20;
}

bool Checksum::isValid() const
{
    const qsizetype want = algorithm == Algorithm::Sha256 ? 64 : 32;
    if (hex.size() != want)
        return false;
    return std::all_of(hex.cbegin(), hex.cend(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

QString Checksum::algorithmName() const
{
    return algorithm == Algorithm::Sha256 ? QStringLiteral("sha256") : QStringLiteral("md5");
}

Result<Checksum> Checksum::parse(Algorithm algorithm, const QString &hex)
{
    Checksum c{algorithm, hex.trimmed().toLower().toLatin1()};
    if (!c.isValid()) {
        return Error{QStringLiteral("bad_checksum"),
                     QCoreApplication::translate("Checksum",
                                                 "\"%1\" is not a valid %2 checksum (%3 hexadecimal digits "
                                                 "expected). Copy it again from the official source.")
                         .arg(hex, c.algorithmName().toUpper())
                         .arg(algorithm == Algorithm::Sha256 ? 64 : 32),
                     {}};
    }
    return c;
}

struct Hasher::Impl {
    EVP_MD_CTX *ctx = nullptr;
    ~Impl() { EVP_MD_CTX_free(ctx); }
};

Hasher::Hasher(Checksum::Algorithm algorithm)
    : d(std::make_unique<Impl>())
{
    d->ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(d->ctx, algorithm == Checksum::Algorithm::Sha256 ? EVP_sha256() : EVP_md5(), nullptr);
}

Hasher::~Hasher() = default;
Hasher::Hasher(Hasher &&) noexcept = default;
Hasher &Hasher::operator=(Hasher &&) noexcept = default;

void Hasher::addData(const char *data, qsizetype size)
{
    if (size > 0)
        EVP_DigestUpdate(d->ctx, data, size_t(size));
}

QByteArray Hasher::finalHex()
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_DigestFinal_ex(d->ctx, digest, &length);
    return QByteArray(reinterpret_cast<const char *>(digest), int(length)).toHex();
}

Result<qint64> hashFileInto(Hasher &hasher, const QString &path, qint64 length, const std::atomic<bool> *cancel)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return Error{QStringLiteral("read_failed"),
                     QCoreApplication::translate("Checksum",
                                                 "Cannot read %1 to check it. Check that the file exists "
                                                 "and that you may read it.")
                         .arg(QDir::toNativeSeparators(path)),
                     f.errorString()};
    }
    QByteArray buffer(kReadChunk, Qt::Uninitialized);
    qint64 total = 0;
    while (length < 0 || total < length) {
        if (cancel && cancel->load(std::memory_order_relaxed))
            return Error{QStringLiteral("cancelled"), QCoreApplication::translate("Checksum", "Cancelled."), {}};
        const qint64 want = length < 0 ? kReadChunk : std::min<qint64>(kReadChunk, length - total);
        const qint64 n = f.read(buffer.data(), want);
        if (n < 0) {
            return Error{
                QStringLiteral("read_failed"),
                QCoreApplication::translate("Checksum", "Reading %1 failed.").arg(QDir::toNativeSeparators(path)),
                f.errorString()};
        }
        if (n == 0)
            break;
        hasher.addData(buffer.constData(), n);
        total += n;
    }
    return total;
}

Result<QByteArray> hashFile(Checksum::Algorithm algorithm, const QString &path, const std::atomic<bool> *cancel)
{
    Hasher hasher(algorithm);
    auto read = hashFileInto(hasher, path, -1, cancel);
    if (!read)
        return read.error();
    return hasher.finalHex();
}

bool verifyEd25519(const QByteArray &publicKey, const QByteArray &message, const QByteArray &signature)
{
    if (publicKey.size() != 32 || signature.size() != 64)
        return false;
    const std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
        EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr,
                                    reinterpret_cast<const unsigned char *>(publicKey.constData()),
                                    size_t(publicKey.size())),
        &EVP_PKEY_free);
    const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
    if (!key || !ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1)
        return false;
    return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char *>(signature.constData()),
                            size_t(signature.size()), reinterpret_cast<const unsigned char *>(message.constData()),
                            size_t(message.size()))
        == 1;
}

} // namespace tfsetup::core
