#include <credence/chain/rpc_transport.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <mutex>

#include <curl/curl.h>

namespace credence::chain {
namespace {

// curl_global_init is not thread-safe and must run once per process (libcurl docs).
void global_init_once() {
    static std::once_flag flag;
    std::call_once(flag, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Sink {
    std::string body;
    size_t cap = 0;
    bool overflow = false;
    std::optional<std::chrono::milliseconds> retry_after;
};

size_t on_body(char* data, size_t size, size_t count, void* user) {
    auto* sink = static_cast<Sink*>(user);
    const size_t n = size * count;
    if (sink->body.size() + n > sink->cap) {
        sink->overflow = true;
        return 0;  // makes curl fail with CURLE_WRITE_ERROR
    }
    sink->body.append(data, n);
    return n;
}

// Retry-After: delta-seconds only (RFC 9110 §10.2.3); the HTTP-date form is ignored, and the
// client falls back to its own backoff.
size_t on_header(char* data, size_t size, size_t count, void* user) {
    auto* sink = static_cast<Sink*>(user);
    const size_t n = size * count;
    std::string_view line(data, n);
    constexpr std::string_view kName = "retry-after:";
    if (line.size() > kName.size() &&
        std::equal(kName.begin(), kName.end(), line.begin(), [](char a, char b) {
            return a == std::tolower(static_cast<unsigned char>(b));
        })) {
        line.remove_prefix(kName.size());
        while (!line.empty() && (line.front() == ' ' || line.front() == '\t'))
            line.remove_prefix(1);
        uint32_t seconds = 0;
        auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), seconds);
        if (ec == std::errc{} && end != line.data()) {
            sink->retry_after = std::chrono::seconds(seconds);
        }
    }
    return n;
}

std::string snippet(std::string_view body) {
    constexpr size_t kMax = 200;
    std::string out(body.substr(0, kMax));
    if (body.size() > kMax) out += "...";
    return out;
}

}  // namespace

struct CurlTransport::Impl {
    CURL* easy = nullptr;
    curl_slist* headers = nullptr;
    ~Impl() {
        if (easy != nullptr) curl_easy_cleanup(easy);
        if (headers != nullptr) curl_slist_free_all(headers);
    }
};

CurlTransport::CurlTransport(std::string url, HttpOptions options)
    : url_(std::move(url)), options_(options), impl_(std::make_unique<Impl>()) {
    global_init_once();
    impl_->easy = curl_easy_init();
    impl_->headers = curl_slist_append(impl_->headers, "Content-Type: application/json");
    impl_->headers = curl_slist_append(impl_->headers, "Accept: application/json");
    // An empty Expect header stops curl from waiting for "100 Continue" on large bodies.
    impl_->headers = curl_slist_append(impl_->headers, "Expect:");
}

CurlTransport::~CurlTransport() = default;
CurlTransport::CurlTransport(CurlTransport&&) noexcept = default;

std::unique_ptr<RpcTransport> CurlTransport::clone() const {
    return std::make_unique<CurlTransport>(url_, options_);
}
CurlTransport& CurlTransport::operator=(CurlTransport&&) noexcept = default;

RpcResult<std::string> CurlTransport::post(std::string_view body) {
    CURL* easy = impl_ ? impl_->easy : nullptr;
    if (easy == nullptr) return rpc_fail(RpcErrorKind::transport, "curl_easy_init failed");
    Sink sink;
    sink.cap = options_.max_response_bytes;
    char errbuf[CURL_ERROR_SIZE] = {};

    // Options are re-applied per request: curl_easy_reset is not used, so the connection cache
    // of the handle (keep-alive) survives between calls.
    curl_easy_setopt(easy, CURLOPT_URL, url_.c_str());
    curl_easy_setopt(easy, CURLOPT_POST, 1L);
    // The size is set explicitly below, so the body need not be NUL-terminated.
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS,
                     body.data());  // NOLINT(bugprone-suspicious-stringview-data-usage)
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, impl_->headers);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &on_body);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &on_header);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, &sink);
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM: safe in threaded programs
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(options_.connect_timeout.count()));
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.total_timeout.count()));
    curl_easy_setopt(easy, CURLOPT_MAXFILESIZE_LARGE,
                     static_cast<curl_off_t>(options_.max_response_bytes));
    curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");  // any encoding curl can decode

    const CURLcode rc = curl_easy_perform(easy);
    // The handle keeps pointers to our stack objects; clear them before returning.
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, nullptr);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, nullptr);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, nullptr);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, nullptr);

    if (rc != CURLE_OK) {
        std::string what = errbuf[0] != '\0' ? std::string(errbuf) : curl_easy_strerror(rc);
        if (sink.overflow || rc == CURLE_FILESIZE_EXCEEDED) {
            return rpc_fail(
                RpcErrorKind::too_large,
                "response larger than " + std::to_string(options_.max_response_bytes) + " bytes");
        }
        if (rc == CURLE_OPERATION_TIMEDOUT) return rpc_fail(RpcErrorKind::timeout, what);
        return rpc_fail(RpcErrorKind::transport, what);
    }
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    if (status < 200 || status > 299) {
        auto err = rpc_fail(RpcErrorKind::http_status, snippet(sink.body));
        err.error().http_status = static_cast<int>(status);
        err.error().retry_after = sink.retry_after;
        return err;
    }
    return std::move(sink.body);
}

}  // namespace credence::chain
