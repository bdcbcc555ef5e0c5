// The demo's HTTPS origin over real TLS: certificates from demo_tls/certificate_issuer, served by
// DemoHttpsServer on 127.0.0.1 and fetched by the verifier's own fetcher (verify/net/fetch) with
// certificate checks on, reaching each demo name through --connect-to. The CA is kept across
// restarts (a verifier's --ca-file keeps working); a fetcher that does not trust it refuses.
#include <credence/agent/demo_https.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <credence/verify/net/fetch.hpp>
#include <support/scratch.hpp>

namespace {

using namespace credence;  // NOLINT(google-build-using-namespace): test file

std::string read_all(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

std::unique_ptr<verify::Fetcher> fetcher_for(const agent::DemoHttpsServer& server,
                                             const std::vector<std::string>& hosts,
                                             const std::string& ca_file) {
    verify::FetcherConfig config;
    config.allow_hosts = server.allow_hosts(hosts);
    config.connect_to = server.connect_to(hosts);
    config.ca_file = ca_file;
    return verify::make_curl_fetcher(config);
}

TEST(agent_demo_https, serves_every_name_over_tls_that_the_fetcher_verifies) {
    const auto dir = credence::testing::scratch_dir() / "demo-https";
    std::filesystem::remove_all(dir);
    const std::vector<std::string> hosts{"alpha.demo.localhost", "tools.demo.localhost"};
    auto certs = agent::make_demo_certificates(dir, hosts);
    ASSERT_TRUE(certs) << certs.error().detail;
    auto server = agent::DemoHttpsServer::start(*certs, 0);
    ASSERT_TRUE(server) << (server ? "" : server.error().detail);
    (*server)->serve("alpha.demo.localhost", "/agent.json", R"({"name":"alpha"})");

    auto fetcher = fetcher_for(**server, hosts, certs->ca_file.string());
    auto ok = fetcher->fetch("https://alpha.demo.localhost/agent.json", {});
    ASSERT_TRUE(ok) << verify::to_string(ok.error().code) << ": " << ok.error().detail;
    EXPECT_EQ(std::string(ok->body.begin(), ok->body.end()), R"({"name":"alpha"})");
    // Routes are per host: the same path on another served name is a 404.
    auto other = fetcher->fetch("https://tools.demo.localhost/agent.json", {});
    ASSERT_FALSE(other);
    EXPECT_EQ(other.error().code, verify::FetchError::http_status);

    // Without the demo CA the certificate does not verify.
    const auto foreign = credence::testing::scratch_dir() / "demo-https-other";
    std::filesystem::remove_all(foreign);
    auto other_ca = agent::make_demo_certificates(foreign, hosts);
    ASSERT_TRUE(other_ca);
    auto untrusting = fetcher_for(**server, hosts, other_ca->ca_file.string());
    auto refused = untrusting->fetch("https://alpha.demo.localhost/agent.json", {});
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, verify::FetchError::tls_failure) << refused.error().detail;

    // A restart keeps the CA and issues a new leaf that the same --ca-file trusts.
    const std::string ca_before = read_all(certs->ca_file);
    server->reset();
    auto again = agent::make_demo_certificates(dir, hosts);
    ASSERT_TRUE(again);
    EXPECT_EQ(read_all(again->ca_file), ca_before);
    EXPECT_NE(again->leaf_cert_pem, certs->leaf_cert_pem);
    auto restarted = agent::DemoHttpsServer::start(*again, 0);
    ASSERT_TRUE(restarted);
    (*restarted)->serve("tools.demo.localhost", "/m.json", "{}");
    auto after = fetcher_for(**restarted, hosts, certs->ca_file.string())
                     ->fetch("https://tools.demo.localhost/m.json", {});
    ASSERT_TRUE(after) << verify::to_string(after.error().code) << ": " << after.error().detail;
}

// The allow list the demo hands out pins each demo name to the demo's server: a URL naming
// 127.0.0.1 or localhost (which the demo's certificate also covers, and for which the server here
// has routes) or a demo name on another local port is refused by the SSRF guard, as any loopback
// URL written on chain must be (verify/net/ssrf_guard.hpp).
TEST(agent_demo_https, lifts_the_ssrf_guard_for_the_demo_names_only) {
    const auto dir = credence::testing::scratch_dir() / "demo-https-pinned";
    std::filesystem::remove_all(dir);
    const std::vector<std::string> hosts{"alpha.demo.localhost"};
    auto certs = agent::make_demo_certificates(dir, hosts);
    ASSERT_TRUE(certs) << certs.error().detail;
    auto server = agent::DemoHttpsServer::start(*certs, 0);
    ASSERT_TRUE(server) << (server ? "" : server.error().detail);
    auto second = agent::DemoHttpsServer::start(*certs, 0);  // another local port
    ASSERT_TRUE(second) << (second ? "" : second.error().detail);
    for (auto* s : {server->get(), second->get()}) {
        for (const std::string host : {"alpha.demo.localhost", "127.0.0.1", "localhost"})
            s->serve(host, "/secret", R"({"secret":true})");
    }
    const auto flags = (*server)->allow_hosts(hosts);
    ASSERT_EQ(flags.size(), 1U);
    EXPECT_EQ(flags[0], "alpha.demo.localhost=127.0.0.1:" + std::to_string((*server)->port()));

    auto fetcher = fetcher_for(**server, hosts, certs->ca_file.string());
    auto ok = fetcher->fetch("https://alpha.demo.localhost/secret", {});
    ASSERT_TRUE(ok) << verify::to_string(ok.error().code) << ": " << ok.error().detail;
    for (const int port : {(*server)->port(), (*second)->port()}) {
        for (const std::string host : {"127.0.0.1", "localhost", "alpha.demo.localhost"}) {
            // The pinned name on the pinned port is the demo server itself.
            if (host == "alpha.demo.localhost" && port == (*server)->port()) continue;
            const std::string url = fmt::format("https://{}:{}/secret", host, port);
            auto refused = fetcher->fetch(url, {});
            ASSERT_FALSE(refused) << url;
            EXPECT_EQ(refused.error().code, verify::FetchError::blocked_address)
                << url << ": " << refused.error().detail;
        }
    }
}

}  // namespace
