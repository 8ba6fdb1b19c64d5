#pragma once

// Certificates made at test time, so no key material is committed and nothing expires in the
// repository. The only file of the test support that includes OpenSSL is testcertificates.cpp.

#include <QByteArray>
#include <QString>

#include <optional>

namespace tfsetup::test {

// A throw-away certificate authority and one server certificate it signed.
//  - CA: EC P-256, basicConstraints critical CA:TRUE, keyUsage keyCertSign+cRLSign, subject key id.
//  - Server: EC P-256, CA:FALSE, keyUsage digitalSignature, extendedKeyUsage serverAuth,
//    subjectAltName DNS:localhost and IP:127.0.0.1, authority key id of the CA.
// Valid from an hour ago (clock skew between the test and a child process) to a day ahead.
// The extensions are those strict verifiers require (OpenSSL with X509_V_FLAG_X509_STRICT, which
// ssl.create_default_context() sets from Python 3.13 on: https://github.com/python/cpython/issues/107361),
// so pip and curl accept the chain when told to trust the CA.
struct TestCertificates {
    QByteArray caCertificatePem;
    QByteArray serverCertificatePem;
    QByteArray serverKeyPem; // PKCS#8, unencrypted
};

// nullopt with *error set when OpenSSL refuses (which would be a broken OpenSSL installation).
std::optional<TestCertificates> generateTestCertificates(QString *error = nullptr);

} // namespace tfsetup::test
