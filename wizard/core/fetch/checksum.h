#pragma once

#include "util/result.h"

#include <QByteArray>
#include <QString>

#include <atomic>
#include <memory>

namespace tfsetup::core {

// What a download must hash to. SHA-256 wherever the official source publishes it; MD5 only
// where it publishes nothing stronger (NVIDIA's full-installer md5sum.txt), and reported so.
struct Checksum {
    enum class Algorithm { Sha256, Md5 };
    Algorithm algorithm = Algorithm::Sha256;
    QByteArray hex; // lower-case hex digest

    bool isValid() const;
    bool isWeak() const { return algorithm == Algorithm::Md5; }
    QString algorithmName() const; // "sha256" | "md5"
    static Result<Checksum> parse(Algorithm algorithm, const QString &hex);
    friend bool operator==(const Checksum &, const Checksum &) = default;
};

// Incremental hashing (OpenSSL EVP). Not copyable; cheap to move.
class Hasher {
public:
    explicit Hasher(Checksum::Algorithm algorithm);
    ~Hasher();
    Hasher(Hasher &&) noexcept;
    Hasher &operator=(Hasher &&) noexcept;
    Hasher(const Hasher &) = delete;
    Hasher &operator=(const Hasher &) = delete;

    void addData(const char *data, qsizetype size);
    void addData(const QByteArray &data) { addData(data.constData(), data.size()); }
    // Lower-case hex digest; the hasher cannot be used afterwards.
    QByteArray finalHex();

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

// Hashes a file (or its first `length` bytes) into the hasher. Returns the bytes read, or an
// error. `cancel`, when given, stops the read early (the result is then an error "cancelled").
Result<qint64> hashFileInto(Hasher &hasher, const QString &path, qint64 length = -1,
                            const std::atomic<bool> *cancel = nullptr);
Result<QByteArray> hashFile(Checksum::Algorithm algorithm, const QString &path,
                            const std::atomic<bool> *cancel = nullptr);

// Whether signature (64 bytes) is publicKey's (32 raw bytes) Ed25519 signature of message. Kept
// here so OpenSSL's EVP interface stays in one file (catalog updates are signed this way).
bool verifyEd25519(const QByteArray &publicKey, const QByteArray &message, const QByteArray &signature);

} // namespace tfsetup::core
