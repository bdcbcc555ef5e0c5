// The demo's HTTPS origin (docs/agent.md): one TLS server on 127.0.0.1 that plays every demo domain
// (alpha.demo.localhost, tools.demo.localhost, ...), so the verifier reaches registration files,
// `.well-known` domain proofs and ERC-8257 manifests over real HTTPS with certificate checks on.
//
// Trust: a demo CA (EC P-256) is created once per state directory and kept there
// (demo-ca.pem / demo-ca.key), so a verifier configured with `--ca-file <state>/demo-ca.pem`
// keeps working when the demo restarts; each start issues a fresh leaf certificate for the
// served names. Reaching the names: the URLs carry no port (ERC-8004 §Endpoint Domain
// Verification fetches `https://{domain}/.well-known/...`, port 443), so verifiers map each name
// to the server with curl's CONNECT_TO (verify/net/fetch.hpp FetcherConfig::connect_to; the
// `--connect-to` flag), which keeps TLS verifying the name, and lift the SSRF guard for each name
// pinned to this server's address and port (`--allow-host name=127.0.0.1:<port>`), so a URL on
// chain naming 127.0.0.1, localhost or any other local port is still refused.
//
// Routes are keyed by (Host header without port, path); an unknown route is a 404. Errors are
// DemoHttpsError values with a detail; nothing throws out of this API.
// Thread-safety: routes may be added while serving (mutex); requests run on the server's threads.
// Ownership: the server owns its listening socket and thread; the destructor stops and joins.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/error.hpp>

namespace credence::agent {

enum class DemoHttpsError {
    ca,           ///< the CA could not be read from or written to the state directory
    certificate,  ///< OpenSSL failed to make or sign a key or certificate
    listen,       ///< the server could not bind or start
};
[[nodiscard]] std::string_view to_string(DemoHttpsError e) noexcept;

/// PEM texts of the demo's trust chain.
struct DemoCertificates {
    std::filesystem::path ca_file;  ///< the CA certificate (what verifiers pass as --ca-file)
    std::string leaf_cert_pem;      ///< a certificate for every served name, signed by the CA
    std::string leaf_key_pem;
};

/// Loads the CA kept in `state_dir` (creating it on first use) and issues a leaf certificate
/// naming `hostnames` (plus localhost and 127.0.0.1).
[[nodiscard]] core::Result<DemoCertificates, DemoHttpsError> make_demo_certificates(
    const std::filesystem::path& state_dir, const std::vector<std::string>& hostnames);

class DemoHttpsServer {
public:
    /// Listens on 127.0.0.1:`port` (0: a port the kernel picks) and serves in a thread.
    [[nodiscard]] static core::Result<std::unique_ptr<DemoHttpsServer>, DemoHttpsError> start(
        const DemoCertificates& certificates, int port);
    ~DemoHttpsServer();
    DemoHttpsServer(const DemoHttpsServer&) = delete;
    DemoHttpsServer& operator=(const DemoHttpsServer&) = delete;

    [[nodiscard]] int port() const noexcept;
    /// Serves `body` with `status` at https://`host``path` (the latest route wins).
    void serve(const std::string& host, const std::string& path, std::string body, int status = 200,
               std::string content_type = "application/json");
    /// "host:443:127.0.0.1:<port>" for each host: FetcherConfig::connect_to / --connect-to.
    [[nodiscard]] std::vector<std::string> connect_to(const std::vector<std::string>& hosts) const;
    /// "host=127.0.0.1:<port>" for each host: FetcherConfig::allow_hosts / --allow-host. Lifts the
    /// SSRF guard for these names reaching this server only, never for loopback as a whole
    /// (verify/net/ssrf_guard.hpp, pinned entries).
    [[nodiscard]] std::vector<std::string> allow_hosts(const std::vector<std::string>& hosts) const;

private:
    DemoHttpsServer();
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace credence::agent
