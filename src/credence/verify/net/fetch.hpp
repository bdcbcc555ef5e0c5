// Fetching documents that strangers point to: agent URIs, domain files, agent cards, tool
// manifests, feedback and validation files (docs/architecture.md §verify/).
//
// Every URL this component fetches was written on-chain by someone we do not trust, so every fetch
// is bounded and guarded:
//   - schemes: `https` (TLS verification always on); `http` only when FetcherConfig::allow_http;
//     `ipfs://<cid>[/...]` through the configured gateways, the bytes checked against the CID
//     (verify/net/cid.hpp); `data:` URIs decoded locally (core/data_uri.hpp);
//   - limits: FetchPolicy::max_bytes (checked against Content-Length and while reading, so a lying
//     Content-Length or an endless body stops at the cap), connect and total timeouts (a server
//     that drips one byte a second still ends at the total timeout), and a redirect budget that is
//     0 where a spec forbids redirects (ERC-8257 §7 check 1);
//   - SSRF guard: the address actually connected to (after DNS, and again on every redirect hop)
//     must not be private, loopback, link-local, CGNAT, multicast, unspecified or a cloud metadata
//     address, unless FetcherConfig::allow_hosts lifts it (tests and local use).
// Every failure is a FetchError with a detail line; nothing throws.
//
// Fetcher is the injection point (STYLE.md §5): production uses make_curl_fetcher(); tests run it
// against real HTTPS servers on loopback (tests/support/https_server.hpp).
// Thread-safety: a Fetcher may be used from several threads at once.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/bytes.hpp>
#include <credence/core/error.hpp>

namespace credence::verify {

enum class FetchError {
    bad_url,             ///< not a URL we can parse, or a host that is not a valid hostname
    scheme_not_allowed,  ///< not https / ipfs / data (http only when allowed)
    blocked_address,     ///< SSRF guard: the host resolves to a refused address range
    dns_failure,         ///< the host does not resolve
    connect_failed,      ///< TCP connect refused or unreachable
    tls_failure,         ///< handshake or certificate verification failed
    timeout,             ///< connect or total timeout
    too_large,           ///< body (or declared Content-Length) over FetchPolicy::max_bytes
    redirect_refused,    ///< a 3xx where the policy allows no redirect
    too_many_redirects,  ///< more hops than the policy allows
    http_status,         ///< a final status other than 2xx
    truncated,           ///< the connection closed before Content-Length bytes arrived
    content_mismatch,    ///< IPFS: the bytes do not hash to the CID
    bad_cid,             ///< IPFS: a CID we cannot parse or do not support
    no_gateway,          ///< IPFS: no gateway configured
    bad_data_uri,        ///< data: URI that does not parse (core::DataUriError in the detail)
    transport,           ///< any other transport failure
};
[[nodiscard]] std::string_view to_string(FetchError e) noexcept;

/// What one kind of document may cost (docs/architecture.md §verify/).
struct FetchPolicy {
    size_t max_bytes = size_t{1} << 20;
    std::chrono::milliseconds connect_timeout{5'000};
    std::chrono::milliseconds total_timeout{15'000};
    /// 0: any 3xx is FetchError::redirect_refused (ERC-8257 §7 check 1).
    unsigned max_redirects = 3;
};

/// Per document kind, as docs/architecture.md §verify/ sets them.
inline constexpr size_t kRegistrationFileMaxBytes = size_t{256} << 10;  // 256 KiB
inline constexpr size_t kManifestMaxBytes = size_t{1} << 20;            // ERC-8257: 1 MiB
inline constexpr size_t kFeedbackFileMaxBytes = size_t{1} << 20;        // 1 MiB
[[nodiscard]] FetchPolicy registration_policy();
[[nodiscard]] FetchPolicy manifest_policy();  // no redirects
[[nodiscard]] FetchPolicy feedback_policy();

struct FetcherConfig {
    /// Hosts or IP literals (and CIDR ranges like "127.0.0.0/8") exempt from the SSRF guard.
    std::vector<std::string> allow_hosts;
    /// curl's CONNECT_TO: "host:port:connect-host:connect-port". TLS still verifies `host`. Lets
    /// tests serve https://agent-a.test/ from 127.0.0.1:<port>.
    std::vector<std::string> connect_to;
    /// Extra trusted CA bundle (PEM file), added for the tests' throwaway CA. Empty: system CAs.
    std::string ca_file;
    /// Allow plain http:// (never by default).
    bool allow_http = false;
    /// IPFS gateways, e.g. "https://ipfs.io"; tried in order. Content is always verified.
    std::vector<std::string> ipfs_gateways;
    /// A gateway that fails (no answer, an error status, wrong bytes) is tried after the others
    /// for this long, doubling with each failure in a row up to gateway_backoff_max; an answer
    /// that checks out resets it. 0: always in the configured order.
    std::chrono::milliseconds gateway_backoff{1'000};
    std::chrono::milliseconds gateway_backoff_max{300'000};
    std::string user_agent = "credence";
};

struct FetchResponse {
    std::string final_url;  ///< after redirects (the input for data:/ipfs:)
    long status = 0;        ///< HTTP status; 200 for data: and verified ipfs:
    std::string content_type;
    core::Bytes body;
};

class Fetcher {
public:
    virtual ~Fetcher() = default;
    [[nodiscard]] virtual core::Result<FetchResponse, FetchError> fetch(
        std::string_view url, const FetchPolicy& policy) = 0;
    /// Fetches all URLs concurrently (one curl multi loop); result i is for url i.
    [[nodiscard]] virtual std::vector<core::Result<FetchResponse, FetchError>> fetch_all(
        const std::vector<std::string>& urls, const FetchPolicy& policy) = 0;
};

[[nodiscard]] std::unique_ptr<Fetcher> make_curl_fetcher(FetcherConfig config);

}  // namespace credence::verify
