// Verifying ERC-8004 agents in parallel (docs/benchmarks.md: "at least 50 registration files in
// parallel without blocking the indexer"): verify_agents() over N agents whose registration files
// (valid, ~2 KiB, each naming its agent), well-known domain files and A2A agent cards are served
// over HTTPS by a local server (tests/support/https_server.hpp, 4 host names, the test CA).
// Each agent has an MCP endpoint on a shared domain (one well-known fetch for all) and an A2A card
// on its own agentURI domain (same-domain shortcut), so one run is: N agentURI fetches in one
// fetch_all, 1 domain file, 4 cards, then parsing, validation and matching. It runs on the calling
// thread only (one curl multi loop per phase), so the indexer's thread is never involved. Reports
// agents/s (items_per_second), real time.
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <credence/verify/verifiers/registration_verifier.hpp>

#include "support/https_server.hpp"

namespace {

using Json = nlohmann::ordered_json;
namespace verify = credence::verify;

const credence::core::Address kRegistry =
    credence::core::Address::from_hex("0x8004a169fb4a3325136eb29fa0ceb6d2e539a432").value();
constexpr uint64_t kChainId = 1;

std::string registration(uint64_t agent_id, const std::string& host) {
    Json doc;
    doc["type"] = "https://eips.ethereum.org/EIPS/eip-8004#registration-v1";
    doc["name"] = "agent " + std::to_string(agent_id);
    std::string description;
    while (description.size() < 1500) description += "An agent that answers questions. ";
    doc["description"] = description;
    doc["image"] = "https://" + host + "/agent.png";
    doc["services"] = Json::array(
        {Json{{"name", "MCP"}, {"endpoint", "https://mcp.shared.test/mcp"}, {"version", "1"}},
         Json{{"name", "A2A"},
              {"endpoint", "https://" + host + "/.well-known/agent-card.json"},
              {"version", "0.3.0"}}});
    doc["x402Support"] = false;
    doc["active"] = true;
    doc["registrations"] = Json::array({Json{
        {"agentId", agent_id}, {"agentRegistry", "eip155:1:" + kRegistry.to_checksum_hex()}}});
    doc["supportedTrust"] = Json::array({"reputation"});
    return doc.dump();
}

void BM_verify_agents(benchmark::State& state) {
    const auto n = static_cast<size_t>(state.range(0));
    const std::vector<std::string> hosts = {"a.test", "b.test", "c.test", "d.test",
                                            "mcp.shared.test"};
    credence::testing::HttpsServer server(hosts);
    std::vector<verify::OnChainAgent> agents;
    Json regs = Json::array();
    for (size_t i = 0; i < n; ++i) {
        const std::string& host = hosts[i % 4];
        const std::string path = "/agents/" + std::to_string(i) + ".json";
        server.serve(host, path, registration(i, host));
        verify::OnChainAgent a;
        a.chain_id = kChainId;
        a.identity_registry = kRegistry;
        a.agent_id = credence::core::Uint256{i};
        a.agent_uri = "https://" + host + path;
        agents.push_back(a);
        regs.push_back(
            {{"agentId", i}, {"agentRegistry", "eip155:1:" + kRegistry.to_checksum_hex()}});
    }
    server.serve("mcp.shared.test", "/.well-known/agent-registration.json",
                 Json{{"registrations", regs}}.dump());
    for (size_t h = 0; h < 4; ++h) {
        server.serve(hosts[h], "/.well-known/agent-card.json",
                     R"({"name":"A","description":"d","url":"https://a.test/a2a","version":"1",
                         "skills":[{"id":"s","name":"S","description":"d","tags":[]}]})");
    }
    verify::FetcherConfig config;
    config.ca_file = server.ca_file();
    config.connect_to = server.connect_to();
    config.allow_hosts = {"127.0.0.1"};
    const auto fetcher = verify::make_curl_fetcher(config);
    for (auto _ : state) {
        const auto results = verify::verify_agents(agents, *fetcher);
        for (const auto& v : results) {
            if (v.status != verify::AgentStatus::verified || v.verified_domains().size() != 2) {
                state.SkipWithError(("not verified: " + v.detail).c_str());
                return;
            }
        }
        benchmark::DoNotOptimize(results.data());
    }
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n));
}

}  // namespace

BENCHMARK(BM_verify_agents)->Arg(50)->Arg(200)->UseRealTime()->Unit(benchmark::kMillisecond);
