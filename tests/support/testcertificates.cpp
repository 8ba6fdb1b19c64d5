#include "support/testcertificates.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

namespace tfsetup::test {

namespace {

struct PkeyFree {
    void operator()(EVP_PKEY *p) const { EVP_PKEY_free(p); }
};
struct X509Free {
    void operator()(X509 *p) const { X509_free(p); }
};
struct BioFree {
    void operator()(BIO *p) const { BIO_free(p); }
};
struct ExtFree {
    void operator()(X509_EXTENSION *p) const { X509_EXTENSION_free(p); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;
using Cert = std::unique_ptr<X509, X509Free>;
using Bio = std::unique_ptr<BIO, BioFree>;
using Extension = std::unique_ptr<X509_EXTENSION, ExtFree>;

QString openSslError(const char *what)
{
    QString text = QString::fromUtf8(what);
    while (const unsigned long code = ERR_get_error()) {
        char buffer[256];
        ERR_error_string_n(code, buffer, sizeof buffer);
        text += QStringLiteral(": ") + QString::fromUtf8(buffer);
    }
    return text;
}

bool addExtension(X509 *cert, X509 *issuer, int nid, const char *value)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
    Extension ext(X509V3_EXT_nconf_nid(nullptr, &ctx, nid, value));
    return ext && X509_add_ext(cert, ext.get(), -1) == 1;
}

bool setRandomSerial(X509 *cert)
{
    unsigned char bytes[16];
    if (RAND_bytes(bytes, sizeof bytes) != 1)
        return false;
    bytes[0] &= 0x7f; // positive
    BIGNUM *bn = BN_bin2bn(bytes, sizeof bytes, nullptr);
    if (!bn)
        return false;
    const bool ok = BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert)) != nullptr;
    BN_free(bn);
    return ok;
}

Cert newCertificate(EVP_PKEY *key, const char *commonName)
{
    Cert cert(X509_new());
    if (!cert || X509_set_version(cert.get(), X509_VERSION_3) != 1 || !setRandomSerial(cert.get()))
        return nullptr;
    if (!X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600)
        || !X509_gmtime_adj(X509_getm_notAfter(cert.get()), 24 * 3600))
        return nullptr;
    X509_NAME *name = X509_get_subject_name(cert.get());
    const auto *o = reinterpret_cast<const unsigned char *>("tfsetup tests");
    const auto *cn = reinterpret_cast<const unsigned char *>(commonName);
    if (X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, o, -1, -1, 0) != 1
        || X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, cn, -1, -1, 0) != 1)
        return nullptr;
    if (X509_set_pubkey(cert.get(), key) != 1)
        return nullptr;
    return cert;
}

QByteArray certificatePem(X509 *cert)
{
    Bio bio(BIO_new(BIO_s_mem()));
    if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1)
        return {};
    char *data = nullptr;
    const long size = BIO_get_mem_data(bio.get(), &data);
    return QByteArray(data, size);
}

QByteArray privateKeyPem(EVP_PKEY *key)
{
    Bio bio(BIO_new(BIO_s_mem()));
    if (!bio || PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1)
        return {};
    char *data = nullptr;
    const long size = BIO_get_mem_data(bio.get(), &data);
    return QByteArray(data, size);
}

} // namespace

std::optional<TestCertificates> generateTestCertificates(QString *error)
{
    const auto fail = [error](const char *what) -> std::optional<TestCertificates> {
        if (error)
            *error = openSslError(what);
        return std::nullopt;
    };

    // P-256 rather than RSA: key generation takes microseconds, and every TLS client accepts it.
    Pkey caKey(EVP_EC_gen("P-256"));
    Pkey serverKey(EVP_EC_gen("P-256"));
    if (!caKey || !serverKey)
        return fail("generating EC keys");

    Cert ca = newCertificate(caKey.get(), "tfsetup test CA");
    if (!ca || X509_set_issuer_name(ca.get(), X509_get_subject_name(ca.get())) != 1)
        return fail("creating the CA certificate");
    if (!addExtension(ca.get(), ca.get(), NID_basic_constraints, "critical,CA:TRUE")
        || !addExtension(ca.get(), ca.get(), NID_key_usage, "critical,keyCertSign,cRLSign")
        || !addExtension(ca.get(), ca.get(), NID_subject_key_identifier, "hash")
        || !addExtension(ca.get(), ca.get(), NID_authority_key_identifier, "keyid:always"))
        return fail("adding CA extensions");
    if (X509_sign(ca.get(), caKey.get(), EVP_sha256()) <= 0)
        return fail("signing the CA certificate");

    Cert server = newCertificate(serverKey.get(), "localhost");
    if (!server || X509_set_issuer_name(server.get(), X509_get_subject_name(ca.get())) != 1)
        return fail("creating the server certificate");
    if (!addExtension(server.get(), ca.get(), NID_basic_constraints, "critical,CA:FALSE")
        || !addExtension(server.get(), ca.get(), NID_key_usage, "critical,digitalSignature")
        || !addExtension(server.get(), ca.get(), NID_ext_key_usage, "serverAuth")
        || !addExtension(server.get(), ca.get(), NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1")
        || !addExtension(server.get(), ca.get(), NID_subject_key_identifier, "hash")
        || !addExtension(server.get(), ca.get(), NID_authority_key_identifier, "keyid:always"))
        return fail("adding server certificate extensions");
    if (X509_sign(server.get(), caKey.get(), EVP_sha256()) <= 0)
        return fail("signing the server certificate");

    TestCertificates result{certificatePem(ca.get()), certificatePem(server.get()), privateKeyPem(serverKey.get())};
    if (result.caCertificatePem.isEmpty() || result.serverCertificatePem.isEmpty() || result.serverKeyPem.isEmpty())
        return fail("writing PEM");
    return result;
}

} // namespace tfsetup::test
