#include <credence/demo_tls/certificate_issuer.hpp>
#include <credence/demo_tls/openssl_handles.hpp>

#include <array>
#include <memory>

#include <fmt/core.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace credence::demo_tls {

std::string_view to_string(CertificateError e) noexcept {
    switch (e) {
        case CertificateError::key:
            return "key";
        case CertificateError::certificate:
            return "certificate";
    }
    return "unknown";
}

namespace {

std::unexpected<core::Error<CertificateError>> failure(CertificateError code,
                                                       std::string_view what) {
    const unsigned long err = ERR_get_error();
    if (err == 0) return core::fail(code, std::string(what));
    std::array<char, 256> text{};
    ERR_error_string_n(err, text.data(), text.size());
    return core::fail(code, fmt::format("{}: {}", what, text.data()));
}

std::string bio_text(BIO* bio) {
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio, &data);
    return n > 0 ? std::string(data, static_cast<size_t>(n)) : std::string();
}

std::string key_to_pem(EVP_PKEY* key) {
    BioPtr bio(BIO_new(BIO_s_mem()));
    if (!bio ||
        PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1)
        return {};
    return bio_text(bio.get());
}

std::string cert_to_pem(X509* cert) {
    BioPtr bio(BIO_new(BIO_s_mem()));
    if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) return {};
    return bio_text(bio.get());
}

bool add_extension(X509* cert, X509* issuer, int nid, const std::string& value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
    if (ext == nullptr) return false;
    const bool ok = X509_add_ext(cert, ext, -1) == 1;
    X509_EXTENSION_free(ext);
    return ok;
}

using Extensions = std::vector<std::pair<int, std::string>>;

/// A certificate for `key` named `cn`, signed by (issuer, issuer_key); self-signed when `issuer`
/// is null.
core::Result<CertPtr, CertificateError> issue(EVP_PKEY* key, const std::string& cn, X509* issuer,
                                              EVP_PKEY* issuer_key, const Extensions& extensions,
                                              long days) {
    CertPtr cert(X509_new());
    if (!cert) return failure(CertificateError::certificate, "X509_new");
    X509_set_version(cert.get(), 2);
    // A random positive 127-bit serial: certificates issued on every start never repeat one.
    std::array<unsigned char, 16> serial{};
    if (RAND_bytes(serial.data(), static_cast<int>(serial.size())) != 1)
        return failure(CertificateError::certificate, "RAND_bytes");
    serial[0] &= 0x7f;
    const BnPtr bn(BN_bin2bn(serial.data(), static_cast<int>(serial.size()), nullptr));
    if (!bn || BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert.get())) == nullptr)
        return failure(CertificateError::certificate, "serial number");
    X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
    X509_gmtime_adj(X509_getm_notAfter(cert.get()), days * 24 * 3600);
    X509_set_pubkey(cert.get(), key);
    X509_NAME* name = X509_get_subject_name(cert.get());
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): OpenSSL takes unsigned char
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
    X509_set_issuer_name(cert.get(), issuer != nullptr ? X509_get_subject_name(issuer) : name);
    X509* signer = issuer != nullptr ? issuer : cert.get();
    for (const auto& [nid, value] : extensions)
        if (!add_extension(cert.get(), signer, nid, value))
            return failure(CertificateError::certificate, "X509 extension " + value);
    if (X509_sign(cert.get(), issuer_key != nullptr ? issuer_key : key, EVP_sha256()) <= 0)
        return failure(CertificateError::certificate, "X509_sign");
    return cert;
}

KeyPtr new_p256_key() { return KeyPtr(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256")); }

}  // namespace

core::Result<PemCertificate, CertificateError> make_ca(const std::string& common_name, long days) {
    KeyPtr key = new_p256_key();
    if (!key) return failure(CertificateError::key, "EC P-256 key generation");
    auto cert = issue(key.get(), common_name, nullptr, nullptr,
                      {{NID_basic_constraints, "critical,CA:TRUE"},
                       {NID_key_usage, "critical,keyCertSign,cRLSign"},
                       {NID_subject_key_identifier, "hash"}},
                      days);
    if (!cert) return std::unexpected(cert.error());
    return PemCertificate{cert_to_pem(cert->get()), key_to_pem(key.get())};
}

core::Result<PemCertificate, CertificateError> make_server_certificate(
    const PemCertificate& ca, const std::vector<std::string>& hostnames, long days) {
    const KeyPtr ca_key = key_from_pem(ca.key_pem);
    if (!ca_key) return failure(CertificateError::key, "the CA key does not parse");
    const CertPtr ca_cert = cert_from_pem(ca.cert_pem);
    if (!ca_cert)
        return failure(CertificateError::certificate, "the CA certificate does not parse");
    KeyPtr key = new_p256_key();
    if (!key) return failure(CertificateError::key, "EC P-256 key generation");
    std::string san = "DNS:localhost,IP:127.0.0.1";
    for (const auto& h : hostnames) san += ",DNS:" + h;
    auto cert = issue(key.get(), hostnames.empty() ? "localhost" : hostnames.front(), ca_cert.get(),
                      ca_key.get(),
                      {{NID_basic_constraints, "critical,CA:FALSE"},
                       {NID_key_usage, "critical,digitalSignature"},
                       {NID_ext_key_usage, "serverAuth"},
                       {NID_subject_alt_name, san},
                       {NID_subject_key_identifier, "hash"},
                       {NID_authority_key_identifier, "keyid:always"}},
                      days);
    if (!cert) return std::unexpected(cert.error());
    return PemCertificate{cert_to_pem(cert->get()), key_to_pem(key.get())};
}

bool pem_certificate_parses(const PemCertificate& pem) {
    return key_from_pem(pem.key_pem) != nullptr && cert_from_pem(pem.cert_pem) != nullptr;
}

}  // namespace credence::demo_tls
