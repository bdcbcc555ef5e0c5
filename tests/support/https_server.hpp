// A real HTTPS server on 127.0.0.1 for the verifier's tests (docs/architecture.md §verify/), with a
// throwaway CA made at test time that only the tests trust.
//
// One server answers for many hostnames: its certificate carries every name given (plus
// "localhost" and IP 127.0.0.1) and routes are keyed by the Host header, so a test can serve
// https://agent-a.test/.well-known/... and https://tools.test/... from one port. The fetcher
// reaches it with FetcherConfig::connect_to = connect_to() and ca_file = ca_file(), and allow_hosts
// {"127.0.0.1"} lifts its SSRF guard for loopback.
//
// Besides good documents it serves adversarial ones: redirects, a slow drip, an oversized body, a
// Content-Length that lies. Thread-safety: routes may be added while serving (mutex); handlers
// run on the server's threads. The destructor stops the server and joins its threads.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace httplib {
struct Request;
struct Response;
}  // namespace httplib

namespace credence::testing {

class HttpsServer {
public:
    /// Serves HTTPS with a certificate for `hostnames` signed by the per-process test CA.
    explicit HttpsServer(std::vector<std::string> hostnames);
    ~HttpsServer();
    HttpsServer(const HttpsServer&) = delete;
    HttpsServer& operator=(const HttpsServer&) = delete;

    [[nodiscard]] int port() const;
    /// PEM file of the test CA (one per process).
    [[nodiscard]] const std::string& ca_file() const;
    /// "h:443:127.0.0.1:<port>" for every hostname, for FetcherConfig::connect_to.
    [[nodiscard]] std::vector<std::string> connect_to() const;

    using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;
    /// `host` "" matches any host. The latest route for (host, path) wins.
    void handle(const std::string& host, const std::string& path, Handler handler);
    void serve(const std::string& host, const std::string& path, std::string body,
               std::string content_type = "application/json", int status = 200);
    void redirect(const std::string& host, const std::string& path, std::string location,
                  int status = 302);
    /// Sends `body` one byte per `interval`.
    void slow_drip(const std::string& host, const std::string& path, std::string body,
                   std::chrono::milliseconds interval);
    /// Declares Content-Length `declared` but sends `body` (shorter) and closes.
    void lying_length(const std::string& host, const std::string& path, std::string body,
                      size_t declared);
    /// Requests seen for (host, path); `host` "" counts requests for `path` on every host.
    [[nodiscard]] size_t hits(const std::string& host, const std::string& path) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace credence::testing
