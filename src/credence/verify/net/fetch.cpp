// The libcurl fetcher behind verify/net/fetch.hpp.
//
// One engine serves fetch() and fetch_all(): a curl multi handle running up to kMaxParallel
// transfers at once. Redirects are followed here, not by curl, so each hop's URL passes the same
// checks as the first (scheme, shape) and counts against FetchPolicy::max_redirects, and the
// total timeout covers the whole chain. Every socket goes through open_socket(), which refuses
// blocked addresses: the guard sees the address curl actually connects to, after DNS and
// CONNECT_TO, on every hop. Proxies from the environment are disabled, since a proxy would make
// the guard check the proxy instead of the target.
#include <credence/verify/net/fetch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include <curl/curl.h>
#include <fmt/core.h>

#include <credence/core/data_uri.hpp>
#include <credence/verify/net/cid.hpp>
#include <credence/verify/net/ssrf_guard.hpp>
#include <credence/verify/net/url.hpp>

namespace credence::verify {

using core::fail;

std::string_view to_string(FetchError e) noexcept {
    switch (e) {
        case FetchError::bad_url:
            return "bad_url";
        case FetchError::scheme_not_allowed:
            return "scheme_not_allowed";
        case FetchError::blocked_address:
            return "blocked_address";
        case FetchError::dns_failure:
            return "dns_failure";
        case FetchError::connect_failed:
            return "connect_failed";
        case FetchError::tls_failure:
            return "tls_failure";
        case FetchError::timeout:
            return "timeout";
        case FetchError::too_large:
            return "too_large";
        case FetchError::redirect_refused:
            return "redirect_refused";
        case FetchError::too_many_redirects:
            return "too_many_redirects";
        case FetchError::http_status:
            return "http_status";
        case FetchError::truncated:
            return "truncated";
        case FetchError::content_mismatch:
            return "content_mismatch";
        case FetchError::bad_cid:
            return "bad_cid";
        case FetchError::no_gateway:
            return "no_gateway";
        case FetchError::bad_data_uri:
            return "bad_data_uri";
        case FetchError::transport:
            return "transport";
    }
    return "unknown";
}

// Registration files 256 KiB, bounded redirects.
FetchPolicy registration_policy() {
    FetchPolicy p;
    p.max_bytes = kRegistrationFileMaxBytes;
    return p;
}

// ERC-8257 §7 check 1: the manifest is fetched without following redirects; 1 MiB cap.
FetchPolicy manifest_policy() {
    FetchPolicy p;
    p.max_bytes = kManifestMaxBytes;
    p.max_redirects = 0;
    return p;
}

// Feedback, response and validation files 1 MiB.
FetchPolicy feedback_policy() {
    FetchPolicy p;
    p.max_bytes = kFeedbackFileMaxBytes;
    return p;
}

namespace {

// ---------------------------------------------------------------------------------------------
// The curl engine

using FetchResult = core::Result<FetchResponse, FetchError>;
using Clock = std::chrono::steady_clock;

constexpr size_t kMaxParallel = 32;
using FetchFailure = core::Error<FetchError>;
// A multi-block UnixFS file (ipfs://): how deep its tree and how many its blocks may be. Files of
// the sizes the policies allow (at most a few MiB) are one or two levels of 256 KiB leaves.
constexpr unsigned kMaxIpfsDepth = 8;
constexpr size_t kMaxIpfsBlocks = 1024;

struct Shared {
    FetcherConfig config;
    HostAllowList allow;
    curl_slist* connect_to = nullptr;

    // The callers check allow_hosts with HostAllowList::parse and report a malformed entry; one
    // that still gets here lifts nothing, the safe side.
    explicit Shared(FetcherConfig c)
        : config(std::move(c)),
          allow(HostAllowList::parse(config.allow_hosts).value_or(HostAllowList{})) {
        for (const auto& entry : config.connect_to)
            connect_to = curl_slist_append(connect_to, entry.c_str());
    }
    ~Shared() { curl_slist_free_all(connect_to); }
    Shared(const Shared&) = delete;
    Shared& operator=(const Shared&) = delete;
};

struct Transfer {
    const Shared* shared = nullptr;
    FetchPolicy policy;
    std::string url;  // the current hop
    std::string host;
    unsigned hops = 0;
    Clock::time_point deadline;
    std::vector<std::string> headers;
    size_t max_body = 0;  // the cap for this transfer (policy.max_bytes unless widened)

    CURL* easy = nullptr;
    curl_slist* header_list = nullptr;
    core::Bytes body;
    bool too_large = false;
    std::string blocked;  // "<address> (<range>)" when the guard refused a connection
    std::array<char, CURL_ERROR_SIZE> error_buffer{};
    std::optional<FetchResult> result;

    Transfer() = default;
    Transfer(const Transfer&) = delete;
    Transfer& operator=(const Transfer&) = delete;
    ~Transfer() {
        if (easy != nullptr) curl_easy_cleanup(easy);
        curl_slist_free_all(header_list);
    }
};

size_t on_body(char* data, size_t size, size_t count, void* user) {
    auto* t = static_cast<Transfer*>(user);
    const size_t n = size * count;
    // Stop reading at the cap, whatever Content-Length said.
    if (n > t->max_body - t->body.size()) {
        t->too_large = true;
        return 0;  // CURLE_WRITE_ERROR
    }
    t->body.insert(t->body.end(), data, data + n);
    return n;
}

// The SSRF guard on the address curl is about to connect to (docs/architecture.md §verify/).
curl_socket_t open_socket(void* user, curlsocktype /*purpose*/, curl_sockaddr* address) {
    auto* t = static_cast<Transfer*>(user);
    IpAddress ip;
    uint16_t port = 0;
    if (address->family == AF_INET &&
        address->addrlen >= static_cast<unsigned>(sizeof(sockaddr_in))) {
        sockaddr_in sin{};
        std::memcpy(&sin, &address->addr, sizeof sin);
        std::memcpy(ip.bytes.data(), &sin.sin_addr, 4);
        port = ntohs(sin.sin_port);
    } else if (address->family == AF_INET6 &&
               address->addrlen >= static_cast<unsigned>(sizeof(sockaddr_in6))) {
        sockaddr_in6 sin6{};
        std::memcpy(&sin6, &address->addr, sizeof sin6);
        ip.v6 = true;
        std::memcpy(ip.bytes.data(), &sin6.sin6_addr, 16);
        port = ntohs(sin6.sin6_port);
    } else {
        t->blocked = "non-IP address family";
        return CURL_SOCKET_BAD;
    }
    if (const auto range = blocked_range(ip);
        range && !t->shared->allow.allows(t->host, ip, port)) {
        t->blocked = fmt::format("{} ({})", to_string(ip), *range);
        return CURL_SOCKET_BAD;
    }
    return socket(address->family, address->socktype, address->protocol);
}

template <typename T>
void set(CURL* easy, CURLoption option, T value) {
    // Options set here are all valid for this libcurl; a failure would surface at perform time.
    (void)curl_easy_setopt(easy, option, value);
}

// Prepares `t` for its current hop. Returns false (with t->result set) when it cannot start.
bool prepare(Transfer& t) {
    // The total timeout runs from the transfer's start, not from fetch_all()'s: a document queued
    // behind kMaxParallel others gets its full budget. Redirect hops share it.
    if (t.deadline == Clock::time_point{}) t.deadline = Clock::now() + t.policy.total_timeout;
    const auto remaining =
        std::chrono::duration_cast<std::chrono::milliseconds>(t.deadline - Clock::now());
    if (remaining.count() <= 0) {
        t.result = fail(FetchError::timeout, "total timeout before " + t.url);
        return false;
    }
    if (t.easy == nullptr) {
        t.easy = curl_easy_init();
        if (t.easy == nullptr) {
            t.result = fail(FetchError::transport, "curl_easy_init failed");
            return false;
        }
        for (const auto& h : t.headers) t.header_list = curl_slist_append(t.header_list, h.c_str());
    } else {
        curl_easy_reset(t.easy);
    }
    t.body.clear();
    t.too_large = false;
    t.blocked.clear();
    t.error_buffer[0] = '\0';
    const auto& cfg = t.shared->config;
    CURL* e = t.easy;
    set(e, CURLOPT_URL, t.url.c_str());
    set(e, CURLOPT_PRIVATE, static_cast<void*>(&t));
    set(e, CURLOPT_PROTOCOLS_STR, cfg.allow_http ? "http,https" : "https");
    set(e, CURLOPT_FOLLOWLOCATION, 0L);  // followed in finish(), one checked hop at a time
    set(e, CURLOPT_NOSIGNAL, 1L);
    set(e, CURLOPT_PROXY, "");  // never an environment proxy: the guard must see the target
    set(e, CURLOPT_SSL_VERIFYPEER, 1L);
    set(e, CURLOPT_SSL_VERIFYHOST, 2L);
    set(e, CURLOPT_SSLVERSION, static_cast<long>(CURL_SSLVERSION_TLSv1_2));
    if (!cfg.ca_file.empty()) set(e, CURLOPT_CAINFO, cfg.ca_file.c_str());
    if (t.shared->connect_to != nullptr) set(e, CURLOPT_CONNECT_TO, t.shared->connect_to);
    set(e, CURLOPT_USERAGENT, cfg.user_agent.c_str());
    if (t.header_list != nullptr) set(e, CURLOPT_HTTPHEADER, t.header_list);
    const auto connect = std::min(t.policy.connect_timeout, remaining);
    set(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(connect.count()));
    set(e, CURLOPT_TIMEOUT_MS, static_cast<long>(remaining.count()));
    // A declared Content-Length over the cap fails before the body is read
    // (CURLE_FILESIZE_EXCEEDED).
    set(e, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(t.max_body));
    set(e, CURLOPT_WRITEFUNCTION, &on_body);
    set(e, CURLOPT_WRITEDATA, static_cast<void*>(&t));
    set(e, CURLOPT_OPENSOCKETFUNCTION, &open_socket);
    set(e, CURLOPT_OPENSOCKETDATA, static_cast<void*>(&t));
    set(e, CURLOPT_ERRORBUFFER, t.error_buffer.data());
    return true;
}

FetchError map_curl_error(CURLcode code, const Transfer& t) {
    switch (code) {
        case CURLE_COULDNT_RESOLVE_HOST:
            return FetchError::dns_failure;
        case CURLE_COULDNT_CONNECT:
            return t.blocked.empty() ? FetchError::connect_failed : FetchError::blocked_address;
        case CURLE_OPERATION_TIMEDOUT:
            return FetchError::timeout;
        case CURLE_FILESIZE_EXCEEDED:
            return FetchError::too_large;
        case CURLE_WRITE_ERROR:
            return t.too_large ? FetchError::too_large : FetchError::transport;
        case CURLE_PARTIAL_FILE:
            return FetchError::truncated;
        case CURLE_URL_MALFORMAT:
            return FetchError::bad_url;
        case CURLE_UNSUPPORTED_PROTOCOL:
            return FetchError::scheme_not_allowed;
        case CURLE_TOO_MANY_REDIRECTS:
            return FetchError::too_many_redirects;
        case CURLE_SSL_CONNECT_ERROR:
        case CURLE_PEER_FAILED_VERIFICATION:
        case CURLE_SSL_CERTPROBLEM:
        case CURLE_SSL_CIPHER:
        case CURLE_SSL_CACERT_BADFILE:
        case CURLE_SSL_ENGINE_NOTFOUND:
        case CURLE_SSL_ENGINE_SETFAILED:
        case CURLE_SSL_ENGINE_INITFAILED:
        case CURLE_SSL_SHUTDOWN_FAILED:
        case CURLE_SSL_CRL_BADFILE:
        case CURLE_SSL_ISSUER_ERROR:
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
        case CURLE_SSL_INVALIDCERTSTATUS:
        case CURLE_SSL_CLIENTCERT:
            return FetchError::tls_failure;
        default:
            return FetchError::transport;
    }
}

std::string curl_detail(CURLcode code, const Transfer& t) {
    if (!t.blocked.empty()) return t.url + ": connection to " + t.blocked + " refused";
    if (t.too_large) return fmt::format("{}: body over {} bytes", t.url, t.max_body);
    const char* text = t.error_buffer[0] != '\0' ? t.error_buffer.data() : curl_easy_strerror(code);
    return fmt::format("{}: {}", t.url, text);
}

std::string get_info_string(CURL* e, CURLINFO info) {
    char* value = nullptr;
    if (curl_easy_getinfo(e, info, &value) != CURLE_OK || value == nullptr) return {};
    return value;
}

// Handles a finished hop. Returns true when `t` should be started again (a redirect).
bool finish(Transfer& t, CURLcode code) {
    if (code != CURLE_OK) {
        t.result = fail(map_curl_error(code, t), curl_detail(code, t));
        return false;
    }
    long status = 0;
    curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &status);
    if (status >= 300 && status < 400) {
        const std::string location = get_info_string(t.easy, CURLINFO_REDIRECT_URL);
        if (!location.empty()) {
            // ERC-8257 §7 check 1: where redirects are forbidden, any 3xx fails.
            if (t.policy.max_redirects == 0) {
                t.result = fail(FetchError::redirect_refused,
                                fmt::format("{}: HTTP {} to {}", t.url, status, location));
                return false;
            }
            if (t.hops >= t.policy.max_redirects) {
                t.result =
                    fail(FetchError::too_many_redirects,
                         fmt::format("{}: more than {} redirects", t.url, t.policy.max_redirects));
                return false;
            }
            auto parts = parse_fetch_url(location, t.shared->config.allow_http);
            if (!parts) {
                t.result = fail(parts.error().code,
                                "redirect to " + location + ": " + parts.error().detail);
                return false;
            }
            ++t.hops;
            t.url = location;
            t.host = parts->host;
            return prepare(t);
        }
    }
    if (status < 200 || status >= 300) {
        t.result = fail(FetchError::http_status, fmt::format("{}: HTTP {}", t.url, status));
        return false;
    }
    FetchResponse r;
    r.final_url = t.url;
    r.status = status;
    r.content_type = get_info_string(t.easy, CURLINFO_CONTENT_TYPE);
    r.body = std::move(t.body);
    t.result = std::move(r);
    return false;
}

// Runs every transfer to completion (result set on each), kMaxParallel at a time.
void run_all(const std::vector<Transfer*>& transfers) {
    CURLM* multi = curl_multi_init();
    if (multi == nullptr) {
        for (auto* t : transfers)
            if (!t->result) t->result = fail(FetchError::transport, "curl_multi_init failed");
        return;
    }
    size_t next = 0;
    size_t active = 0;
    auto start = [&](Transfer& t) {
        if (curl_multi_add_handle(multi, t.easy) != CURLM_OK) {
            t.result = fail(FetchError::transport, "curl_multi_add_handle failed");
            return;
        }
        ++active;
    };
    auto start_more = [&] {
        while (active < kMaxParallel && next < transfers.size()) {
            Transfer& t = *transfers[next++];
            if (!t.result && prepare(t)) start(t);
        }
    };
    start_more();
    while (active > 0) {
        int running = 0;
        curl_multi_perform(multi, &running);
        int queued = 0;
        while (CURLMsg* msg = curl_multi_info_read(multi, &queued)) {
            if (msg->msg != CURLMSG_DONE) continue;
            CURL* easy = msg->easy_handle;
            const CURLcode code = msg->data.result;
            void* priv = nullptr;
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, &priv);
            auto* t = static_cast<Transfer*>(priv);
            curl_multi_remove_handle(multi, easy);
            --active;
            if (finish(*t, code)) start(*t);
        }
        start_more();
        if (active == 0) break;
        curl_multi_poll(multi, nullptr, 0, 100, nullptr);
    }
    curl_multi_cleanup(multi);
}

class CurlFetcher final : public Fetcher {
public:
    explicit CurlFetcher(FetcherConfig config) : shared_(std::move(config)) {}

    FetchResult fetch(std::string_view url, const FetchPolicy& policy) override {
        try {
            std::vector<std::string> one{std::string(url)};
            return std::move(fetch_all(one, policy).front());
        } catch (const std::exception& e) {
            return fail(FetchError::transport, e.what());
        }
    }

    std::vector<FetchResult> fetch_all(const std::vector<std::string>& urls,
                                       const FetchPolicy& policy) override {
        try {
            return fetch_all_impl(urls, policy);
        } catch (const std::exception& e) {
            return std::vector<FetchResult>(urls.size(), fail(FetchError::transport, e.what()));
        }
    }

private:
    std::vector<FetchResult> fetch_all_impl(const std::vector<std::string>& urls,
                                            const FetchPolicy& policy) {
        std::vector<std::unique_ptr<Transfer>> transfers;
        std::vector<Transfer*> http;
        std::vector<size_t> ipfs;
        std::vector<FetchResult> results(urls.size(), fail(FetchError::transport, "not run"));
        for (size_t i = 0; i < urls.size(); ++i) {
            auto& t = *transfers.emplace_back(std::make_unique<Transfer>());
            t.shared = &shared_;
            t.policy = policy;
            t.url = urls[i];
            t.max_body = policy.max_bytes;
            if (has_scheme(urls[i], "data")) {
                t.result = fetch_data(urls[i], policy);
            } else if (has_scheme(urls[i], "ipfs")) {
                ipfs.push_back(i);
            } else if (auto parts = parse_fetch_url(urls[i], shared_.config.allow_http); !parts) {
                t.result = std::unexpected(parts.error());
            } else {
                t.host = parts->host;
                http.push_back(&t);
            }
        }
        run_all(http);
        for (size_t i : ipfs) transfers[i]->result = fetch_ipfs(urls[i], policy);
        for (size_t i = 0; i < urls.size(); ++i) {
            if (auto& r = transfers[i]->result; r.has_value()) results[i] = std::move(r.value());
        }
        return results;
    }

    static FetchResult fetch_data(const std::string& url, const FetchPolicy& policy) {
        auto parsed = core::parse_data_uri(url, policy.max_bytes);
        if (!parsed) {
            const auto& e = parsed.error();
            const std::string detail =
                e.detail.empty() ? std::string(core::to_string(e.code))
                                 : fmt::format("{}: {}", core::to_string(e.code), e.detail);
            return fail(e.code == core::DataUriError::too_large ? FetchError::too_large
                                                                : FetchError::bad_data_uri,
                        detail);
        }
        FetchResponse r;
        r.final_url = url;
        r.status = 200;
        r.content_type = parsed->media_type;
        for (const auto& [attribute, value] : parsed->parameters)
            r.content_type += fmt::format(";{}={}", attribute, value);
        r.body = std::move(parsed->data);
        return r;
    }

    // ipfs://<cid>: a trustless gateway's raw blocks (application/vnd.ipld.raw), each checked
    // against its CID (docs/architecture.md §verify/). A multi-block UnixFS file is its root's
    // children fetched in order, depth first, every block through the same gateway list.
    FetchResult fetch_ipfs(const std::string& url, const FetchPolicy& policy) {
        const auto ipfs_url = split_url(url);
        if (!ipfs_url) return fail(FetchError::bad_url, "ipfs URL without //");
        // The whole authority is the CID text: userinfo or a port mean nothing in an ipfs:// URL,
        // and parse_cid() refuses their characters.
        const std::string_view cid_text = ipfs_url->authority;
        if ((!ipfs_url->path.empty() && ipfs_url->path != "/") || ipfs_url->query ||
            ipfs_url->fragment)
            return fail(FetchError::bad_cid, "paths inside an IPFS CID are not supported");
        const auto cid = parse_cid(cid_text);
        if (!cid)
            return fail(FetchError::bad_cid,
                        fmt::format("{}: {}", to_string(cid.error().code), cid.error().detail));
        if (shared_.config.ipfs_gateways.empty())
            return fail(FetchError::no_gateway, "no IPFS gateway configured for " + url);
        const auto deadline = Clock::now() + policy.total_timeout;
        core::Bytes content;
        size_t blocks = 0;
        if (auto r = append_file(url, *cid, policy, deadline, 0, blocks, content); !r)
            return std::unexpected(r.error());
        FetchResponse r;
        r.final_url = url;
        r.status = 200;
        r.content_type = "application/octet-stream";
        r.body = std::move(content);
        return r;
    }

    /// Appends the content of the UnixFS file (or subtree) `cid` to `out`: its own bytes, then its
    /// children's. Bounded by the policy's size, kMaxIpfsDepth and kMaxIpfsBlocks.
    std::expected<void, FetchFailure> append_file(const std::string& url, const Cid& cid,
                                                  const FetchPolicy& policy,
                                                  Clock::time_point deadline, unsigned depth,
                                                  size_t& blocks, core::Bytes& out) {
        if (depth > kMaxIpfsDepth || ++blocks > kMaxIpfsBlocks) {
            return std::unexpected(
                FetchFailure{FetchError::too_large,
                             fmt::format("{}: deeper than {} levels or more than {} blocks", url,
                                         kMaxIpfsDepth, kMaxIpfsBlocks)});
        }
        auto block = fetch_block(url, cid, policy, deadline);
        if (!block) return std::unexpected(block.error());
        if (block->data.size() > policy.max_bytes - std::min(out.size(), policy.max_bytes) ||
            block->children_size > policy.max_bytes) {
            return std::unexpected(FetchFailure{
                FetchError::too_large, fmt::format("{}: over {} bytes", url, policy.max_bytes)});
        }
        out.insert(out.end(), block->data.begin(), block->data.end());
        const size_t before = out.size();
        for (const Cid& child : block->children) {
            if (auto r = append_file(url, child, policy, deadline, depth + 1, blocks, out); !r)
                return r;
        }
        // UnixFS spec §File: blocksizes give the children's content sizes; a tree whose leaves
        // hold other sizes is malformed, whatever each block's digest says.
        if (out.size() - before != block->children_size) {
            return std::unexpected(FetchFailure{
                FetchError::bad_cid,
                fmt::format("{}: {} holds {} bytes below it, its blocksizes "
                            "say {}",
                            url, to_string(cid), out.size() - before, block->children_size)});
        }
        return {};
    }

    /// One block of `cid` from the first gateway that serves bytes hashing to it.
    std::expected<FileBlock, FetchFailure> fetch_block(const std::string& url, const Cid& cid,
                                                       const FetchPolicy& policy,
                                                       Clock::time_point deadline) {
        const std::string cid_text = to_string(cid);
        std::optional<FetchFailure> mismatch;
        FetchFailure last{FetchError::no_gateway, {}};
        for (const std::string& gateway : gateways_in_turn()) {
            std::string base = gateway;
            while (!base.empty() && base.back() == '/') base.pop_back();
            Transfer t;
            t.shared = &shared_;
            t.policy = policy;
            t.url = fmt::format("{}/ipfs/{}?format=raw", base, cid_text);
            t.deadline = deadline;
            // A dag-pb block wraps the file in a few bytes of protobuf.
            t.max_body = policy.max_bytes + 64;
            t.headers = {"Accept: application/vnd.ipld.raw"};
            if (auto parts = parse_fetch_url(t.url, shared_.config.allow_http); !parts) {
                last = parts.error();
                continue;
            } else {
                t.host = parts->host;
            }
            run_all({&t});
            if (!t.result || !*t.result) {
                if (t.result) last = t.result->error();
                gateway_failed(gateway);
                continue;  // a transport failure: try the next gateway
            }
            auto block = read_file_block(cid, (*t.result)->body);
            if (!block) {
                gateway_failed(gateway);
                const auto& e = block.error();
                const FetchError code = e.code == CidError::digest_mismatch
                                            ? FetchError::content_mismatch
                                            : FetchError::bad_cid;
                FetchFailure failure{
                    code, fmt::format("{} via {}: {}: {}", url, base, to_string(e.code), e.detail)};
                if (code == FetchError::bad_cid) return std::unexpected(std::move(failure));
                if (!mismatch) mismatch = std::move(failure);
                continue;  // a lying gateway: another may serve the right bytes
            }
            gateway_answered(gateway);
            return std::move(*block);
        }
        return std::unexpected(mismatch ? std::move(*mismatch) : std::move(last));
    }

    // Per-gateway backoff (FetcherConfig::gateway_backoff): the gateways in their configured
    // order, those resting after a failure moved behind the others (soonest back first). A
    // resting gateway is demoted, never dropped: with every gateway failing, all are still tried.
    std::vector<std::string> gateways_in_turn() {
        const auto now = Clock::now();
        std::vector<std::pair<Clock::time_point, const std::string*>> order;
        {
            const std::lock_guard lock(gateway_mutex_);
            for (const std::string& g : shared_.config.ipfs_gateways) {
                const auto it = gateway_rest_.find(g);
                const bool resting = it != gateway_rest_.end() && it->second.until > now;
                order.emplace_back(resting ? it->second.until : Clock::time_point{}, &g);
            }
        }
        // Resting time, then the configured position: a total order, so std::sort keeps the
        // configured order among gateways not resting.
        std::vector<size_t> position(order.size());
        for (size_t i = 0; i < position.size(); ++i) position[i] = i;
        std::sort(position.begin(), position.end(), [&order](size_t a, size_t b) {
            return std::pair{order[a].first, a} < std::pair{order[b].first, b};
        });
        std::vector<std::string> out;
        out.reserve(order.size());
        for (const size_t i : position) out.push_back(*order[i].second);
        return out;
    }
    void gateway_failed(const std::string& gateway) {
        const auto base = shared_.config.gateway_backoff;
        if (base.count() <= 0) return;
        const std::lock_guard lock(gateway_mutex_);
        GatewayRest& rest = gateway_rest_[gateway];
        rest.failures = std::min(rest.failures + 1, 30U);
        const auto pause = std::min(base * (int64_t{1} << (rest.failures - 1)),
                                    shared_.config.gateway_backoff_max);
        rest.until = Clock::now() + pause;
    }
    void gateway_answered(const std::string& gateway) {
        const std::lock_guard lock(gateway_mutex_);
        gateway_rest_.erase(gateway);
    }

    Shared shared_;
    struct GatewayRest {
        unsigned failures = 0;
        Clock::time_point until{};
    };
    std::mutex gateway_mutex_;
    std::map<std::string, GatewayRest> gateway_rest_;  ///< failing gateways only
};

}  // namespace

std::unique_ptr<Fetcher> make_curl_fetcher(FetcherConfig config) {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    return std::make_unique<CurlFetcher>(std::move(config));
}

}  // namespace credence::verify
