// X.509 issuing for loopback TLS origins: the demo's HTTPS origin (agent/demo_https) and the
// tests' HTTPS server (tests/support/https_server) both serve real TLS that a fetcher verifies
// against a CA of their own. This is the one place that makes those keys and certificates: EC
// P-256 keys, a self-signed CA (CA:TRUE, keyCertSign), and server certificates naming every
// served host (subjectAltName, plus localhost and 127.0.0.1) signed by that CA. PEM in and out,
// so no OpenSSL type crosses the interface. Nothing throws. Only the demo and the tests serve TLS,
// so this library stays out of the verifier (credence_verify only ever checks certificates).
// Thread-safety: free functions over their arguments (OpenSSL's RNG is thread-safe).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <credence/core/error.hpp>

namespace credence::demo_tls {

enum class CertificateError {
    key,          ///< a key could not be made or its PEM does not parse
    certificate,  ///< a certificate could not be made or signed, or its PEM does not parse
};
[[nodiscard]] std::string_view to_string(CertificateError e) noexcept;

/// A certificate and its private key, both PEM.
struct PemCertificate {
    std::string cert_pem;
    std::string key_pem;
};

/// A new CA: a fresh EC P-256 key and a self-signed certificate named `common_name`, valid from
/// an hour ago (clock skew) for `days`.
[[nodiscard]] core::Result<PemCertificate, CertificateError> make_ca(const std::string& common_name,
                                                                     long days);

/// A server certificate for a fresh EC P-256 key, naming `hostnames` plus localhost and IP
/// 127.0.0.1 (CN = the first host, else localhost), serverAuth, signed by `ca`, valid from an
/// hour ago for `days`. Fails when `ca` does not parse.
[[nodiscard]] core::Result<PemCertificate, CertificateError> make_server_certificate(
    const PemCertificate& ca, const std::vector<std::string>& hostnames, long days);

/// Whether the certificate and key PEM texts both parse (e.g. a CA kept on disk).
[[nodiscard]] bool pem_certificate_parses(const PemCertificate& pem);

}  // namespace credence::demo_tls
