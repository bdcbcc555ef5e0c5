// The test HTTPS server (https_server.hpp): a per-process throwaway CA, a leaf certificate per
// server, and cpp-httplib's SSLServer on 127.0.0.1 with a kernel-chosen port.
#include "support/https_server.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <condition_variable>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>

#include <httplib.h>
#include <credence/demo_tls/certificate_issuer.hpp>

#include "support/scratch.hpp"

namespace credence::testing {
namespace {

void check(bool ok, const std::string& what) {
    if (!ok) throw std::runtime_error("https_server: " + what + " failed");
}

// The per-process test CA (demo_tls/certificate_issuer, the code the demo's origin uses too): made
// on first use, its certificate written under scratch_dir().
struct TestCa {
    demo_tls::PemCertificate pem;
    std::string pem_path;
};

const TestCa& test_ca() {
    static const TestCa ca = [] {
        auto made = demo_tls::make_ca("Credence Test CA", 2);
        check(made.has_value(), made ? "" : "test CA: " + made.error().detail);
        TestCa c{std::move(*made), {}};
        c.pem_path = write_scratch_file("https_server/test-ca.pem", c.pem.cert_pem).string();
        return c;
    }();
    return ca;
}

std::string lowercase(std::string s) {
    for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
}

// The Host header without its port ("a.test:443" -> "a.test", "[::1]:8443" -> "::1").
std::string host_of(const httplib::Request& req) {
    std::string host = req.get_header_value("Host");
    if (!host.empty() && host.front() == '[') {
        const auto close = host.find(']');
        return lowercase(
            host.substr(1, close == std::string::npos ? std::string::npos : close - 1));
    }
    return lowercase(host.substr(0, host.find(':')));
}

}  // namespace

struct HttpsServer::Impl {
    std::vector<std::string> hostnames;
    std::unique_ptr<httplib::SSLServer> server;
    std::thread thread;
    int port = 0;
    std::atomic<bool> stopping{false};
    mutable std::mutex mutex;
    std::map<std::pair<std::string, std::string>, Handler> routes;
    std::map<std::pair<std::string, std::string>, size_t> hits;

    // Sleeps up to `d`, waking early when the server stops. False when stopping.
    bool pause(std::chrono::milliseconds d) const {
        const auto end = std::chrono::steady_clock::now() + d;
        while (!stopping.load()) {
            const auto now = std::chrono::steady_clock::now();
            if (now >= end) return true;
            std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
                end - now, std::chrono::milliseconds(5)));
        }
        return false;
    }

    void dispatch(const httplib::Request& req, httplib::Response& res) {
        const std::string host = host_of(req);
        Handler handler;
        {
            std::lock_guard lock(mutex);
            ++hits[{host, req.path}];
            if (auto it = routes.find({host, req.path}); it != routes.end()) {
                handler = it->second;
            } else if (auto any = routes.find({"", req.path}); any != routes.end()) {
                handler = any->second;
            }
        }
        if (!handler) {
            res.status = 404;
            res.set_content("not found", "text/plain");
            return;
        }
        handler(req, res);
    }
};

HttpsServer::HttpsServer(std::vector<std::string> hostnames) : impl_(std::make_unique<Impl>()) {
    const TestCa& ca = test_ca();
    for (auto& h : hostnames) h = lowercase(h);
    impl_->hostnames = hostnames;
    auto leaf = demo_tls::make_server_certificate(ca.pem, hostnames, 2);
    check(leaf.has_value(), leaf ? "" : "leaf certificate: " + leaf.error().detail);
    // cpp-httplib loads the leaf from files; a name per server.
    static std::atomic<int> servers{0};
    const std::string stem = "https_server/leaf-" + std::to_string(++servers);
    const auto cert_path = write_scratch_file(stem + ".pem", leaf->cert_pem);
    const auto key_path = write_scratch_file(stem + ".key", leaf->key_pem);
    impl_->server = std::make_unique<httplib::SSLServer>(cert_path.c_str(), key_path.c_str());
    check(impl_->server->is_valid(), "SSLServer setup");
    auto& server = *impl_->server;
    // Enough workers for a fetch_all of many documents at once (the fetcher opens up to 32
    // connections); idle keep-alive connections give their worker back after a second.
    server.new_task_queue = [] { return new httplib::ThreadPool(48); };
    server.set_keep_alive_timeout(1);
    server.set_read_timeout(std::chrono::seconds(2));
    server.set_write_timeout(std::chrono::seconds(2));
    Impl* impl = impl_.get();
    server.Get(".*", [impl](const httplib::Request& req, httplib::Response& res) {
        impl->dispatch(req, res);
    });
    impl_->port = server.bind_to_any_port("127.0.0.1");
    check(impl_->port > 0, "bind to 127.0.0.1");
    impl_->thread = std::thread([impl] { impl->server->listen_after_bind(); });
    for (int i = 0; i < 2000 && !server.is_running(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

HttpsServer::~HttpsServer() {
    impl_->stopping = true;  // slow drips notice and give up
    impl_->server->stop();
    if (impl_->thread.joinable()) impl_->thread.join();
}

int HttpsServer::port() const { return impl_->port; }

const std::string& HttpsServer::ca_file() const { return test_ca().pem_path; }

std::vector<std::string> HttpsServer::connect_to() const {
    std::vector<std::string> out;
    for (const auto& h : impl_->hostnames)
        out.push_back(h + ":443:127.0.0.1:" + std::to_string(impl_->port));
    return out;
}

void HttpsServer::handle(const std::string& host, const std::string& path, Handler handler) {
    std::lock_guard lock(impl_->mutex);
    impl_->routes[{lowercase(host), path}] = std::move(handler);
}

void HttpsServer::serve(const std::string& host, const std::string& path, std::string body,
                        std::string content_type, int status) {
    handle(host, path,
           [body = std::move(body), content_type = std::move(content_type), status](
               const httplib::Request&, httplib::Response& res) {
               res.status = status;
               res.set_content(body, content_type.c_str());
           });
}

void HttpsServer::redirect(const std::string& host, const std::string& path, std::string location,
                           int status) {
    handle(
        host, path,
        [location = std::move(location), status](const httplib::Request&, httplib::Response& res) {
            res.status = status;
            res.set_header("Location", location);
            res.set_content("redirect", "text/plain");
        });
}

void HttpsServer::slow_drip(const std::string& host, const std::string& path, std::string body,
                            std::chrono::milliseconds interval) {
    const Impl* impl = impl_.get();
    handle(
        host, path,
        [impl, body = std::move(body), interval](const httplib::Request&, httplib::Response& res) {
            res.set_content_provider(
                body.size(), "application/json",
                [impl, body, interval](size_t offset, size_t, httplib::DataSink& sink) {
                    if (!impl->pause(interval)) return false;
                    return sink.write(body.data() + offset, 1);
                });
        });
}

void HttpsServer::lying_length(const std::string& host, const std::string& path, std::string body,
                               size_t declared) {
    handle(host, path,
           [body = std::move(body), declared](const httplib::Request&, httplib::Response& res) {
               // Declares `declared` bytes; once `body` is sent the provider fails, and httplib
               // closes the connection with the response short.
               res.set_content_provider(declared, "application/json",
                                        [body](size_t offset, size_t, httplib::DataSink& sink) {
                                            if (offset >= body.size()) return false;
                                            return sink.write(body.data() + offset,
                                                              body.size() - offset);
                                        });
           });
}

size_t HttpsServer::hits(const std::string& host, const std::string& path) const {
    std::lock_guard lock(impl_->mutex);
    if (host.empty()) {  // every host
        size_t total = 0;
        for (const auto& [key, count] : impl_->hits)
            if (key.second == path) total += count;
        return total;
    }
    const auto it = impl_->hits.find({lowercase(host), path});
    return it == impl_->hits.end() ? 0 : it->second;
}

}  // namespace credence::testing
