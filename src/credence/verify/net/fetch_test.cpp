// The fetcher against real HTTPS servers on 127.0.0.1 (tests/support/https_server.hpp): every
// FetchError reason reached for real, and nothing waits past its timeout (docs/architecture.md
// §verify/).
#include <credence/verify/net/fetch.hpp>

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <chrono>
#include <string>
#include <thread>

#include <httplib.h>

#include "support/https_server.hpp"

namespace {

using credence::testing::HttpsServer;
using credence::verify::FetcherConfig;
using credence::verify::FetchError;
using credence::verify::FetchPolicy;
using Clock = std::chrono::steady_clock;

std::string body_text(const credence::core::Bytes& b) { return {b.begin(), b.end()}; }

FetcherConfig trusting(const HttpsServer& server) {
    FetcherConfig c;
    c.ca_file = server.ca_file();
    c.connect_to = server.connect_to();
    c.allow_hosts = {"127.0.0.1"};
    return c;
}

FetchPolicy short_policy() {
    FetchPolicy p = credence::verify::registration_policy();
    p.connect_timeout = std::chrono::milliseconds(2'000);
    p.total_timeout = std::chrono::milliseconds(3'000);
    return p;
}

FetchError error_of(const credence::core::Result<credence::verify::FetchResponse, FetchError>& r) {
    EXPECT_FALSE(r.has_value());
    return r ? FetchError::transport : r.error().code;
}

// A TCP port on 127.0.0.1 with nothing listening (bound once, then closed).
int closed_port() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    socklen_t len = sizeof addr;
    getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    close(fd);
    return ntohs(addr.sin_port);
}

}  // namespace

TEST(verify_fetch, https_document_is_fetched_with_its_content_type) {
    HttpsServer server({"agent-a.test"});
    server.serve("agent-a.test", "/agent.json", R"({"name":"a"})");
    auto fetcher = credence::verify::make_curl_fetcher(trusting(server));
    const auto r = fetcher->fetch("https://agent-a.test/agent.json", short_policy());
    ASSERT_TRUE(r.has_value()) << r.error().detail;
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(body_text(r->body), R"({"name":"a"})");
    EXPECT_EQ(r->content_type, "application/json");
    EXPECT_EQ(r->final_url, "https://agent-a.test/agent.json");
    EXPECT_EQ(server.hits("agent-a.test", "/agent.json"), 1U);
}

TEST(verify_fetch, routes_by_host_header) {
    HttpsServer server({"agent-a.test", "agent-b.test"});
    server.serve("agent-a.test", "/x", "a");
    server.serve("agent-b.test", "/x", "b");
    auto fetcher = credence::verify::make_curl_fetcher(trusting(server));
    const auto a = fetcher->fetch("https://agent-a.test/x", short_policy());
    const auto b = fetcher->fetch("https://AGENT-B.test/x", short_policy());
    ASSERT_TRUE(a && b);
    EXPECT_EQ(body_text(a->body), "a");
    EXPECT_EQ(body_text(b->body), "b");
}

TEST(verify_fetch, plain_http_is_refused_unless_allowed) {
    httplib::Server plain;
    plain.Get("/doc", [](const httplib::Request&, httplib::Response& res) {
        res.set_content("plain", "text/plain");
    });
    const int port = plain.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port, 0);
    std::thread t([&] { plain.listen_after_bind(); });
    const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/doc";
    FetcherConfig config;
    config.allow_hosts = {"127.0.0.1"};
    const auto refused = credence::verify::make_curl_fetcher(config)->fetch(url, short_policy());
    EXPECT_EQ(error_of(refused), FetchError::scheme_not_allowed);
    config.allow_http = true;
    const auto ok = credence::verify::make_curl_fetcher(config)->fetch(url, short_policy());
    plain.stop();
    t.join();
    ASSERT_TRUE(ok.has_value()) << ok.error().detail;
    EXPECT_EQ(body_text(ok->body), "plain");
}

TEST(verify_fetch, loopback_is_blocked_without_allow_hosts) {
    HttpsServer server({"agent-a.test"});
    server.serve("agent-a.test", "/agent.json", "{}");
    FetcherConfig config = trusting(server);
    config.allow_hosts.clear();
    auto fetcher = credence::verify::make_curl_fetcher(config);
    const auto by_name = fetcher->fetch("https://agent-a.test/agent.json", short_policy());
    EXPECT_EQ(error_of(by_name), FetchError::blocked_address);
    const auto by_ip = fetcher->fetch(
        "https://127.0.0.1:" + std::to_string(server.port()) + "/agent.json", short_policy());
    EXPECT_EQ(error_of(by_ip), FetchError::blocked_address);
    EXPECT_EQ(server.hits("", "/agent.json"), 0U);  // refused before connecting
}

TEST(verify_fetch, metadata_address_is_blocked) {
    auto fetcher = credence::verify::make_curl_fetcher({});
    const auto start = Clock::now();
    const auto r = fetcher->fetch("https://169.254.169.254/latest/meta-data/", short_policy());
    EXPECT_EQ(error_of(r), FetchError::blocked_address);
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(1));
}

TEST(verify_fetch, allow_hosts_takes_a_cidr_range) {
    HttpsServer server({"agent-a.test"});
    server.serve("", "/doc", "ok");
    FetcherConfig config = trusting(server);
    config.allow_hosts = {"127.0.0.0/8"};
    const auto r = credence::verify::make_curl_fetcher(config)->fetch(
        "https://127.0.0.1:" + std::to_string(server.port()) + "/doc", short_policy());
    ASSERT_TRUE(r.has_value()) << r.error().detail;
    EXPECT_EQ(body_text(r->body), "ok");
}

TEST(verify_fetch, redirect_hop_into_a_blocked_range_is_refused) {
    // agent-a.test is allowed by name; its redirect goes to evil.test, which resolves (through
    // CONNECT_TO) to the same loopback address but is not allowed: the guard checks each hop.
    HttpsServer server({"agent-a.test", "evil.test"});
    server.redirect("agent-a.test", "/start", "https://evil.test/internal");
    server.serve("evil.test", "/internal", "secret");
    FetcherConfig config = trusting(server);
    config.allow_hosts = {"agent-a.test"};
    const auto r = credence::verify::make_curl_fetcher(config)->fetch("https://agent-a.test/start",
                                                                      short_policy());
    EXPECT_EQ(error_of(r), FetchError::blocked_address);
    EXPECT_NE(r.error().detail.find("evil.test"), std::string::npos) << r.error().detail;
    EXPECT_EQ(server.hits("agent-a.test", "/start"), 1U);
    EXPECT_EQ(server.hits("evil.test", "/internal"), 0U);
}

TEST(verify_fetch, redirects_are_followed_within_the_budget) {
    HttpsServer server({"agent-a.test", "agent-b.test"});
    server.redirect("agent-a.test", "/1", "/2", 301);
    server.redirect("agent-a.test", "/2", "https://agent-b.test/3", 307);
    server.serve("agent-b.test", "/3", "end");
    const auto r = credence::verify::make_curl_fetcher(trusting(server))
                       ->fetch("https://agent-a.test/1", short_policy());
    ASSERT_TRUE(r.has_value()) << r.error().detail;
    EXPECT_EQ(body_text(r->body), "end");
    EXPECT_EQ(r->final_url, "https://agent-b.test/3");
}

TEST(verify_fetch, manifest_policy_refuses_any_redirect) {
    // ERC-8257 §7 check 1: the metadataURI is fetched without following redirects.
    HttpsServer server({"tools.test"});
    server.redirect("tools.test", "/.well-known/ai-tool/x.json", "/elsewhere.json");
    server.serve("tools.test", "/elsewhere.json", "{}");
    const auto r = credence::verify::make_curl_fetcher(trusting(server))
                       ->fetch("https://tools.test/.well-known/ai-tool/x.json",
                               credence::verify::manifest_policy());
    EXPECT_EQ(error_of(r), FetchError::redirect_refused);
    EXPECT_EQ(server.hits("tools.test", "/elsewhere.json"), 0U);
}

TEST(verify_fetch, too_many_redirects) {
    HttpsServer server({"agent-a.test"});
    for (int i = 0; i < 5; ++i)
        server.redirect("agent-a.test", "/r" + std::to_string(i), "/r" + std::to_string(i + 1));
    FetchPolicy p = short_policy();
    p.max_redirects = 3;
    const auto r =
        credence::verify::make_curl_fetcher(trusting(server))->fetch("https://agent-a.test/r0", p);
    EXPECT_EQ(error_of(r), FetchError::too_many_redirects);
    EXPECT_EQ(server.hits("agent-a.test", "/r3"), 1U);
    EXPECT_EQ(server.hits("agent-a.test", "/r4"), 0U);
}

TEST(verify_fetch, redirect_to_plain_http_is_refused) {
    HttpsServer server({"agent-a.test"});
    server.redirect("agent-a.test", "/start", "http://agent-a.test/doc");
    const auto r = credence::verify::make_curl_fetcher(trusting(server))
                       ->fetch("https://agent-a.test/start", short_policy());
    EXPECT_EQ(error_of(r), FetchError::scheme_not_allowed);
}

TEST(verify_fetch, body_at_the_cap_passes_and_one_byte_more_is_too_large) {
    HttpsServer server({"agent-a.test"});
    FetchPolicy p = short_policy();
    p.max_bytes = 1000;
    server.serve("agent-a.test", "/at", std::string(1000, 'x'));
    server.serve("agent-a.test", "/over", std::string(1001, 'x'));
    auto fetcher = credence::verify::make_curl_fetcher(trusting(server));
    const auto at = fetcher->fetch("https://agent-a.test/at", p);
    ASSERT_TRUE(at.has_value()) << at.error().detail;
    EXPECT_EQ(at->body.size(), 1000U);
    EXPECT_EQ(error_of(fetcher->fetch("https://agent-a.test/over", p)), FetchError::too_large);
}

TEST(verify_fetch, endless_chunked_body_stops_at_the_cap) {
    HttpsServer server({"agent-a.test"});
    server.handle("agent-a.test", "/endless", [](const httplib::Request&, httplib::Response& res) {
        res.set_chunked_content_provider("application/json", [](size_t, httplib::DataSink& sink) {
            const std::string chunk(4096, 'y');
            return sink.write(chunk.data(), chunk.size());  // never done
        });
    });
    FetchPolicy p = short_policy();
    p.max_bytes = 64 * 1024;
    const auto start = Clock::now();
    const auto r = credence::verify::make_curl_fetcher(trusting(server))
                       ->fetch("https://agent-a.test/endless", p);
    EXPECT_EQ(error_of(r), FetchError::too_large);
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(2));
}

TEST(verify_fetch, lying_content_length_is_truncated) {
    HttpsServer server({"agent-a.test"});
    server.lying_length("agent-a.test", "/short", R"({"name":)", 100);
    const auto r = credence::verify::make_curl_fetcher(trusting(server))
                       ->fetch("https://agent-a.test/short", short_policy());
    EXPECT_EQ(error_of(r), FetchError::truncated);
}

TEST(verify_fetch, slow_drip_ends_at_the_total_timeout) {
    HttpsServer server({"agent-a.test"});
    server.slow_drip("agent-a.test", "/drip", std::string(100, 'z'),
                     std::chrono::milliseconds(200));
    FetchPolicy p = short_policy();
    p.total_timeout = std::chrono::milliseconds(1'000);
    const auto start = Clock::now();
    const auto r = credence::verify::make_curl_fetcher(trusting(server))
                       ->fetch("https://agent-a.test/drip", p);
    const auto elapsed = Clock::now() - start;
    EXPECT_EQ(error_of(r), FetchError::timeout);
    EXPECT_GE(elapsed, std::chrono::milliseconds(900));
    EXPECT_LT(elapsed, std::chrono::milliseconds(2'000));
}

TEST(verify_fetch, untrusted_ca_is_a_tls_failure) {
    HttpsServer server({"agent-a.test"});
    server.serve("agent-a.test", "/doc", "{}");
    FetcherConfig config = trusting(server);
    config.ca_file.clear();  // the system CAs do not know the test CA
    const auto r = credence::verify::make_curl_fetcher(config)->fetch("https://agent-a.test/doc",
                                                                      short_policy());
    EXPECT_EQ(error_of(r), FetchError::tls_failure);
    EXPECT_EQ(server.hits("agent-a.test", "/doc"), 0U);
}

TEST(verify_fetch, hostname_not_in_the_certificate_is_a_tls_failure) {
    HttpsServer server({"agent-a.test"});
    server.serve("", "/doc", "{}");
    FetcherConfig config = trusting(server);
    config.connect_to.push_back("other.test:443:127.0.0.1:" + std::to_string(server.port()));
    const auto r = credence::verify::make_curl_fetcher(config)->fetch("https://other.test/doc",
                                                                      short_policy());
    EXPECT_EQ(error_of(r), FetchError::tls_failure);
}

TEST(verify_fetch, unresolvable_name_is_a_dns_failure) {
    const auto r = credence::verify::make_curl_fetcher({})->fetch(
        "https://no-such-host.invalid/agent.json", short_policy());
    EXPECT_EQ(error_of(r), FetchError::dns_failure);
}

TEST(verify_fetch, closed_port_is_connect_failed) {
    FetcherConfig config;
    config.allow_hosts = {"127.0.0.1"};
    const auto r = credence::verify::make_curl_fetcher(config)->fetch(
        "https://127.0.0.1:" + std::to_string(closed_port()) + "/", short_policy());
    EXPECT_EQ(error_of(r), FetchError::connect_failed);
}

TEST(verify_fetch, non_2xx_status_is_http_status) {
    HttpsServer server({"agent-a.test"});
    server.serve("agent-a.test", "/gone", "gone", "text/plain", 410);
    auto fetcher = credence::verify::make_curl_fetcher(trusting(server));
    const auto missing = fetcher->fetch("https://agent-a.test/missing", short_policy());
    EXPECT_EQ(error_of(missing), FetchError::http_status);
    EXPECT_NE(missing.error().detail.find("404"), std::string::npos);
    EXPECT_EQ(error_of(fetcher->fetch("https://agent-a.test/gone", short_policy())),
              FetchError::http_status);
}

TEST(verify_fetch, malformed_urls_are_bad_url) {
    auto fetcher = credence::verify::make_curl_fetcher({});
    for (const std::string url :
         {"https://user:pass@agent-a.test/", "https://agent-a.test/\xc3\xa9", "https://a b.test/",
          "https://2130706433/", "https://0x7f.1/", "https:///path", "https://-bad.test/",
          "https://agent-a.test:99999/", "https://agent-a.test:/x", "agent-a.test/x",
          "https://[::1/", "https://a..test/"}) {
        EXPECT_EQ(error_of(fetcher->fetch(url, short_policy())), FetchError::bad_url) << url;
    }
    for (const std::string url : {"ftp://agent-a.test/", "file:///etc/passwd", "gopher://x/"}) {
        EXPECT_EQ(error_of(fetcher->fetch(url, short_policy())), FetchError::scheme_not_allowed)
            << url;
    }
}

TEST(verify_fetch, data_uri_is_decoded_locally) {
    auto fetcher = credence::verify::make_curl_fetcher({});
    const auto r = fetcher->fetch("data:application/json;base64,eyJhIjoxfQ==", short_policy());
    ASSERT_TRUE(r.has_value()) << r.error().detail;
    EXPECT_EQ(body_text(r->body), R"({"a":1})");
    EXPECT_EQ(r->content_type, "application/json");
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(error_of(fetcher->fetch("data:application/json;base64,eyJhIjoxfQ=", short_policy())),
              FetchError::bad_data_uri);
    FetchPolicy tiny = short_policy();
    tiny.max_bytes = 4;
    EXPECT_EQ(error_of(fetcher->fetch("data:,hello", tiny)), FetchError::too_large);
}

TEST(verify_fetch, fetch_all_of_60_urls_keeps_their_order) {
    HttpsServer server({"agent-a.test", "agent-b.test"});
    std::vector<std::string> urls;
    for (int i = 0; i < 60; ++i) {
        const std::string host = i % 2 == 0 ? "agent-a.test" : "agent-b.test";
        const std::string path = "/agents/" + std::to_string(i) + ".json";
        server.serve(host, path, R"({"i":)" + std::to_string(i) + "}");
        urls.push_back("https://" + host + path);
    }
    urls.push_back("https://agent-a.test/missing");
    urls.push_back("data:,inline");
    // Each document has its own total timeout from its start; a loaded machine (ASan, parallel
    // builds) needs more than the other tests' 3 s for 60 TLS handshakes.
    FetchPolicy p = short_policy();
    p.total_timeout = std::chrono::milliseconds(8'000);
    const auto start = Clock::now();
    const auto results = credence::verify::make_curl_fetcher(trusting(server))->fetch_all(urls, p);
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(10));
    ASSERT_EQ(results.size(), 62U);
    for (int i = 0; i < 60; ++i) {
        ASSERT_TRUE(results[static_cast<size_t>(i)].has_value())
            << i << ": " << results[static_cast<size_t>(i)].error().detail;
        EXPECT_EQ(body_text(results[static_cast<size_t>(i)]->body),
                  R"({"i":)" + std::to_string(i) + "}");
    }
    EXPECT_EQ(error_of(results[60]), FetchError::http_status);
    ASSERT_TRUE(results[61].has_value());
    EXPECT_EQ(body_text(results[61]->body), "inline");
}

TEST(verify_fetch, policies_match_issue_6) {
    EXPECT_EQ(credence::verify::registration_policy().max_bytes, 256U * 1024);
    EXPECT_GT(credence::verify::registration_policy().max_redirects, 0U);
    EXPECT_EQ(credence::verify::manifest_policy().max_bytes, 1024U * 1024);
    EXPECT_EQ(credence::verify::manifest_policy().max_redirects, 0U);
    EXPECT_EQ(credence::verify::feedback_policy().max_bytes, 1024U * 1024);
}
