#include <credence/demo_tls/openssl_handles.hpp>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

namespace credence::demo_tls {

void OpenSslFree::operator()(EVP_PKEY* key) const noexcept { EVP_PKEY_free(key); }
void OpenSslFree::operator()(X509* cert) const noexcept { X509_free(cert); }
void OpenSslFree::operator()(BIO* bio) const noexcept { BIO_free(bio); }
void OpenSslFree::operator()(BIGNUM* bn) const noexcept { BN_free(bn); }

KeyPtr key_from_pem(std::string_view pem) {
    const BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    return KeyPtr(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr);
}

CertPtr cert_from_pem(std::string_view pem) {
    const BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    return CertPtr(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr);
}

}  // namespace credence::demo_tls
