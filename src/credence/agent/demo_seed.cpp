#include <credence/agent/demo_seed.hpp>

#include <array>
#include <deque>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>

#include <fmt/core.h>

#include <credence/agent/demo_batch.hpp>
#include <credence/agent/demo_seed_revisions.hpp>
#include <credence/agent/handler.hpp>
#include <credence/agent/task_worker.hpp>
#include <credence/agent/validator.hpp>
#include <credence/chain/bindings/i_agent_workflow.hpp>
#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/reputation_registry.hpp>
#include <credence/chain/bindings/tool_registry.hpp>
#include <credence/chain/bindings/validation_registry.hpp>
#include <credence/chain/contract_call.hpp>
#include <credence/chain/rpc_client.hpp>
#include <credence/chain/txn_sender.hpp>
#include <credence/core/data_uri.hpp>
#include <credence/core/decimal_value.hpp>
#include <credence/core/feedback_file.hpp>
#include <credence/core/keccak.hpp>
#include <credence/core/manifest_checks.hpp>
#include <credence/verify/verifiers/evidence.hpp>
#include <credence/verify/verifiers/evidence_source.hpp>

namespace credence::agent {

std::string_view to_string(DemoError e) noexcept {
    switch (e) {
        case DemoError::rpc:
            return "rpc";
        case DemoError::send:
            return "send";
        case DemoError::abi:
            return "abi";
        case DemoError::https:
            return "https";
        case DemoError::state:
            return "state";
        case DemoError::agent:
            return "agent";
    }
    return "unknown";
}

namespace {

namespace idr = chain::bindings::identity_registry;
namespace rep = chain::bindings::reputation_registry;
namespace tools = chain::bindings::tool_registry;
namespace val = chain::bindings::validation_registry;
namespace iw = chain::bindings::i_agent_workflow;
using Json = nlohmann::ordered_json;
using detail::Batch;

constexpr std::string_view kStateFile = "demo-state.json";
constexpr std::string_view kRegistryHost = "registry.demo.localhost";
constexpr std::string_view kToolsHost = "tools.demo.localhost";
constexpr std::string_view kOtherToolsHost = "api.demo.localhost";
constexpr std::array<std::string_view, 24> kAgentNames = {
    "alpha", "beta",  "gamma",  "delta",   "epsilon", "zeta", "eta",     "theta",
    "iota",  "kappa", "lambda", "mu",      "nu",      "xi",   "omicron", "pi",
    "rho",   "sigma", "tau",    "upsilon", "phi",     "chi",  "psi",     "omega"};
constexpr size_t kOwners = 4;
constexpr size_t kHonestClients = 24;
constexpr size_t kSybilClients = 36;
constexpr size_t kValidators = 2;
constexpr size_t kValidationRequests = 4;  // agents 0..3 ask; agent 4's request is tampered
constexpr size_t kSybilTarget = 7;         // theta
constexpr size_t kMissingFileAgent = 23;   // omega: its registration file is never served
constexpr uint64_t kFundWei = 10'000'000'000'000'000'000ULL;  // 10 ETH
// An exchange funds the honest clients among many customers who never rate anything, as on a real
// chain; the Sybils' operator funds its addresses itself (docs/trust.md §Funding).
constexpr size_t kExchangeCustomers = 40;
constexpr uint64_t kCustomerWei = 1'000'000'000'000'000'000ULL;  // 1 ETH
constexpr uint64_t kPaymentWei = 1'000'000'000'000'000ULL;       // 0.001 ETH
// The seeding's fixed clock for feedback files (createdAt is content: keep the bytes stable).
constexpr std::string_view kCreatedAt = "2026-01-01T00:00:00Z";

DemoFailure failure(DemoError code, std::string detail) { return {code, std::move(detail)}; }

/// A second SecretKey holding the same scalar (keys are move-only; the workers own theirs).
core::SecretKey clone(const core::SecretKey& key) {
    return core::SecretKey::from_bytes(key.expose_secret()).value();
}

/// A deterministic development key: keccak256("credence.demo/<role>/<i>"). Public: devnet only.
core::SecretKey demo_key(std::string_view role, size_t i) {
    const core::Hash32 seed = core::keccak256(fmt::format("credence.demo/{}/{}", role, i));
    // A keccak output is a valid secp256k1 scalar but for a ~2^-128 chance; the labels are fixed
    // and their keys were checked once, so value() cannot fail here.
    return core::SecretKey::from_bytes(seed).value();
}

/// ERC-8004 §Endpoint Domain Verification outcomes the demo stages, by agent index.
std::string expected_domain(size_t i) {
    if (i == kMissingFileAgent) return "fetch_failed";
    switch (i % 6) {
        case 3:
            return "not_found";
        case 4:
            return "wrong_agent_id";
        case 5:
            return "wrong_registry";
        default:
            return "verified";
    }
}

std::string agent_domain(std::string_view name) { return fmt::format("{}.demo.localhost", name); }
std::string agent_uri(std::string_view name) {
    return fmt::format("https://{}/agents/{}.json", kRegistryHost, name);
}
std::string caip10(uint64_t chain_id, const core::Address& a) {
    return fmt::format("eip155:{}:{}", chain_id, a.to_checksum_hex());
}

/// The rating an honest client gives agent `a` (0..100): most agents are decent, theta is not.
uint64_t honest_rating(size_t agent, size_t client) {
    if (agent == kSybilTarget) return 10 + 5 * (client % 3);
    return 60 + (agent * 37 + client * 11) % 40;
}

/// The honest client j rates agents j, j+8, j+16 (mod 24): every agent gets three ratings.
size_t rated_agent(size_t client, size_t k) { return (client + 8 * k) % kAgentNames.size(); }
/// Every agent honest client j rates: its three, and theta for every fourth client (so the bad
/// agent's honest, paid ratings are not a handful the Sybil pool could drown).
std::vector<size_t> agents_rated_by(size_t client) {
    std::vector<size_t> out = {rated_agent(client, 0), rated_agent(client, 1),
                               rated_agent(client, 2)};
    if (client % 4 == 0) out.push_back(kSybilTarget);
    return out;
}
/// Honest clients with j % 4 == 1 do not pay (their feedback carries no proofOfPayment).
bool pays(size_t client) { return client % 4 != 1; }

struct Doc {
    std::string host;
    std::string path;
    std::string body;
};

struct ToolPlan {
    std::string slug;
    std::string expected;
    Json registered;  // the manifest whose hash goes on chain
    Json served;      // what the origin serves
};

Json tool_manifest(std::string_view slug, std::string_view description,
                   const core::Address& creator, std::string_view host) {
    return Json{
        {"type", "https://ercs.ethereum.org/ERCS/erc-8257#tool-manifest-v1"},
        {"name", slug},
        {"description", description},
        {"endpoint", fmt::format("https://{}/{}", host, slug)},
        {"inputs",
         {{"type", "object"},
          {"properties", {{"query", {{"type", "string"}}}}},
          {"required", {"query"}}}},
        {"outputs", {{"type", "object"}, {"properties", {{"result", {{"type", "string"}}}}}}},
        {"version", "1.0.0"},
        {"tags", {"demo"}},
        {"creatorAddress", creator.to_lower_hex()}};
}

/// ERC-8257 §7: two canonical tools and one failing each of checks 2, 3, 4 and the schema.
std::vector<ToolPlan> tool_plans(const core::Address& creator, const core::Address& stranger) {
    std::vector<ToolPlan> plans;
    auto add = [&](std::string slug, std::string expected, Json registered, Json served) {
        plans.push_back(
            {std::move(slug), std::move(expected), std::move(registered), std::move(served)});
    };
    auto m = [&](std::string_view slug, std::string_view host = kToolsHost) {
        return tool_manifest(slug, fmt::format("The demo's {} tool.", slug), creator, host);
    };
    add("price-oracle", "canonical", m("price-oracle"), m("price-oracle"));
    add("weather", "canonical", m("weather"), m("weather"));
    // Check 3: the origin serves other bytes than the ones the registry committed to.
    Json changed = m("summarizer");
    changed["description"] = "Quietly changed after registration.";
    add("summarizer", "hash_mismatch", m("summarizer"), changed);
    // Check 2: the manifest names an endpoint on another origin than the one serving it.
    add("translator", "origin_mismatch", m("translator", kOtherToolsHost),
        m("translator", kOtherToolsHost));
    // Check 4: creatorAddress names someone other than the on-chain creator.
    Json other = m("scraper");
    other["creatorAddress"] = stranger.to_lower_hex();
    add("scraper", "creator_mismatch", other, other);
    // The four checks pass; the §2 schema does not (a required field is missing).
    Json broken = m("broken");
    broken.erase("description");
    add("broken", "schema_violation", broken, broken);
    return plans;
}

/// The JCS bytes of a manifest and their keccak256 (ERC-8257 §8 manifestHash).
DemoResult<core::CanonicalManifest> canonical(const Json& manifest) {
    const std::string text = manifest.dump();
    auto c = core::canonicalize_manifest(core::as_bytes(text));
    if (!c)
        return std::unexpected(
            failure(DemoError::abi, fmt::format("manifest: {}", core::to_string(c.error().code))));
    return std::move(*c);
}

/// Every document the demo origin serves, from the seeded facts.
DemoResult<std::vector<Doc>> documents(const DemoSummary& s, const core::Address& identity,
                                       const core::Address& other_registry,
                                       const core::Address& tool_creator,
                                       const core::Address& stranger) {
    std::vector<Doc> docs;
    const std::string registry = caip10(s.chain_id, identity);
    for (size_t i = 0; i < s.agents.size(); ++i) {
        const DemoAgent& a = s.agents[i];
        const Json entry{{"agentId", a.agent_id}, {"agentRegistry", registry}};
        Json file{
            {"type", "https://eips.ethereum.org/EIPS/eip-8004#registration-v1"},
            {"name", a.name},
            {"description", fmt::format("Demo agent {}: answers questions over MCP.", a.name)},
            {"image", fmt::format("https://{}/avatar.png", a.domain)},
            {"services",
             {{{"name", "MCP"},
               {"endpoint", fmt::format("https://{}/mcp", a.domain)},
               {"version", "2025-06-18"}}}},
            {"x402Support", true},
            {"active", true},
            {"registrations", Json::array({entry})},
            {"supportedTrust", {"reputation", "crypto-economic"}}};
        if (a.expected_domain != "fetch_failed")
            docs.push_back(
                {std::string(kRegistryHost), fmt::format("/agents/{}.json", a.name), file.dump(2)});
        // ERC-8004 §Endpoint Domain Verification: the well-known file of the endpoint domain.
        Json proof;
        if (a.expected_domain == "verified") {
            proof = Json{{"registrations", Json::array({entry})}};
        } else if (a.expected_domain == "wrong_agent_id") {
            proof = Json{{"registrations", Json::array({{{"agentId", a.agent_id + 1000},
                                                         {"agentRegistry", registry}}})}};
        } else if (a.expected_domain == "wrong_registry") {
            proof = Json{{"registrations",
                          Json::array({{{"agentId", a.agent_id},
                                        {"agentRegistry", caip10(s.chain_id, other_registry)}}})}};
        }
        if (!proof.is_null())
            docs.push_back({a.domain, "/.well-known/agent-registration.json", proof.dump(2)});
    }
    // ERC-8004 first draft §Agent Card Structure: the card of alpha's first-draft record, at its
    // AgentDomain, naming its AgentID and AgentAddress (docs/formats.md §ERC-8004 first draft).
    for (const DemoEarlierAgent& e : s.earlier_revisions) {
        if (e.revision != "draft" || e.role != "server") continue;
        const Json card{
            {"name", s.agents.front().name},
            {"description", "Demo agent alpha, as the first ERC-8004 draft knew it."},
            {"registrations", Json::array({{{"agentId", e.agent_id},
                                            {"agentAddress", caip10(s.chain_id, e.owner)}}})},
            {"trustModels", {"feedback", "inference-validation"}}};
        docs.push_back({e.domain, "/.well-known/agent-card.json", card.dump(2)});
    }
    for (const ToolPlan& t : tool_plans(tool_creator, stranger)) {
        auto bytes = canonical(t.served);
        if (!bytes) return std::unexpected(bytes.error());
        docs.push_back({std::string(kToolsHost),
                        fmt::format("/.well-known/ai-tool/{}.json", t.slug), bytes->jcs});
    }
    return docs;
}

/// The keys of every role, derived once (TxnSender borrows them: they must stay put).
struct Keys {
    std::vector<core::SecretKey> owners, honest, sybils, validators;
    core::SecretKey tool_creator = demo_key("tool-creator", 0);
    core::SecretKey exchange = demo_key("exchange", 0);
    core::SecretKey sybil_operator = demo_key("sybil-operator", 0);
    core::SecretKey stranger = demo_key("stranger", 0);
    Keys() {
        for (size_t i = 0; i < kOwners; ++i) owners.push_back(demo_key("owner", i));
        for (size_t i = 0; i < kHonestClients; ++i) honest.push_back(demo_key("client", i));
        for (size_t i = 0; i < kSybilClients; ++i) sybils.push_back(demo_key("sybil", i));
        for (size_t i = 0; i < kValidators; ++i) validators.push_back(demo_key("validator", i));
    }
};

DemoResult<core::Address> contract(const DemoOptions& o, std::string_view name) {
    const auto it = o.contracts.find(name);
    if (it == o.contracts.end())
        return std::unexpected(
            failure(DemoError::state, fmt::format("the deployment has no {} contract", name)));
    return it->second;
}

template <typename F>
void each_log(const chain::Receipt& r, const core::Address& emitter, const core::Hash32& topic,
              F&& f) {
    for (const auto& log : r.logs)
        if (log.address == emitter && !log.topics.empty() && log.topics[0] == topic) f(log);
}

void say(const DemoOptions& o, const std::string& line) {
    if (o.progress) o.progress(line);
}

DemoResult<uint64_t> head_block(chain::RpcClient& rpc) {
    auto n = rpc.block_number();
    if (!n)
        return std::unexpected(
            failure(DemoError::rpc, "eth_blockNumber: " + n.error().to_string()));
    return *n;
}

/// ERC-8004 §Validation Registry: owners ask the demo validators to re-check a job; the
/// validators (agent::Validator, in-process) fetch, re-run and answer with soft then hard
/// finality. One request's requestHash does not commit to its file: it is refused.
DemoResult<void> validate(const DemoOptions& o, chain::RpcClient& rpc, const Keys& keys,
                          Batch& batch, DemoSummary& s) {
    auto registry = contract(o, "ValidationRegistry");
    if (!registry) return std::unexpected(registry.error());
    say(o, "answering validation requests with 2 validators");
    auto start = head_block(rpc);
    if (!start) return std::unexpected(start.error());
    for (size_t i = 0; i <= kValidationRequests; ++i) {
        const DemoAgent& a = s.agents[i];
        const std::string file = fmt::format(
            R"({{"agentId":{},"job":"summarize the ERC-8004 specification","output":"ERC-8004 gives agents identities, reputation and validation."}})",
            a.agent_id);
        auto uri = core::encode_base64_data_uri("application/json", core::as_bytes(file));
        if (!uri) return std::unexpected(failure(DemoError::abi, "request data: URI"));
        // The last request commits to other bytes than its file: the validator must refuse it.
        const core::Hash32 hash =
            i < kValidationRequests ? core::keccak256(file) : core::keccak256(file + " ");
        auto r =
            batch.call(keys.owners[i % kOwners], *registry,
                       val::validation_request(core::address_of(keys.validators[i % kValidators]),
                                               core::Uint256{a.agent_id}, *uri, hash),
                       "validationRequest");
        if (!r) return std::unexpected(r.error());
    }
    if (auto r = batch.wait_all(); !r) return std::unexpected(r.error());
    for (size_t v = 0; v < kValidators; ++v) {
        auto handler = make_builtin_handler("score");
        if (!handler) return std::unexpected(failure(DemoError::agent, handler.error().detail));
        ValidatorConfig config;
        config.registry = *registry;
        config.state_dir = o.state_dir / "validators" / std::to_string(v);
        config.start_block = *start;
        config.soft_tag = "soft-finality";
        config.tag = "hard-finality";
        auto validator =
            Validator::create(chain::RpcClient::make_http(o.rpc_url), clone(keys.validators[v]),
                              std::move(*handler), nullptr, nullptr, config);
        if (!validator) return std::unexpected(failure(DemoError::agent, validator.error().detail));
        auto reports = (*validator)->step();
        if (!reports) return std::unexpected(failure(DemoError::agent, reports.error().detail));
        for (const auto& r : *reports) {
            if (r.answered)
                ++s.validations_answered;
            else
                ++s.validations_refused;
        }
    }
    return {};
}

/// One ERC-8301 scenario: its contract, and the builtin handler (and stage) of each worker.
struct Scenario {
    std::string_view contract;
    std::vector<std::string_view> handlers;
    std::vector<std::optional<uint8_t>> stages;
};

/// The six ERC-8301 scenarios, each run to completion by in-process workers.
DemoResult<void> run_scenarios(const DemoOptions& o, const core::SecretKey& funder,
                               chain::RpcClient& rpc, const Keys& keys, DemoSummary& s) {
    const std::vector<Scenario> scenarios = {
        {"SingleStageWorkflow", {"echo"}, {}},
        {"InputProvenanceWorkflow", {"uppercase"}, {}},
        {"CompetitiveBidWorkflow", {"bid", "bid", "bid"}, {}},
        {"SequentialPipelineWorkflow", {"uppercase", "echo", "echo"}, {0, 1, 2}},
        {"BFTCommitRevealWorkflow", {"bft", "bft", "bft"}, {}},
        {"ParallelAuditWorkflow", {"echo"}, {}},
    };
    say(o, "running the six ERC-8301 scenarios with task workers");
    for (const Scenario& sc : scenarios) {
        auto workflow = contract(o, sc.contract);
        if (!workflow) return std::unexpected(workflow.error());
        auto start = head_block(rpc);
        if (!start) return std::unexpected(start.error());
        std::vector<std::unique_ptr<TaskWorker>> workers;
        for (size_t i = 0; i < sc.handlers.size(); ++i) {
            const core::SecretKey& key = keys.owners[i];
            BuiltinContext context;
            context.secret = agent_secret(key);
            auto handler = make_builtin_handler(sc.handlers[i], context);
            if (!handler) return std::unexpected(failure(DemoError::agent, handler.error().detail));
            WorkerConfig config;
            config.workflow = *workflow;
            config.stage = i < sc.stages.size() ? sc.stages[i] : std::nullopt;
            config.state_dir =
                o.state_dir / "workers" / std::string(sc.contract) / std::to_string(i);
            config.start_block = *start;
            // The devnet's ECDSAAttestationVerifier trusts the deployer: the funder attests.
            auto worker = TaskWorker::create(chain::RpcClient::make_http(o.rpc_url), clone(key),
                                             clone(funder), std::move(*handler), config);
            if (!worker) return std::unexpected(failure(DemoError::agent, worker.error().detail));
            workers.push_back(std::move(*worker));
        }
        // run(inputHash, input, expiresAt) from a client, ten minutes of chain time to finish.
        auto latest = rpc.get_block_by_number(chain::BlockId::latest());
        if (!latest || !*latest) return std::unexpected(failure(DemoError::rpc, "latest block"));
        const std::string input = fmt::format(R"({{"question":"demo run of {}"}})", sc.contract);
        Batch batch(rpc);
        if (auto r = batch.call(keys.honest[0], *workflow,
                                iw::run(core::keccak256(input), core::as_bytes(input),
                                        core::Uint256{(*latest)->timestamp + 600}),
                                fmt::format("{} run", sc.contract));
            !r)
            return std::unexpected(r.error());
        auto receipts = batch.wait_all();
        if (!receipts) return std::unexpected(receipts.error());
        DemoRun run;
        run.workflow = sc.contract;
        core::Hash32 run_id{};
        for (const auto& log : (*receipts)[0].logs)
            if (auto e = iw::decode_new_agent_task_event(log.topics, log.data))
                run_id = e->workflow_run_id;
        run.run_id = core::to_hex(run_id);
        chain::ContractCaller caller(rpc);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (!run.completed && std::chrono::steady_clock::now() < deadline) {
            for (auto& w : workers)
                if (auto r = w->step(); !r)
                    return std::unexpected(failure(
                        DemoError::agent, fmt::format("{}: {}", sc.contract, r.error().detail)));
            auto result = iw::call::result(caller, *workflow, run_id);
            if (!result && result.error().kind != chain::CallErrorKind::bad_answer)
                return std::unexpected(failure(DemoError::rpc, result.error().message()));
            if (result && result->status != 0) {
                run.completed = result->status == 1;
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        if (run.completed) {
            auto source = verify::make_rpc_evidence_source(rpc, *workflow);
            auto report = verify::verify_run(*source, run_id);
            run.evidence_valid = report && report->valid;
        }
        s.runs.push_back(std::move(run));
    }
    return {};
}

/// The seeding itself (see the header for what and why).
DemoResult<DemoSummary> seed(const DemoOptions& o, const core::SecretKey& funder,
                             chain::RpcClient& rpc) {
    auto identity = contract(o, "IdentityRegistry");
    auto reputation = contract(o, "ReputationRegistry");
    auto tool_registry = contract(o, "ToolRegistry");
    if (!identity) return std::unexpected(identity.error());
    if (!reputation) return std::unexpected(reputation.error());
    if (!tool_registry) return std::unexpected(tool_registry.error());

    const Keys keys;
    DemoSummary s;
    s.chain_id = o.chain_id;
    Batch batch(rpc);

    // 1. Funding, shaped like a real chain's (docs/trust.md §Funding): the funding account (a
    // faucet) funds the owners, validators and tool creator, an exchange and the Sybils'
    // operator; the exchange funds the honest clients among customers who never rate anything,
    // and the operator funds its Sybils.
    say(o, "funding 109 accounts");
    std::vector<const core::SecretKey*> funded;
    funded.reserve(keys.owners.size() + keys.validators.size() + 1);
    for (const auto& k : keys.owners) funded.push_back(&k);
    for (const auto& k : keys.validators) funded.push_back(&k);
    funded.push_back(&keys.tool_creator);
    for (const auto* k : funded)
        if (auto r =
                batch.transfer(funder, core::address_of(*k), core::Uint256{kFundWei}, "funding");
            !r)
            return std::unexpected(r.error());
    const core::Uint256 exchange_wei =
        core::Uint256{kFundWei} * core::Uint256{kHonestClients} +
        core::Uint256{kCustomerWei} * core::Uint256{kExchangeCustomers + 1};
    const core::Uint256 operator_wei =
        core::Uint256{kFundWei} * core::Uint256{kSybilClients} + core::Uint256{kCustomerWei};
    if (auto r = batch.transfer(funder, core::address_of(keys.exchange), exchange_wei, "funding");
        !r)
        return std::unexpected(r.error());
    if (auto r =
            batch.transfer(funder, core::address_of(keys.sybil_operator), operator_wei, "funding");
        !r)
        return std::unexpected(r.error());
    if (auto r = batch.wait_all(); !r) return std::unexpected(r.error());
    // The exchange's customers and honest clients, interleaved as withdrawals come.
    for (size_t i = 0; i < std::max(kHonestClients, kExchangeCustomers); ++i) {
        if (i < kHonestClients) {
            if (auto r = batch.transfer(keys.exchange, core::address_of(keys.honest[i]),
                                        core::Uint256{kFundWei}, "withdrawal");
                !r)
                return std::unexpected(r.error());
        }
        if (i < kExchangeCustomers) {
            if (auto r = batch.transfer(keys.exchange, core::address_of(demo_key("customer", i)),
                                        core::Uint256{kCustomerWei}, "withdrawal");
                !r)
                return std::unexpected(r.error());
        }
    }
    for (const auto& k : keys.sybils)
        if (auto r = batch.transfer(keys.sybil_operator, core::address_of(k),
                                    core::Uint256{kFundWei}, "funding (sybil)");
            !r)
            return std::unexpected(r.error());
    if (auto r = batch.wait_all(); !r) return std::unexpected(r.error());

    // 2. Agents (ERC-8004 §Identity Registry register(agentURI)); ids come from Registered.
    say(o, "registering 24 agents");
    for (size_t i = 0; i < kAgentNames.size(); ++i) {
        const std::string name(kAgentNames[i]);
        if (auto r = batch.call(keys.owners[i % kOwners], *identity,
                                idr::register_1(agent_uri(name)), "register " + name);
            !r)
            return std::unexpected(r.error());
    }
    auto registered = batch.wait_all();
    if (!registered) return std::unexpected(registered.error());
    for (size_t i = 0; i < kAgentNames.size(); ++i) {
        DemoAgent a;
        a.name = kAgentNames[i];
        a.domain = agent_domain(a.name);
        a.expected_domain = expected_domain(i);
        a.owner = core::address_of(keys.owners[i % kOwners]);
        each_log((*registered)[i], *identity, idr::kRegisteredTopic, [&](const chain::Log& log) {
            if (auto ev = idr::decode_registered_event(log.topics, log.data))
                a.agent_id = ev->agent_id.limbs[0];
        });
        s.agents.push_back(std::move(a));
    }
    s.sybil_target = s.agents[kSybilTarget].agent_id;

    // 3. Payments (x402-style: the client pays the agent's owner before rating it) and tools.
    say(o, "paying agents and registering 6 tools");
    std::map<std::pair<size_t, size_t>, size_t> payment_index;  // (client, agent) -> batch index
    for (size_t j = 0; j < kHonestClients; ++j) {
        if (!pays(j)) continue;
        for (const size_t a : agents_rated_by(j)) {
            auto r = batch.transfer(keys.honest[j], s.agents[a].owner, core::Uint256{kPaymentWei},
                                    "payment");
            if (!r) return std::unexpected(r.error());
            payment_index[{j, a}] = *r;
        }
    }
    std::map<std::pair<size_t, size_t>, core::Hash32> payment_txn;
    for (const auto& [key, index] : payment_index) payment_txn[key] = batch.hash(index);
    const core::Address creator = core::address_of(keys.tool_creator);
    const core::Address stranger = core::address_of(keys.stranger);
    const auto plans = tool_plans(creator, stranger);
    std::vector<size_t> tool_index;
    for (const ToolPlan& t : plans) {
        auto bytes = canonical(t.registered);
        if (!bytes) return std::unexpected(bytes.error());
        const std::string uri =
            fmt::format("https://{}/.well-known/ai-tool/{}.json", kToolsHost, t.slug);
        auto r = batch.call(keys.tool_creator, *tool_registry,
                            tools::register_tool(uri, bytes->manifest_hash, core::Address{}),
                            "registerTool " + t.slug);
        if (!r) return std::unexpected(r.error());
        tool_index.push_back(*r);
    }
    auto paid = batch.wait_all();
    if (!paid) return std::unexpected(paid.error());
    for (size_t t = 0; t < plans.size(); ++t) {
        DemoTool tool{0, plans[t].slug, plans[t].expected};
        each_log((*paid)[tool_index[t]], *tool_registry, tools::kToolRegisteredTopic,
                 [&](const chain::Log& log) {
                     if (auto ev = tools::decode_tool_registered_event(log.topics, log.data))
                         tool.tool_id = ev->tool_id.limbs[0];
                 });
        s.tools.push_back(std::move(tool));
    }

    // 4. Feedback (ERC-8004 §Giving Feedback): honest clients with a data: feedback file (and
    // the payment as proofOfPayment when they paid), the Sybil cluster with bare 100s.
    say(o, "giving feedback from 60 clients");
    struct Given {
        size_t client;
        size_t agent;
        size_t batch_index;
    };
    std::vector<Given> given;
    for (size_t j = 0; j < kHonestClients; ++j) {
        const core::Address client = core::address_of(keys.honest[j]);
        for (const size_t a : agents_rated_by(j)) {
            const DemoAgent& agent = s.agents[a];
            core::FeedbackFile file;
            file.agent_registry = {o.chain_id, identity->bytes};
            file.agent_id = core::Uint256{agent.agent_id};
            file.client_chain_id = o.chain_id;
            file.client_address = client.bytes;
            file.created_at = kCreatedAt;
            file.value = {core::Int256(core::Uint256{honest_rating(a, j)}), 0};
            file.tag1 = "starred";
            file.endpoint = fmt::format("https://{}/mcp", agent.domain);
            if (const auto p = payment_txn.find({j, a}); p != payment_txn.end()) {
                // ERC-8004 §Off-Chain Feedback File Structure: proofOfPayment (x402).
                file.proof_of_payment =
                    core::ProofOfPayment{client.to_checksum_hex(), agent.owner.to_checksum_hex(),
                                         std::to_string(o.chain_id), core::to_hex(p->second)};
                ++s.paid_feedback;
            }
            auto built = core::build_feedback_file(file);
            if (!built)
                return std::unexpected(
                    failure(DemoError::abi, "feedback file: " + built.error().detail));
            auto uri =
                core::encode_base64_data_uri("application/json", core::as_bytes(built->bytes));
            if (!uri) return std::unexpected(failure(DemoError::abi, "feedback data: URI"));
            auto r = batch.call(keys.honest[j], *reputation,
                                rep::give_feedback(file.agent_id, file.value.value, 0, "starred",
                                                   "", *file.endpoint, *uri, built->feedback_hash),
                                "giveFeedback");
            if (!r) return std::unexpected(r.error());
            given.push_back({j, a, *r});
        }
    }
    const core::Uint256 target{s.sybil_target};
    for (size_t j = 0; j < kSybilClients; ++j) {
        auto r = batch.call(keys.sybils[j], *reputation,
                            rep::give_feedback(target, core::Int256(core::Uint256{100}), 0,
                                               "starred", "", "", "", core::Hash32{}),
                            "giveFeedback (sybil)");
        if (!r) return std::unexpected(r.error());
    }
    auto gave = batch.wait_all();
    if (!gave) return std::unexpected(gave.error());
    s.clients = kHonestClients + kSybilClients;
    s.sybil_clients = kSybilClients;
    for (const auto& k : keys.sybils) s.sybil_addresses.push_back(core::address_of(k));
    s.feedback = gave->size();
    std::map<std::pair<size_t, size_t>, uint64_t> feedback_index;  // (client, agent) -> index
    for (const Given& g : given) {
        each_log((*gave)[g.batch_index], *reputation, rep::kNewFeedbackTopic,
                 [&](const chain::Log& log) {
                     if (auto ev = rep::decode_new_feedback_event(log.topics, log.data))
                         feedback_index[{g.client, g.agent}] = ev->feedback_index;
                 });
    }

    // 5. Responses by owners (ERC-8004 §Appending Responses) and revocations by clients.
    say(o, "appending responses and revoking feedback");
    for (size_t j = 0; j < 3; ++j) {
        const size_t a = rated_agent(j, 0);
        const std::string text =
            fmt::format(R"({{"response":"Thanks for rating {}; we fixed the slow answers."}})",
                        s.agents[a].name);
        auto uri = core::encode_base64_data_uri("application/json", core::as_bytes(text));
        if (!uri) return std::unexpected(failure(DemoError::abi, "response data: URI"));
        auto r =
            batch.call(keys.owners[a % kOwners], *reputation,
                       rep::append_response(core::Uint256{s.agents[a].agent_id},
                                            core::address_of(keys.honest[j]),
                                            feedback_index[{j, a}], *uri, core::keccak256(text)),
                       "appendResponse");
        if (!r) return std::unexpected(r.error());
        ++s.responses;
    }
    for (const size_t j : {size_t{4}, size_t{5}}) {
        const size_t a = rated_agent(j, 1);
        auto r = batch.call(
            keys.honest[j], *reputation,
            rep::revoke_feedback(core::Uint256{s.agents[a].agent_id}, feedback_index[{j, a}]),
            "revokeFeedback");
        if (!r) return std::unexpected(r.error());
        ++s.revocations;
    }
    if (auto r = batch.wait_all(); !r) return std::unexpected(r.error());

    if (auto v = validate(o, rpc, keys, batch, s); !v) return std::unexpected(v.error());
    if (auto w = run_scenarios(o, funder, rpc, keys, s); !w) return std::unexpected(w.error());
    // 6. The earlier ERC-8004 revisions, when deployed: alpha (verified domain, owner 0) moved
    // across them (demo_seed_revisions.hpp).
    if (has_earlier_revisions(o.contracts)) {
        say(o, "seeding alpha's records in the earlier ERC-8004 revisions");
        EarlierRevisionsPlan plan;
        plan.chain_id = o.chain_id;
        plan.agent_uri = agent_uri(s.agents[0].name);
        plan.agent_domain = s.agents[0].domain;
        plan.owner = &keys.owners[0];
        plan.clients = {&keys.honest[0], &keys.honest[1], &keys.honest[2]};
        plan.validator = &keys.validators[0];
        plan.contracts = &o.contracts;
        auto earlier = seed_earlier_revisions(rpc, plan);
        if (!earlier) return std::unexpected(earlier.error());
        s.earlier_revisions = std::move(*earlier);
    }
    return s;
}

std::filesystem::path state_path(const DemoOptions& o) { return o.state_dir / kStateFile; }

/// The saved summary when it describes this chain and the chain still holds its first agent.
DemoResult<std::optional<DemoSummary>> load_seeded(const DemoOptions& o, chain::RpcClient& rpc,
                                                   const core::Address& identity) {
    std::ifstream f(state_path(o));
    if (!f) return std::optional<DemoSummary>{};
    std::ostringstream text;
    text << f.rdbuf();
    const auto j = nlohmann::json::parse(text.str(), nullptr, false);
    if (j.is_discarded())
        return std::unexpected(
            failure(DemoError::state, state_path(o).string() + ": not JSON (remove it to reseed)"));
    auto s = DemoSummary::from_json(j);
    if (!s)
        return std::unexpected(
            failure(DemoError::state, state_path(o).string() + ": " + s.error()));
    if (s->chain_id != o.chain_id || s->agents.empty()) return std::optional<DemoSummary>{};
    chain::ContractCaller caller(rpc);
    auto uri = idr::call::token_uri(caller, identity, core::Uint256{s->agents.front().agent_id});
    // A fresh chain (anvil restarted without state) has no such agent: seed again.
    if (!uri || *uri != agent_uri(s->agents.front().name)) return std::optional<DemoSummary>{};
    s->already_seeded = true;
    return std::optional<DemoSummary>{std::move(*s)};
}

}  // namespace

std::vector<std::string> demo_hosts() {
    std::vector<std::string> hosts = {std::string(kRegistryHost), std::string(kToolsHost),
                                      std::string(kOtherToolsHost)};
    for (const auto name : kAgentNames) hosts.push_back(agent_domain(name));
    return hosts;
}

nlohmann::json DemoSummary::to_json() const {
    nlohmann::json agents_json = nlohmann::json::array();
    for (const auto& a : agents)
        agents_json.push_back({{"agentId", a.agent_id},
                               {"name", a.name},
                               {"domain", a.domain},
                               {"expectedDomain", a.expected_domain},
                               {"owner", a.owner.to_checksum_hex()}});
    nlohmann::json tools_json = nlohmann::json::array();
    for (const auto& t : tools)
        tools_json.push_back({{"toolId", t.tool_id}, {"slug", t.slug}, {"expected", t.expected}});
    nlohmann::json runs_json = nlohmann::json::array();
    for (const auto& r : runs)
        runs_json.push_back({{"workflow", r.workflow},
                             {"runId", r.run_id},
                             {"completed", r.completed},
                             {"evidenceValid", r.evidence_valid}});
    nlohmann::json sybils = nlohmann::json::array();
    for (const auto& a : sybil_addresses) sybils.push_back(a.to_checksum_hex());
    nlohmann::json earlier_json = nlohmann::json::array();
    for (const auto& e : earlier_revisions)
        earlier_json.push_back({{"revision", e.revision},
                                {"role", e.role},
                                {"agentId", e.agent_id},
                                {"owner", e.owner.to_checksum_hex()},
                                {"domain", e.domain},
                                {"feedback", e.feedback},
                                {"validations", e.validations}});
    return {{"alreadySeeded", already_seeded},
            {"chainId", chain_id},
            {"agents", agents_json},
            {"tools", tools_json},
            {"clients", clients},
            {"sybilClients", sybil_clients},
            {"sybilTarget", sybil_target},
            {"sybilAddresses", std::move(sybils)},
            {"feedback", feedback},
            {"paidFeedback", paid_feedback},
            {"responses", responses},
            {"revocations", revocations},
            {"validationsAnswered", validations_answered},
            {"validationsRefused", validations_refused},
            {"runs", runs_json},
            {"earlierRevisions", earlier_json}};
}

std::expected<DemoSummary, std::string> DemoSummary::from_json(const nlohmann::json& j) {
    try {
        DemoSummary s;
        s.chain_id = j.at("chainId").get<uint64_t>();
        for (const auto& a : j.at("agents")) {
            auto owner = core::Address::from_hex(a.at("owner").get<std::string>());
            if (!owner) return std::unexpected("bad owner address");
            s.agents.push_back({a.at("agentId").get<uint64_t>(), a.at("name").get<std::string>(),
                                a.at("domain").get<std::string>(),
                                a.at("expectedDomain").get<std::string>(), *owner});
        }
        for (const auto& t : j.at("tools"))
            s.tools.push_back({t.at("toolId").get<uint64_t>(), t.at("slug").get<std::string>(),
                               t.at("expected").get<std::string>()});
        s.clients = j.at("clients").get<size_t>();
        s.sybil_clients = j.at("sybilClients").get<size_t>();
        s.sybil_target = j.at("sybilTarget").get<uint64_t>();
        // Absent from state files written before the field existed.
        for (const auto& a : j.value("sybilAddresses", nlohmann::json::array())) {
            auto address = core::Address::from_hex(a.get<std::string>());
            if (!address) return std::unexpected("bad Sybil address");
            s.sybil_addresses.push_back(*address);
        }
        s.feedback = j.at("feedback").get<size_t>();
        s.paid_feedback = j.at("paidFeedback").get<size_t>();
        s.responses = j.at("responses").get<size_t>();
        s.revocations = j.at("revocations").get<size_t>();
        s.validations_answered = j.at("validationsAnswered").get<size_t>();
        s.validations_refused = j.at("validationsRefused").get<size_t>();
        for (const auto& r : j.at("runs"))
            s.runs.push_back({r.at("workflow").get<std::string>(), r.at("runId").get<std::string>(),
                              r.at("completed").get<bool>(), r.at("evidenceValid").get<bool>()});
        // Absent from state files written before the field existed.
        for (const auto& e : j.value("earlierRevisions", nlohmann::json::array())) {
            auto owner = core::Address::from_hex(e.at("owner").get<std::string>());
            if (!owner) return std::unexpected("bad earlier-revision owner address");
            s.earlier_revisions.push_back(
                {e.at("revision").get<std::string>(), e.at("role").get<std::string>(),
                 e.at("agentId").get<uint64_t>(), *owner, e.at("domain").get<std::string>(),
                 e.at("feedback").get<size_t>(), e.at("validations").get<size_t>()});
        }
        return s;
    } catch (const nlohmann::json::exception& e) {
        return std::unexpected(std::string("missing or bad member: ") + e.what());
    }
}

DemoResult<std::unique_ptr<Demo>> Demo::start(const DemoOptions& options,
                                              const core::SecretKey& funder) {
    auto identity = contract(options, "IdentityRegistry");
    auto other_registry = contract(options, "ReputationRegistry");
    if (!identity) return std::unexpected(identity.error());
    if (!other_registry) return std::unexpected(other_registry.error());
    chain::RetryPolicy retry;
    retry.max_attempts = 3;
    chain::RpcClient rpc = chain::RpcClient::make_http(options.rpc_url, {}, retry);

    std::unique_ptr<Demo> demo(new Demo());
    auto seeded = load_seeded(options, rpc, *identity);
    if (!seeded) return std::unexpected(seeded.error());
    if (auto& previous = *seeded; previous.has_value()) {
        say(options, "already seeded: serving the documents again");
        demo->summary_ = std::move(*previous);
    } else {
        auto s = seed(options, funder, rpc);
        if (!s) return std::unexpected(s.error());
        demo->summary_ = std::move(*s);
        std::error_code ec;
        std::filesystem::create_directories(options.state_dir, ec);
        std::ofstream f(state_path(options), std::ios::trunc);
        f << demo->summary_.to_json().dump(2) << '\n';
        if (!f.flush())
            return std::unexpected(
                failure(DemoError::state, "cannot write " + state_path(options).string()));
    }

    demo->hosts_ = demo_hosts();
    auto certs = make_demo_certificates(options.state_dir, demo->hosts_);
    if (!certs)
        return std::unexpected(
            failure(DemoError::https,
                    fmt::format("{}: {}", to_string(certs.error().code), certs.error().detail)));
    demo->certificates_ = std::move(*certs);
    auto server = DemoHttpsServer::start(demo->certificates_, options.https_port);
    if (!server)
        return std::unexpected(
            failure(DemoError::https,
                    fmt::format("{}: {}", to_string(server.error().code), server.error().detail)));
    demo->server_ = std::move(*server);
    const Keys keys;
    auto docs = documents(demo->summary_, *identity, *other_registry,
                          core::address_of(keys.tool_creator), core::address_of(keys.stranger));
    if (!docs) return std::unexpected(docs.error());
    for (auto& d : *docs) demo->server_->serve(d.host, d.path, std::move(d.body));
    return demo;
}

Demo::~Demo() = default;

int Demo::port() const noexcept { return server_->port(); }

const std::filesystem::path& Demo::ca_file() const noexcept { return certificates_.ca_file; }

std::vector<std::string> Demo::connect_to() const { return server_->connect_to(hosts_); }

std::vector<std::string> Demo::fetch_flags() const {
    // Each demo name is pinned to the demo's server: loopback as a whole stays guarded.
    std::vector<std::string> flags = {"--ca-file", ca_file().string()};
    for (auto& a : server_->allow_hosts(hosts_)) {
        flags.emplace_back("--allow-host");
        flags.push_back(std::move(a));
    }
    for (auto& c : connect_to()) {
        flags.emplace_back("--connect-to");
        flags.push_back(std::move(c));
    }
    return flags;
}

}  // namespace credence::agent
