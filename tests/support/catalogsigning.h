#pragma once

// Catalog updates signed in tests: a throw-away Ed25519 key pair made for each run (never the
// release key) and update documents signed with it, in the form CatalogUpdates::verify reads.

#include <QByteArray>
#include <QJsonObject>
#include <QMap>
#include <QString>

#include <memory>

namespace tfsetup::test {

class TestSigningKey {
public:
    TestSigningKey();
    ~TestSigningKey();
    TestSigningKey(const TestSigningKey &) = delete;
    TestSigningKey &operator=(const TestSigningKey &) = delete;

    bool isValid() const;
    QByteArray publicKey() const;                     // raw, 32 bytes
    QByteArray sign(const QByteArray &message) const; // 64 bytes; empty on failure
    bool writePem(const QString &path) const;         // the private key, as openssl genpkey writes it

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

// The built-in catalog's knowledge files (":/resources/catalog/NAME"), by name.
QMap<QString, QByteArray> builtInCatalogFiles();

// A signed update document carrying files.
QJsonObject signedCatalogUpdate(const TestSigningKey &key, qint64 version, const QMap<QString, QByteArray> &files,
                                const QString &date = QStringLiteral("2027-01-15"));

} // namespace tfsetup::test
