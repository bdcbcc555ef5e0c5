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
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

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

struct KeyFree {
    void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct CertFree {
    void operator()(X509* c) const { X509_free(c); }
};
struct BioFree {
    void operator()(BIO* b) const { BIO_free(b); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, KeyFree>;
using CertPtr = std::unique_ptr<X509, CertFree>;
using BioPtr = std::unique_ptr<BIO, BioFree>;

std::string openssl_error(std::string_view what) {
    const unsigned long code = ERR_get_error();
    if (code == 0) return std::string(what);
    std::array<char, 256> text{};
    ERR_error_string_n(code, text.data(), text.size());
    return fmt::format("{}: {}", what, text.data());
}

std::string key_to_pem(EVP_PKEY* key) {
    BioPtr bio(BIO_new(BIO_s_mem()));
    PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio.get(), &data);
    return {data, static_cast<size_t>(n)};
}

std::string cert_to_pem(X509* cert) {
    BioPtr bio(BIO_new(BIO_s_mem()));
    PEM_write_bio_X509(bio.get(), cert);
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio.get(), &data);
    return {data, static_cast<size_t>(n)};
}

KeyPtr key_from_pem(const std::string& pem) {
    BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    return KeyPtr(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
}

CertPtr cert_from_pem(const std::string& pem) {
    BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    return CertPtr(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
}

bool add_ext(X509* cert, X509* issuer, int nid, const std::string& value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
    if (ext == nullptr) return false;
    const bool ok = X509_add_ext(cert, ext, -1) == 1;
    X509_EXTENSION_free(ext);
    return ok;
}

/// A certificate for `key` named `cn`, signed by `issuer` (nullptr: self-signed CA).
core::Result<CertPtr, DemoHttpsError> issue(EVP_PKEY* key, const std::string& cn, X509* issuer,
                                            EVP_PKEY* issuer_key, const std::string& san,
                                            long days) {
    CertPtr cert(X509_new());
    if (!cert) return core::fail(DemoHttpsError::certificate, openssl_error("X509_new"));
    X509_set_version(cert.get(), 2);
    // A random 64-bit serial: a new leaf per start must not repeat the previous one's serial.
    std::array<unsigned char, 8> serial{};
    RAND_bytes(serial.data(), static_cast<int>(serial.size()));
    serial[0] &= 0x7f;
    BIGNUM* bn = BN_bin2bn(serial.data(), static_cast<int>(serial.size()), nullptr);
    BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
    BN_free(bn);
    X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
    X509_gmtime_adj(X509_getm_notAfter(cert.get()), days * 24 * 3600);
    X509_set_pubkey(cert.get(), key);
    X509_NAME* name = X509_get_subject_name(cert.get());
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
    X509_set_issuer_name(cert.get(), issuer != nullptr ? X509_get_subject_name(issuer) : name);
    X509* signer = issuer != nullptr ? issuer : cert.get();
    bool ok = true;
    if (issuer == nullptr) {
        ok = add_ext(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE") &&
             add_ext(cert.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign") &&
             add_ext(cert.get(), signer, NID_subject_key_identifier, "hash");
    } else {
        ok = add_ext(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE") &&
             add_ext(cert.get(), signer, NID_ext_key_usage, "serverAuth") &&
             add_ext(cert.get(), signer, NID_subject_alt_name, san) &&
             add_ext(cert.get(), signer, NID_authority_key_identifier, "keyid");
    }
    if (!ok) return core::fail(DemoHttpsError::certificate, openssl_error("X509 extension"));
    if (X509_sign(cert.get(), issuer_key != nullptr ? issuer_key : key, EVP_sha256()) <= 0)
        return core::fail(DemoHttpsError::certificate, openssl_error("X509_sign"));
    return cert;
}

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

    KeyPtr ca_key;
    CertPtr ca_cert;
    const auto cert_text = read_text(ca_cert_path);
    const auto key_text = read_text(ca_key_path);
    if (cert_text && key_text) {
        ca_key = key_from_pem(*key_text);
        ca_cert = cert_from_pem(*cert_text);
        if (!ca_key || !ca_cert)
            return core::fail(DemoHttpsError::ca,
                              fmt::format("{} or {} does not parse (remove both to make a new CA)",
                                          ca_cert_path.string(), ca_key_path.string()));
    } else {
        ca_key.reset(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
        if (!ca_key) return core::fail(DemoHttpsError::certificate, openssl_error("CA keygen"));
        auto made = issue(ca_key.get(), "Credence demo CA", nullptr, nullptr, "", 3650);
        if (!made) return std::unexpected(made.error());
        ca_cert = std::move(*made);
        // The key first, owner-only: it signs certificates that the demo's verifiers trust.
        if (!write_text(ca_key_path, key_to_pem(ca_key.get())))
            return core::fail(DemoHttpsError::ca, "cannot write " + ca_key_path.string());
        std::filesystem::permissions(
            ca_key_path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write,
            ec);
        if (!write_text(ca_cert_path, cert_to_pem(ca_cert.get())))
            return core::fail(DemoHttpsError::ca, "cannot write " + ca_cert_path.string());
    }

    KeyPtr leaf_key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
    if (!leaf_key) return core::fail(DemoHttpsError::certificate, openssl_error("leaf keygen"));
    std::string san = "DNS:localhost,IP:127.0.0.1";
    for (const auto& h : hostnames) san += ",DNS:" + h;
    auto leaf = issue(leaf_key.get(), hostnames.empty() ? "localhost" : hostnames.front(),
                      ca_cert.get(), ca_key.get(), san, 30);
    if (!leaf) return std::unexpected(leaf.error());
    return DemoCertificates{ca_cert_path, cert_to_pem(leaf->get()), key_to_pem(leaf_key.get())};
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

}  // namespace credence::agent
