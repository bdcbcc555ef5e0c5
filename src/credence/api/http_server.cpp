// HttpServer over cpp-httplib: one catch-all handler turns httplib's request into an HttpRequest,
// applies the per-IP rate limit, and dispatches to MCP, the REST API or the static files.
#include <credence/api/http_server.hpp>

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace credence::api {

namespace {

using Clock = std::chrono::steady_clock;

std::string json_error(std::string_view message, std::string_view code) {
    nlohmann::json body{{"error", message}, {"code", code}};
    return body.dump();
}

/// One token bucket per client IP (docs/api.md "a per-IP rate limit"). Buckets idle long enough
/// to be full again are dropped when the table grows, so the map stays bounded by active IPs.
class RateLimiter {
public:
    RateLimiter(double per_second, double burst)
        : rate_(per_second), burst_(std::max(burst, 1.0)) {}

    /// 0 when the request may proceed, else the seconds to wait before one token is available.
    double take(const std::string& ip) {
        if (rate_ <= 0) return 0;
        const auto now = Clock::now();
        const std::lock_guard lock(mutex_);
        if (buckets_.size() > kMaxBuckets) prune(now);
        auto [it, inserted] = buckets_.try_emplace(ip, Bucket{burst_, now});
        Bucket& bucket = it->second;
        if (!inserted) {
            const double elapsed = std::chrono::duration<double>(now - bucket.last).count();
            bucket.tokens = std::min(burst_, bucket.tokens + elapsed * rate_);
            bucket.last = now;
        }
        if (bucket.tokens >= 1) {
            bucket.tokens -= 1;
            return 0;
        }
        return (1 - bucket.tokens) / rate_;
    }

private:
    struct Bucket {
        double tokens = 0;
        Clock::time_point last;
    };
    static constexpr size_t kMaxBuckets = 10000;

    void prune(Clock::time_point now) {
        const double full_after = burst_ / rate_;
        std::erase_if(buckets_, [&](const auto& entry) {
            return std::chrono::duration<double>(now - entry.second.last).count() > full_after;
        });
    }

    double rate_;
    double burst_;
    std::mutex mutex_;
    std::unordered_map<std::string, Bucket> buckets_;
};

std::string_view content_type_for(const std::filesystem::path& path) {
    const std::string ext = path.extension().string();
    if (ext == ".html") return "text/html; charset=utf-8";
    if (ext == ".js" || ext == ".mjs") return "text/javascript; charset=utf-8";
    if (ext == ".css") return "text/css; charset=utf-8";
    if (ext == ".json" || ext == ".map") return "application/json";
    if (ext == ".svg") return "image/svg+xml";
    if (ext == ".png") return "image/png";
    if (ext == ".ico") return "image/x-icon";
    if (ext == ".woff2") return "font/woff2";
    if (ext == ".txt") return "text/plain; charset=utf-8";
    return "application/octet-stream";
}

bool is_api_path(std::string_view path) {
    return path == "/healthz" || path == "/metrics" || path == "/openapi.json" || path == "/api" ||
           path.starts_with("/api/");
}

std::optional<std::string> read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream out;
    out << in.rdbuf();
    if (!in && !in.eof()) return std::nullopt;
    return std::move(out).str();
}

}  // namespace

struct HttpServer::Impl {
    RestApi& rest;
    McpEndpoint& mcp;
    HttpServerOptions options;
    RateLimiter limiter;
    std::filesystem::path static_root;
    httplib::Server server;
    std::thread thread;
    int port = 0;
    bool running = false;

    Impl(RestApi& r, McpEndpoint& m, HttpServerOptions o)
        : rest(r),
          mcp(m),
          options(std::move(o)),
          limiter(options.rate_limit_per_second, options.rate_limit_burst) {
        if (!options.static_dir.empty()) {
            std::error_code ec;
            static_root = std::filesystem::weakly_canonical(options.static_dir, ec);
            if (ec) static_root.clear();
        }
    }

    HttpResponse serve_static(const HttpRequest& request) const {
        if (static_root.empty() || (request.method != "GET" && request.method != "HEAD")) {
            return {404, "application/json", json_error("no such route", "not_found"), {}};
        }
        // The path is decoded; resolve it under the root and refuse anything that escapes it.
        std::string relative = request.path;
        while (!relative.empty() && relative.front() == '/') relative.erase(0, 1);
        if (relative.find('\0') != std::string::npos) {
            return {400, "application/json", json_error("bad path", "bad_request"), {}};
        }
        std::error_code ec;
        std::filesystem::path candidate =
            std::filesystem::weakly_canonical(static_root / relative, ec);
        const auto [root_end, candidate_it] = std::mismatch(static_root.begin(), static_root.end(),
                                                            candidate.begin(), candidate.end());
        const bool inside = !ec && root_end == static_root.end();
        if (!inside) return {404, "application/json", json_error("not found", "not_found"), {}};
        if (std::filesystem::is_directory(candidate, ec)) candidate /= "index.html";
        if (!std::filesystem::is_regular_file(candidate, ec)) {
            // SPA fallback: an explorer route (no file extension) loads index.html.
            if (std::filesystem::path(relative).has_extension()) {
                return {404, "application/json", json_error("not found", "not_found"), {}};
            }
            candidate = static_root / "index.html";
        }
        auto body = read_file(candidate);
        if (!body) return {404, "application/json", json_error("not found", "not_found"), {}};
        HttpResponse response{200, std::string(content_type_for(candidate)), std::move(*body), {}};
        return response;
    }

    HttpResponse dispatch(const HttpRequest& request) {
        if (request.path == "/mcp") return mcp.handle(request);
        if (is_api_path(request.path)) return rest.handle(request);
        return serve_static(request);
    }

    void on_request(const httplib::Request& req, httplib::Response& res) {
        HttpResponse response;
        try {
            HttpRequest request;
            request.method = req.method;
            request.path = req.path;
            request.remote_ip = req.remote_addr;
            for (const auto& [key, value] : req.params) request.query.emplace_back(key, value);
            // httplib's params is a multimap ordered by name; request order within a name holds.
            for (const auto& [key, value] : req.headers) {
                std::string lower = key;
                std::ranges::transform(lower, lower.begin(), [](unsigned char c) {
                    return static_cast<char>(std::tolower(c));
                });
                request.headers.emplace_back(std::move(lower), value);
            }
            request.body = req.body;
            const double wait = limiter.take(request.remote_ip);
            if (wait > 0) {
                response = {
                    429,
                    "application/json",
                    json_error("rate limit exceeded", "rate_limited"),
                    {{"Retry-After", std::to_string(static_cast<int64_t>(std::ceil(wait)))}}};
            } else {
                response = dispatch(request);
            }
        } catch (const std::exception&) {
            response = {503, "application/json", json_error("internal failure", "unavailable"), {}};
        }
        res.status = response.status;
        for (const auto& [key, value] : response.headers) res.set_header(key, value);
        res.set_content(response.body, response.content_type);
    }
};

HttpServer::HttpServer(RestApi& rest, McpEndpoint& mcp, HttpServerOptions options)
    : impl_(std::make_unique<Impl>(rest, mcp, std::move(options))) {}

HttpServer::~HttpServer() { stop(); }

std::expected<void, std::string> HttpServer::start() {
    Impl& s = *impl_;
    if (s.running) return {};
    const unsigned threads = std::max(1U, s.options.threads);
    s.server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    s.server.set_payload_max_length(s.options.max_body_bytes);
    // Header and body go out in separate writes: without TCP_NODELAY a client's delayed ACK holds
    // every response ~40 ms (Nagle).
    s.server.set_tcp_nodelay(true);
    s.server.set_read_timeout(5, 0);
    s.server.set_write_timeout(5, 0);
    s.server.set_keep_alive_timeout(5);
    s.server.set_keep_alive_max_count(std::max<size_t>(1, s.options.keep_alive_requests));
    const size_t max_body = s.options.max_body_bytes;
    // Refuse an announced oversized body before reading it (413 JSON, never a 5xx).
    s.server.set_pre_routing_handler(
        [max_body](const httplib::Request& req, httplib::Response& res) {
            const std::string length = req.get_header_value("Content-Length");
            if (!length.empty()) {
                uint64_t value = 0;
                bool numeric = length.size() <= 19;
                for (char c : length) numeric = numeric && c >= '0' && c <= '9';
                if (numeric) value = std::stoull(length);
                if (!numeric || value > max_body) {
                    res.status = 413;
                    res.set_content(json_error("request body too large", "payload_too_large"),
                                    "application/json");
                    return httplib::Server::HandlerResponse::Handled;
                }
            }
            return httplib::Server::HandlerResponse::Unhandled;
        });
    // httplib's own errors (a body past the limit, a bad request line) get a JSON body too.
    s.server.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request&,
                                                                       httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        const std::string_view code = res.status == 413   ? "payload_too_large"
                                      : res.status == 404 ? "not_found"
                                      : res.status == 405 ? "method_not_allowed"
                                      : res.status == 429 ? "rate_limited"
                                                          : "bad_request";
        res.set_content(json_error(fmt::format("HTTP {}", res.status), code), "application/json");
        return httplib::Server::HandlerResponse::Handled;
    }));
    s.server.set_exception_handler(
        [](const httplib::Request&, httplib::Response& res, const std::exception_ptr& /*unused*/) {
            res.status = 503;
            res.set_content(json_error("internal failure", "unavailable"), "application/json");
        });
    auto handler = [&s](const httplib::Request& req, httplib::Response& res) {
        s.on_request(req, res);
    };
    s.server.Get(".*", handler);
    s.server.Post(".*", handler);
    s.server.Put(".*", handler);
    s.server.Patch(".*", handler);
    s.server.Delete(".*", handler);
    s.server.Options(".*", handler);

    if (s.options.port == 0) {
        s.port = s.server.bind_to_any_port(s.options.bind_address);
        if (s.port <= 0) {
            return std::unexpected(fmt::format("cannot bind {}", s.options.bind_address));
        }
    } else {
        if (!s.server.bind_to_port(s.options.bind_address, s.options.port)) {
            return std::unexpected(
                fmt::format("cannot bind {}:{}", s.options.bind_address, s.options.port));
        }
        s.port = s.options.port;
    }
    s.running = true;
    s.thread = std::thread([&s] { s.server.listen_after_bind(); });
    return {};
}

void HttpServer::stop() {
    Impl& s = *impl_;
    if (!s.running) return;
    s.server.stop();
    if (s.thread.joinable()) s.thread.join();
    s.running = false;
}

uint16_t HttpServer::port() const noexcept { return static_cast<uint16_t>(impl_->port); }

}  // namespace credence::api
