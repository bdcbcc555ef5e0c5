#include <credence/agent/demo_https.hpp>

#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>

#include <fmt/core.h>
#include <httplib.h>

#include <credence/demo_tls/certificate_issuer.hpp>
#include <credence/demo_tls/openssl_handles.hpp>

namespace credence::agent {

std::string_view to_string(DemoHttpsError e) noexcept {
    switch (e) {
        case DemoHttpsError::ca:
            return "ca";
        case DemoHttpsError::certificate:
            return "certificate";
        case DemoHttpsError::listen:
            return "listen";
    }
    return "unknown";
}

namespace {

using demo_tls::cert_from_pem;
using demo_tls::CertPtr;
using demo_tls::key_from_pem;
using demo_tls::KeyPtr;

std::optional<std::string> read_text(const std::filesystem::path& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return std::nullopt;
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

bool write_text(const std::filesystem::path& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f) return false;
    f.write(text.data(), static_cast<std::streamsize>(text.size()));
    return static_cast<bool>(f.flush());
}

}  // namespace

core::Result<DemoCertificates, DemoHttpsError> make_demo_certificates(
    const std::filesystem::path& state_dir, const std::vector<std::string>& hostnames) {
    std::error_code ec;
    std::filesystem::create_directories(state_dir, ec);
    if (ec)
        return core::fail(DemoHttpsError::ca,
                          fmt::format("cannot create {}: {}", state_dir.string(), ec.message()));
    const auto ca_cert_path = state_dir / "demo-ca.pem";
    const auto ca_key_path = state_dir / "demo-ca.key";

    demo_tls::PemCertificate ca;
    const auto cert_text = read_text(ca_cert_path);
    const auto key_text = read_text(ca_key_path);
    if (cert_text && key_text) {
        ca = demo_tls::PemCertificate{*cert_text, *key_text};
        if (!demo_tls::pem_certificate_parses(ca))
            return core::fail(DemoHttpsError::ca,
                              fmt::format("{} or {} does not parse (remove both to make a new CA)",
                                          ca_cert_path.string(), ca_key_path.string()));
    } else {
        auto made = demo_tls::make_ca("Credence demo CA", 3650);
        if (!made) return core::fail(DemoHttpsError::certificate, made.error().detail);
        ca = std::move(*made);
        // The key first, owner-only: it signs certificates that the demo's verifiers trust.
        if (!write_text(ca_key_path, ca.key_pem))
            return core::fail(DemoHttpsError::ca, "cannot write " + ca_key_path.string());
        std::filesystem::permissions(
            ca_key_path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write,
            ec);
        if (!write_text(ca_cert_path, ca.cert_pem))
            return core::fail(DemoHttpsError::ca, "cannot write " + ca_cert_path.string());
    }
    auto leaf = demo_tls::make_server_certificate(ca, hostnames, 30);
    if (!leaf) return core::fail(DemoHttpsError::certificate, leaf.error().detail);
    return DemoCertificates{ca_cert_path, std::move(leaf->cert_pem), std::move(leaf->key_pem)};
}

struct DemoHttpsServer::Impl {
    std::unique_ptr<httplib::SSLServer> server;
    std::thread thread;
    int port = 0;
    mutable std::mutex mutex;
    struct Route {
        int status = 200;
        std::string content_type;
        std::string body;
    };
    std::map<std::pair<std::string, std::string>, Route> routes;  // (host, path)
};

DemoHttpsServer::DemoHttpsServer() : impl_(std::make_unique<Impl>()) {}

DemoHttpsServer::~DemoHttpsServer() {
    if (impl_->server) impl_->server->stop();
    if (impl_->thread.joinable()) impl_->thread.join();
}

core::Result<std::unique_ptr<DemoHttpsServer>, DemoHttpsError> DemoHttpsServer::start(
    const DemoCertificates& certificates, int port) {
    CertPtr cert = cert_from_pem(certificates.leaf_cert_pem);
    KeyPtr key = key_from_pem(certificates.leaf_key_pem);
    if (!cert || !key) return core::fail(DemoHttpsError::certificate, "leaf PEM does not parse");
    std::unique_ptr<DemoHttpsServer> self(new DemoHttpsServer());
    Impl* impl = self->impl_.get();
    // cpp-httplib copies the certificate and key into its SSL_CTX.
    impl->server = std::make_unique<httplib::SSLServer>(cert.get(), key.get());
    if (!impl->server->is_valid())
        return core::fail(DemoHttpsError::certificate, "TLS context setup failed");
    // Verifiers fetch every agent's documents at once (fetch_all): enough threads that no TLS
    // handshake waits behind a kept-alive connection until the client's connect timeout.
    impl->server->new_task_queue = [] { return new httplib::ThreadPool(64); };
    impl->server->set_keep_alive_timeout(1);
    impl->server->Get(".*", [impl](const httplib::Request& req, httplib::Response& res) {
        std::string host = req.get_header_value("Host");
        if (const auto colon = host.rfind(':'); colon != std::string::npos) host.resize(colon);
        const std::lock_guard lock(impl->mutex);
        const auto it = impl->routes.find({host, req.path});
        if (it == impl->routes.end()) {
            res.status = 404;
            res.set_content("not found\n", "text/plain");
            return;
        }
        res.status = it->second.status;
        res.set_content(it->second.body, it->second.content_type);
    });
    if (port == 0) {
        impl->port = impl->server->bind_to_any_port("127.0.0.1");
    } else {
        impl->port = impl->server->bind_to_port("127.0.0.1", port) ? port : -1;
    }
    if (impl->port <= 0)
        return core::fail(DemoHttpsError::listen,
                          fmt::format("cannot listen on 127.0.0.1:{}", port));
    impl->thread = std::thread([impl] { impl->server->listen_after_bind(); });
    // listen_after_bind() accepts on the socket bound above: a connection made before the thread
    // runs waits in the kernel's backlog, so there is nothing to wait for; this only lets
    // is_running() turn true for callers that look.
    for (int i = 0; i < 200 && !impl->server->is_running(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds{5});
    return self;
}

int DemoHttpsServer::port() const noexcept { return impl_->port; }

void DemoHttpsServer::serve(const std::string& host, const std::string& path, std::string body,
                            int status, std::string content_type) {
    const std::lock_guard lock(impl_->mutex);
    impl_->routes[{host, path}] = Impl::Route{status, std::move(content_type), std::move(body)};
}

std::vector<std::string> DemoHttpsServer::connect_to(const std::vector<std::string>& hosts) const {
    std::vector<std::string> out;
    out.reserve(hosts.size());
    for (const auto& h : hosts) out.push_back(fmt::format("{}:443:127.0.0.1:{}", h, impl_->port));
    return out;
}

std::vector<std::string> DemoHttpsServer::allow_hosts(const std::vector<std::string>& hosts) const {
    std::vector<std::string> out;
    out.reserve(hosts.size());
    for (const auto& h : hosts) out.push_back(fmt::format("{}=127.0.0.1:{}", h, impl_->port));
    return out;
}

}  // namespace credence::agent
