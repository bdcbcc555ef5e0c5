// The first draft's off-chain resolvers over a real index: agents registered and transferred on a
// devnet, indexed by the real Indexer into a SQLite file, resolved by owner / agentWallet from the
// `agents` table, and by domain through real verification against a real HTTPS server.
#include <credence/verify/verifiers/resolver.hpp>

#include <gtest/gtest.h>

#include <stop_token>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/txn_sender.hpp>
#include <credence/index/indexer.hpp>

#include "support/devnet.hpp"
#include "support/https_server.hpp"
#include "support/scratch.hpp"

namespace credence::verify {
namespace {

using OrderedJson = nlohmann::ordered_json;
namespace idr = chain::bindings::identity_registry;

TEST(verify_resolver, normalize_domain_accepts_domains_and_urls) {
    EXPECT_EQ(normalize_domain("Agent.Example."), "agent.example");
    EXPECT_EQ(normalize_domain("https://agent.example:8443/x"), "agent.example");
    EXPECT_FALSE(normalize_domain("not a domain"));
    EXPECT_FALSE(normalize_domain("127.0.0.1"));
    EXPECT_TRUE(resolve_by_domain({}, "agent.example").empty());
}

class VerifyResolver : public testing::DevnetFixture {
protected:
    void SetUp() override {
        DevnetFixture::SetUp();
        if (HasFatalFailure()) return;
        registry_ = devnet().address("IdentityRegistry");
    }

    core::Uint256 send(size_t account, core::Result<core::Bytes, core::AbiError> data) {
        auto rpc = devnet().rpc();
        const core::SecretKey key = devnet().secret_key(account);
        chain::TxnSender sender(rpc, key);
        chain::TxnRequest req;
        req.to = registry_;
        req.data = std::move(data.value());
        auto receipt = sender.send(req);
        EXPECT_TRUE(receipt) << (receipt ? "" : receipt.error().detail);
        core::Uint256 id;
        for (const auto& log : receipt->logs) {
            if (auto ev = idr::decode_registered_event(log.topics, log.data)) id = ev->agent_id;
        }
        return id;
    }

    std::unique_ptr<index::Database> indexed(const std::string& name) {
        const auto path = testing::scratch_dir() / name;
        auto db = index::open_sqlite(path);
        EXPECT_TRUE(db);
        index::IndexerOptions o;
        o.chain_id = devnet().chain_id();
        o.sources = index::sources_from_deployment(devnet().deployment());
        index::Indexer indexer(o, devnet().rpc(), **db);
        auto started = indexer.start();
        EXPECT_TRUE(started) << started.error().message;
        std::stop_source stop;
        auto done = indexer.run(stop.get_token(), false, std::chrono::milliseconds(10),
                                [](const index::StepReport&) {});
        EXPECT_TRUE(done) << done.error().message;
        return std::move(*db);
    }

    [[nodiscard]] std::string registration(const core::Uint256& id, const std::string& mcp) {
        OrderedJson doc{
            {"type", "https://eips.ethereum.org/EIPS/eip-8004#registration-v1"},
            {"name", "a"},
            {"description", "d"},
            {"image", "https://agent-a.test/i.png"},
            {"services", OrderedJson::array({OrderedJson{{"name", "MCP"}, {"endpoint", mcp}}})},
            {"registrations",
             OrderedJson::array(
                 {OrderedJson{{"agentId", OrderedJson::parse(id.to_dec())},
                              {"agentRegistry", "eip155:" + std::to_string(devnet().chain_id()) +
                                                    ":" + registry_.to_checksum_hex()}}})}};
        return doc.dump();
    }

    core::Address registry_;
};

TEST_F(VerifyResolver, resolve_by_address_finds_owner_and_wallet_from_the_index) {
    const core::Address alice = devnet().dev_address(1);
    const core::Address bob = devnet().dev_address(2);
    const core::Address carol = devnet().dev_address(3);
    const auto a1 = send(1, idr::register_1("ipfs://a1"));
    const auto a2 = send(1, idr::register_1("ipfs://a2"));
    const auto b1 = send(2, idr::register_1("ipfs://b1"));
    // ERC-8004 §On-chain metadata: a transfer clears agentWallet; Carol owns a2 afterwards.
    (void)send(1, idr::transfer_from(alice, carol, a2));
    auto db = indexed("resolver-address.db");

    auto by_alice = resolve_by_address(*db, alice);
    ASSERT_TRUE(by_alice) << by_alice.error().to_string();
    ASSERT_EQ(by_alice->size(), 1U);
    EXPECT_EQ((*by_alice)[0].agent.agent_id, a1);
    EXPECT_EQ((*by_alice)[0].agent.agent_uri, "ipfs://a1");
    // agentWallet "is initially set to the owner's address": both match.
    EXPECT_EQ((*by_alice)[0].matched_by,
              (std::vector<ResolveMatch>{ResolveMatch::owner, ResolveMatch::wallet}));

    auto by_carol = resolve_by_address(*db, carol);
    ASSERT_TRUE(by_carol);
    ASSERT_EQ(by_carol->size(), 1U);
    EXPECT_EQ((*by_carol)[0].agent.agent_id, a2);
    EXPECT_EQ((*by_carol)[0].matched_by, std::vector<ResolveMatch>{ResolveMatch::owner});
    EXPECT_FALSE((*by_carol)[0].agent.wallet);

    auto by_bob = resolve_by_address(*db, bob, {devnet().chain_id(), registry_});
    ASSERT_TRUE(by_bob);
    ASSERT_EQ(by_bob->size(), 1U);
    EXPECT_EQ((*by_bob)[0].agent.agent_id, b1);
    EXPECT_EQ((*by_bob)[0].to_json()["matchedBy"][0], "owner");
    // Another chain id filters everything out.
    EXPECT_TRUE(resolve_by_address(*db, bob, {devnet().chain_id() + 1, {}})->empty());
    EXPECT_TRUE(resolve_by_address(*db, devnet().dev_address(7))->empty());

    auto all = load_indexed_agents(*db);
    ASSERT_TRUE(all);
    EXPECT_EQ(all->size(), 3U);
}

TEST_F(VerifyResolver, resolve_by_domain_returns_only_agents_that_proved_the_domain) {
    testing::HttpsServer server({"agent-a.test", "mcp.shared.test", "squatter.test"});
    FetcherConfig config;
    config.connect_to = server.connect_to();
    config.ca_file = server.ca_file();
    config.allow_hosts = {"127.0.0.1"};
    auto fetcher = make_curl_fetcher(config);

    const auto honest = send(1, idr::register_1("https://agent-a.test/agent.json"));
    const auto squatter = send(2, idr::register_1("https://squatter.test/agent.json"));
    (void)send(3, idr::register_1(""));  // no URI: never resolves by domain
    server.serve("agent-a.test", "/agent.json",
                 registration(honest, "https://mcp.shared.test/mcp"));
    // The squatter claims the same MCP endpoint, but the domain file does not list it.
    server.serve("squatter.test", "/agent.json",
                 registration(squatter, "https://mcp.shared.test/mcp"));
    server.serve(
        "mcp.shared.test", "/.well-known/agent-registration.json",
        OrderedJson{{"registrations",
                     OrderedJson::array({OrderedJson{
                         {"agentId", OrderedJson::parse(honest.to_dec())},
                         {"agentRegistry", "eip155:" + std::to_string(devnet().chain_id()) + ":" +
                                               registry_.to_checksum_hex()}}})}}
            .dump());
    auto db = indexed("resolver-domain.db");

    auto shared = resolve_domain_live(*db, *fetcher, "MCP.shared.test");
    ASSERT_TRUE(shared) << shared.error().to_string();
    ASSERT_EQ(shared->size(), 1U);
    EXPECT_EQ((*shared)[0].agent.agent_id, honest);
    EXPECT_EQ((*shared)[0].matched_by, std::vector<ResolveMatch>{ResolveMatch::domain});
    EXPECT_EQ((*shared)[0].domains, (std::vector<std::string>{"agent-a.test", "mcp.shared.test"}));
    // Each agent's own agentURI domain is demonstrated by serving a matching file.
    auto own = resolve_domain_live(*db, *fetcher, "squatter.test");
    ASSERT_TRUE(own);
    ASSERT_EQ(own->size(), 1U);
    EXPECT_EQ((*own)[0].agent.agent_id, squatter);
    EXPECT_TRUE(resolve_domain_live(*db, *fetcher, "nobody.test")->empty());
}

}  // namespace
}  // namespace credence::verify
