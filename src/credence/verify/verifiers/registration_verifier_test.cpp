// ERC-8004 registration files, endpoint domains and A2A cards, verified for real: agents are
// registered on a devnet (anvil with the IdentityRegistry) through the bindings, read back with
// read_onchain_agent(), and their agentURIs, well-known domain files and agent cards are served by
// a real HTTPS server on 127.0.0.1 with the test CA (tests/support/https_server.hpp), fetched by
// the real curl fetcher. One test per rule of ERC-8004 §Agent URI and Agent Registration File and
// §Endpoint Domain Verification (Optional).
#include <credence/verify/verifiers/registration_verifier.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/txn_sender.hpp>
#include <credence/core/data_uri.hpp>

#include "support/devnet.hpp"
#include "support/https_server.hpp"

namespace credence::verify {
namespace {

using OrderedJson = nlohmann::ordered_json;
using testing::HttpsServer;
namespace idr = chain::bindings::identity_registry;
using Clock = std::chrono::steady_clock;

const std::vector<std::string> kHosts{"agent-a.test", "mcp.agent-b.test", "other.test", "cdn.test"};

class VerifyRegistration : public testing::SharedDevnetFixture {
protected:
    void SetUp() override {
        SharedDevnetFixture::SetUp();
        if (HasFatalFailure()) return;
        server_ = std::make_unique<HttpsServer>(kHosts);
        FetcherConfig config;
        config.connect_to = server_->connect_to();
        config.ca_file = server_->ca_file();
        config.allow_hosts = {"127.0.0.1"};
        fetcher_ = make_curl_fetcher(config);
        registry_ = devnet().address("IdentityRegistry");
    }

    /// Registers an agent owned by dev account `account` with `uri` (register(string), or
    /// register() when empty) and reads it back from the chain.
    OnChainAgent register_agent(const std::string& uri, size_t account = 1) {
        auto rpc = devnet().rpc();
        const core::SecretKey key = devnet().secret_key(account);
        chain::TxnSender sender(rpc, key);
        chain::TxnRequest req;
        req.to = registry_;
        auto data = uri.empty() ? idr::register_0() : idr::register_1(uri);
        EXPECT_TRUE(data);
        req.data = std::move(*data);
        auto receipt = sender.send(req);
        EXPECT_TRUE(receipt) << (receipt ? "" : receipt.error().detail);
        core::Uint256 agent_id;
        for (const auto& log : receipt->logs) {
            if (auto ev = idr::decode_registered_event(log.topics, log.data)) {
                agent_id = ev->agent_id;
            }
        }
        auto agent = read_onchain_agent(rpc, devnet().chain_id(), registry_, agent_id);
        EXPECT_TRUE(agent) << (agent ? "" : agent.error().message());
        EXPECT_EQ(agent->agent_uri, uri);
        EXPECT_EQ(agent->owner, devnet().dev_address(account));
        return *agent;
    }

    [[nodiscard]] std::string registry_string(uint64_t chain_id = 0) const {
        return "eip155:" + std::to_string(chain_id == 0 ? devnet().chain_id() : chain_id) + ":" +
               registry_.to_checksum_hex();
    }

    /// A full registration file naming `agent_id` on `registry` with `services`.
    [[nodiscard]] static std::string file(const core::Uint256& agent_id,
                                          const std::string& registry, OrderedJson services) {
        OrderedJson doc;
        doc["type"] = "https://eips.ethereum.org/EIPS/eip-8004#registration-v1";
        doc["name"] = "agent";
        doc["description"] = "an agent under test";
        doc["image"] = "https://agent-a.test/agent.png";
        doc["services"] = std::move(services);
        doc["x402Support"] = false;
        doc["active"] = true;
        doc["registrations"] = OrderedJson::array({OrderedJson{
            {"agentId", OrderedJson::parse(agent_id.to_dec())}, {"agentRegistry", registry}}});
        doc["supportedTrust"] = OrderedJson::array({"reputation"});
        return doc.dump();
    }
    [[nodiscard]] std::string file(const core::Uint256& agent_id,
                                   OrderedJson services = OrderedJson::array()) const {
        return file(agent_id, registry_string(), std::move(services));
    }
    /// A minimal domain file: "at least a registrations list".
    [[nodiscard]] std::string domain_file(const core::Uint256& agent_id) const {
        return OrderedJson{{"registrations", OrderedJson::array({OrderedJson{
                                                 {"agentId", OrderedJson::parse(agent_id.to_dec())},
                                                 {"agentRegistry", registry_string()}}})}}
            .dump();
    }

    static OrderedJson service(const std::string& name, const std::string& endpoint) {
        return OrderedJson{{"name", name}, {"endpoint", endpoint}, {"version", "1"}};
    }

    AgentVerification verify(const OnChainAgent& agent) { return verify_agent(agent, *fetcher_); }

    static const DomainCheck* domain(const AgentVerification& v, const std::string& d) {
        for (const auto& c : v.domains)
            if (c.domain == d) return &c;
        return nullptr;
    }

    static std::optional<DomainReason> reason_of(const AgentVerification& v, const std::string& d) {
        const DomainCheck* c = domain(v, d);
        return c == nullptr ? std::nullopt : std::optional<DomainReason>(c->reason);
    }

    std::unique_ptr<HttpsServer> server_;
    std::unique_ptr<Fetcher> fetcher_;
    core::Address registry_;
};

TEST_F(VerifyRegistration, good_registration_with_domains_and_agent_card_is_verified) {
    const auto agent = register_agent("https://agent-a.test/agent.json");
    const OrderedJson services = OrderedJson::array(
        {service("A2A", "https://agent-a.test/.well-known/agent-card.json"),
         service("MCP", "https://mcp.agent-b.test/mcp"), service("ENS", "agent.eth"),
         OrderedJson{{"name", "OASF"},
                     {"endpoint", "ipfs://bafyoasf"},
                     {"version", "0.8"},
                     {"skills", {"natural_language_processing/summarization"}},
                     {"domains", {"technology/software_engineering"}}}});
    server_->serve("agent-a.test", "/agent.json", file(agent.agent_id, services));
    server_->serve("mcp.agent-b.test", "/.well-known/agent-registration.json",
                   domain_file(agent.agent_id));
    server_->serve("agent-a.test", "/.well-known/agent-card.json", R"({
        "name": "A", "description": "d", "url": "https://agent-a.test/a2a", "version": "1.0.0",
        "skills": [{"id": "summarize", "name": "Summarize", "description": "s", "tags": ["text"]},
                   {"id": "translate", "name": "Translate", "description": "t", "tags": []}]})");

    const auto v = verify(agent);
    EXPECT_EQ(v.status, AgentStatus::verified) << v.detail;
    EXPECT_EQ(v.reason, AgentReason::none);
    EXPECT_TRUE(v.registration_matches);
    ASSERT_TRUE(v.registration);
    EXPECT_TRUE(v.registration->ok());
    ASSERT_EQ(v.registration->file.services.size(), 4U);
    EXPECT_EQ(v.registration->file.services[3].skills.size(), 1U);  // OASF skills extracted
    EXPECT_EQ(v.registration->file.services[3].domains.size(), 1U);
    // The ENS and ipfs endpoints have no HTTPS endpoint-domain: two domains only.
    ASSERT_EQ(v.domains.size(), 2U);
    // ERC-8004 §Endpoint Domain Verification: the domain serving agentURI needs no extra check.
    const DomainCheck* a = domain(v, "agent-a.test");
    ASSERT_NE(a, nullptr);
    EXPECT_TRUE(a->verified);
    EXPECT_EQ(a->reason, DomainReason::same_domain);
    EXPECT_EQ(server_->hits("agent-a.test", "/.well-known/agent-registration.json"), 0U);
    const DomainCheck* b = domain(v, "mcp.agent-b.test");
    ASSERT_NE(b, nullptr);
    EXPECT_TRUE(b->verified) << b->detail;
    EXPECT_EQ(b->reason, DomainReason::verified);
    EXPECT_EQ(v.verified_domains(), (std::vector<std::string>{"agent-a.test", "mcp.agent-b.test"}));
    // The A2A card: fetched, skills extracted, bound through its verified domain.
    ASSERT_EQ(v.agent_cards.size(), 1U);
    const auto& card = v.agent_cards[0];
    ASSERT_TRUE(card.card) << card.detail;
    ASSERT_EQ(card.card->skills.size(), 2U);
    EXPECT_EQ(card.card->skills[0].id, "summarize");
    EXPECT_EQ(card.binding, CardBinding::card_domain);
    const OrderedJson j = v.to_json();
    EXPECT_EQ(j["status"], "verified");
    EXPECT_EQ(j["agentCards"][0]["skills"][1]["id"], "translate");
    EXPECT_EQ(j["domains"][0]["sameDomainShortcut"], true);
}

// A file written to the intermediate revision's shape ("endpoints" for "services") still gives the
// agent its services, its domains and a verified status: its list is the same list.
TEST_F(VerifyRegistration, intermediate_revision_endpoints_give_the_services) {
    const auto agent = register_agent("https://other.test/agent.json");
    OrderedJson doc = OrderedJson::parse(file(agent.agent_id));
    doc.erase("services");
    doc["endpoints"] = OrderedJson::array(
        {service("A2A", "https://other.test/a2a.json"), service("MCP", "https://cdn.test/mcp")});
    server_->serve("other.test", "/agent.json", doc.dump());
    server_->serve("cdn.test", "/.well-known/agent-registration.json", domain_file(agent.agent_id));
    const auto v = verify(agent);
    EXPECT_EQ(v.status, AgentStatus::verified) << v.detail;
    ASSERT_TRUE(v.registration);
    EXPECT_EQ(v.registration->file.services_member, "endpoints");
    ASSERT_EQ(v.registration->file.services.size(), 2U);
    EXPECT_EQ(v.verified_domains(), (std::vector<std::string>{"other.test", "cdn.test"}));
    const OrderedJson j = v.to_json();
    ASSERT_EQ(j["registrationFile"]["services"].size(), 2U);
    EXPECT_EQ(j["registrationFile"]["services"][1]["name"], "MCP");
}

TEST_F(VerifyRegistration, registration_entry_with_another_agent_id_is_unverified) {
    const auto agent = register_agent("https://agent-a.test/wrong-id.json");
    const core::Uint256 other = agent.agent_id + core::Uint256{1};
    server_->serve("agent-a.test", "/wrong-id.json", file(other));
    const auto v = verify(agent);
    EXPECT_EQ(v.status, AgentStatus::unverified);
    EXPECT_EQ(v.reason, AgentReason::wrong_agent_id) << v.detail;
    EXPECT_FALSE(v.registration_matches);
    EXPECT_TRUE(v.verified_domains().empty());  // nothing matched: no domain control shown
}

TEST_F(VerifyRegistration, registration_entry_with_another_registry_is_unverified) {
    const auto agent = register_agent("https://agent-a.test/wrong-registry.json");
    const std::string elsewhere = "eip155:" + std::to_string(devnet().chain_id()) + ":" +
                                  devnet().address("ReputationRegistry").to_checksum_hex();
    server_->serve("agent-a.test", "/wrong-registry.json",
                   file(agent.agent_id, elsewhere, OrderedJson::array()));
    EXPECT_EQ(verify(agent).reason, AgentReason::wrong_registry);
    // The right address on another chain is another registry too.
    server_->serve("agent-a.test", "/wrong-registry.json",
                   file(agent.agent_id, registry_string(8453), OrderedJson::array()));
    EXPECT_EQ(verify(agent).reason, AgentReason::wrong_registry);
}

TEST_F(VerifyRegistration, missing_domain_file_leaves_the_domain_unverified_not_the_agent) {
    const auto agent = register_agent("https://agent-a.test/missing.json");
    server_->serve(
        "agent-a.test", "/missing.json",
        file(agent.agent_id, OrderedJson::array({service("MCP", "https://other.test/mcp")})));
    const auto v = verify(agent);
    EXPECT_EQ(v.status, AgentStatus::verified) << v.detail;
    const DomainCheck* d = domain(v, "other.test");
    ASSERT_NE(d, nullptr);
    EXPECT_FALSE(d->verified);
    EXPECT_EQ(d->reason, DomainReason::not_found);
    EXPECT_EQ(d->fetch_error, FetchError::http_status);
    EXPECT_EQ(d->url, "https://other.test/.well-known/agent-registration.json");
    EXPECT_EQ(server_->hits("other.test", "/.well-known/agent-registration.json"), 1U);
    EXPECT_EQ(v.verified_domains(), std::vector<std::string>{"agent-a.test"});
}

TEST_F(VerifyRegistration, domain_file_listing_another_agent_does_not_verify_the_domain) {
    const auto agent = register_agent("https://agent-a.test/squat.json");
    server_->serve(
        "agent-a.test", "/squat.json",
        file(agent.agent_id, OrderedJson::array({service("MCP", "https://other.test/mcp")})));
    server_->serve("other.test", "/.well-known/agent-registration.json",
                   domain_file(agent.agent_id + core::Uint256{1000}));
    const auto v = verify(agent);
    const DomainCheck* d = domain(v, "other.test");
    ASSERT_NE(d, nullptr);
    EXPECT_FALSE(d->verified);
    EXPECT_EQ(d->reason, DomainReason::wrong_agent_id) << d->detail;
    server_->serve("other.test", "/.well-known/agent-registration.json", R"({"name": "x"})");
    EXPECT_EQ(reason_of(verify(agent), "other.test"), DomainReason::no_registrations);
    server_->serve("other.test", "/.well-known/agent-registration.json", "{not json");
    EXPECT_EQ(reason_of(verify(agent), "other.test"), DomainReason::not_json);
}

TEST_F(VerifyRegistration, same_domain_shortcut_needs_a_matching_file_served_by_that_domain) {
    // agentURI on agent-a.test redirects to cdn.test: the file is served by cdn.test, so control
    // of agent-a.test is not demonstrated by it and the well-known file is checked.
    const auto agent = register_agent("https://agent-a.test/moved.json");
    server_->redirect("agent-a.test", "/moved.json", "https://cdn.test/agent.json");
    server_->serve(
        "cdn.test", "/agent.json",
        file(agent.agent_id, OrderedJson::array({service("web", "https://agent-a.test/")})));
    auto v = verify(agent);
    EXPECT_EQ(v.status, AgentStatus::verified) << v.detail;
    const DomainCheck* d = domain(v, "agent-a.test");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->reason, DomainReason::not_found);
    EXPECT_EQ(server_->hits("agent-a.test", "/.well-known/agent-registration.json"), 1U);
    // Once agent-a.test publishes the domain file, the domain verifies the long way.
    server_->serve("agent-a.test", "/.well-known/agent-registration.json",
                   domain_file(agent.agent_id));
    v = verify(agent);
    EXPECT_EQ(reason_of(v, "agent-a.test"), DomainReason::verified);
}

TEST_F(VerifyRegistration, data_uri_registration_is_verified_and_gives_no_shortcut) {
    // The file names the agentId the next register call will get, read from nextAgentId().
    auto rpc = devnet().rpc();
    chain::CallRequest next;
    next.to = registry_;
    next.data = idr::next_agent_id().value();
    const auto next_id = idr::decode_next_agent_id_result(rpc.call(next).value()).value();
    const std::string body =
        file(next_id, OrderedJson::array({service("MCP", "https://mcp.agent-b.test/mcp")}));
    const std::string uri =
        core::encode_base64_data_uri(
            "application/json",
            core::ByteView(reinterpret_cast<const uint8_t*>(body.data()), body.size()))
            .value();
    const auto agent = register_agent(uri);
    ASSERT_EQ(agent.agent_id, next_id);
    server_->serve("mcp.agent-b.test", "/.well-known/agent-registration.json",
                   domain_file(agent.agent_id));
    const auto v = verify(agent);
    EXPECT_EQ(v.status, AgentStatus::verified) << v.detail;
    EXPECT_EQ(reason_of(v, "mcp.agent-b.test"), DomainReason::verified);
    EXPECT_EQ(v.verified_domains(), std::vector<std::string>{"mcp.agent-b.test"});
}

TEST_F(VerifyRegistration, empty_agent_uri_bad_json_and_invalid_files_are_unverified) {
    EXPECT_EQ(verify(register_agent("")).reason, AgentReason::empty_agent_uri);
    const auto bad = register_agent("https://agent-a.test/bad.json");
    server_->serve("agent-a.test", "/bad.json", R"({"type": "x", "type": "y"})");
    EXPECT_EQ(verify(bad).reason, AgentReason::not_json);
    const auto invalid = register_agent("https://agent-a.test/invalid.json");
    OrderedJson doc = OrderedJson::parse(file(invalid.agent_id));
    doc.erase("name");
    server_->serve("agent-a.test", "/invalid.json", doc.dump());
    const auto v = verify(invalid);
    EXPECT_EQ(v.status, AgentStatus::unverified);
    EXPECT_EQ(v.reason, AgentReason::invalid_registration_file);
    EXPECT_TRUE(v.registration_matches);  // the entry matches; the structure does not
    EXPECT_NE(v.detail.find("/name"), std::string::npos) << v.detail;
}

TEST_F(VerifyRegistration, oversized_registration_file_is_refused_at_256_kib) {
    const auto agent = register_agent("https://agent-a.test/big.json");
    std::string big = file(agent.agent_id);
    big.insert(big.size() - 1,
               ", \"pad\": \"" + std::string(kRegistrationFileMaxBytes, 'x') + "\"");
    server_->serve("agent-a.test", "/big.json", big);
    const auto start = Clock::now();
    const auto v = verify(agent);
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
    EXPECT_EQ(v.status, AgentStatus::unreachable);
    EXPECT_EQ(v.reason, AgentReason::fetch_failed);
    EXPECT_EQ(v.fetch_error, FetchError::too_large) << v.detail;
}

TEST_F(VerifyRegistration, unreachable_agent_uri_and_http_endpoints) {
    const auto agent = register_agent("https://agent-a.test/not-there.json");
    auto v = verify(agent);
    EXPECT_EQ(v.status, AgentStatus::unreachable);
    EXPECT_EQ(v.fetch_error, FetchError::http_status);
    const auto plain = register_agent("https://agent-a.test/plain.json");
    server_->serve(
        "agent-a.test", "/plain.json",
        file(plain.agent_id, OrderedJson::array({service("web", "http://other.test/")})));
    v = verify(plain);
    ASSERT_EQ(v.domains.size(), 1U);
    EXPECT_EQ(v.domains[0].reason, DomainReason::not_https);
    EXPECT_FALSE(v.domains[0].verified);
    EXPECT_EQ(server_->hits("other.test", "/.well-known/agent-registration.json"), 0U);
}

TEST_F(VerifyRegistration, agent_card_bound_by_first_draft_registration_entry) {
    // The card lives on a domain the agent never proved; its registrations entry names the
    // agent's owner on this chain (first draft §Agent Card Structure).
    const auto agent = register_agent("https://agent-a.test/card.json", 2);
    server_->serve(
        "agent-a.test", "/card.json",
        file(agent.agent_id, OrderedJson::array({service("A2A", "https://other.test/a2a")})));
    const OrderedJson card{
        {"name", "C"},
        {"description", "d"},
        {"url", "https://other.test/a2a"},
        {"version", "1"},
        {"skills",
         OrderedJson::array({OrderedJson{
             {"id", "s1"}, {"name", "n"}, {"description", "d"}, {"tags", OrderedJson::array()}}})},
        {"registrations", OrderedJson::array({OrderedJson{
                              {"agentId", OrderedJson::parse(agent.agent_id.to_dec())},
                              {"agentAddress", "eip155:" + std::to_string(devnet().chain_id()) +
                                                   ":" + agent.owner.to_checksum_hex()},
                              {"signature", "0x00"}}})}};
    server_->serve("other.test", "/.well-known/agent-card.json", card.dump());
    auto v = verify(agent);
    ASSERT_EQ(v.agent_cards.size(), 1U);
    EXPECT_EQ(v.agent_cards[0].url, "https://other.test/.well-known/agent-card.json");
    ASSERT_TRUE(v.agent_cards[0].card);
    EXPECT_EQ(v.agent_cards[0].card->skills.at(0).id, "s1");
    EXPECT_EQ(v.agent_cards[0].binding, CardBinding::agent_address);
    // A card naming someone else's address is not bound.
    OrderedJson stolen = card;
    stolen["registrations"][0]["agentAddress"] = "eip155:" + std::to_string(devnet().chain_id()) +
                                                 ":" + devnet().dev_address(5).to_checksum_hex();
    server_->serve("other.test", "/.well-known/agent-card.json", stolen.dump());
    v = verify(agent);
    EXPECT_EQ(v.agent_cards[0].binding, CardBinding::none);
    server_->serve("other.test", "/.well-known/agent-card.json", "[]");
    v = verify(agent);
    EXPECT_EQ(v.agent_cards[0].parse_error, AgentCardError::not_an_object);
}

TEST_F(VerifyRegistration, many_agents_fetch_each_url_once) {
    std::vector<OnChainAgent> agents;
    for (int i = 0; i < 6; ++i) {
        const std::string path = "/many-" + std::to_string(i) + ".json";
        agents.push_back(register_agent("https://agent-a.test" + path));
        server_->serve(
            "agent-a.test", path,
            file(agents.back().agent_id,
                 OrderedJson::array({service("MCP", "https://mcp.agent-b.test/shared")})));
    }
    // The shared domain file lists every agent.
    OrderedJson regs = OrderedJson::array();
    for (const auto& a : agents) {
        regs.push_back({{"agentId", OrderedJson::parse(a.agent_id.to_dec())},
                        {"agentRegistry", registry_string()}});
    }
    server_->serve("mcp.agent-b.test", "/.well-known/agent-registration.json",
                   OrderedJson{{"registrations", regs}}.dump());
    const auto results = verify_agents(agents, *fetcher_);
    ASSERT_EQ(results.size(), agents.size());
    for (const auto& v : results) {
        EXPECT_EQ(v.status, AgentStatus::verified) << v.detail;
        EXPECT_EQ(reason_of(v, "mcp.agent-b.test"), DomainReason::verified);
    }
    EXPECT_EQ(server_->hits("mcp.agent-b.test", "/.well-known/agent-registration.json"), 1U);
}

TEST_F(VerifyRegistration, read_onchain_agent_of_a_nonexistent_agent_fails) {
    auto rpc = devnet().rpc();
    auto r = read_onchain_agent(rpc, devnet().chain_id(), registry_, core::Uint256{1'000'000});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, chain::CallErrorKind::reverted);
    EXPECT_EQ(r.error().message(), "ownerOf reverted: ERC721NonexistentToken(tokenId=1000000)");
}

}  // namespace
}  // namespace credence::verify
