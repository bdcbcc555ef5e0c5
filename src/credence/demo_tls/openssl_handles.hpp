// Owning handles for the OpenSSL objects that cross file boundaries (keys, certificates, memory
// BIOs, big numbers) and the two PEM readers that produce them. demo_tls/certificate_issuer
// makes certificates with them; agent/demo_https hands them to cpp-httplib's SSLServer, which
// takes OpenSSL objects rather than PEM text. Nothing throws; a PEM that does not parse is a null
// handle. Thread-safety: free functions over their arguments.
#pragma once

#include <memory>
#include <string_view>

#include <openssl/types.h>

namespace credence::demo_tls {

struct OpenSslFree {
    void operator()(EVP_PKEY* key) const noexcept;
    void operator()(X509* cert) const noexcept;
    void operator()(BIO* bio) const noexcept;
    void operator()(BIGNUM* bn) const noexcept;
};
using KeyPtr = std::unique_ptr<EVP_PKEY, OpenSslFree>;
using CertPtr = std::unique_ptr<X509, OpenSslFree>;
using BioPtr = std::unique_ptr<BIO, OpenSslFree>;
using BnPtr = std::unique_ptr<BIGNUM, OpenSslFree>;

/// The private key in `pem`, or null.
[[nodiscard]] KeyPtr key_from_pem(std::string_view pem);
/// The (first) certificate in `pem`, or null.
[[nodiscard]] CertPtr cert_from_pem(std::string_view pem);

}  // namespace credence::demo_tls
