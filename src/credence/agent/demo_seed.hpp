// The demo (docs/agent.md): seeds a devnet with a small, realistic world and serves the documents
// it points to, so the indexer, the verifiers, the trust engine and the explorer have something
// true and something false to show.
//
// What seed() puts on chain (every key, name and value is derived deterministically from fixed
// labels, so two runs on fresh devnets produce the same world):
//   - 24 agents (ERC-8004 Identity Registry) owned by 4 owner accounts, registration files at
//     https://registry.demo.localhost/agents/<name>.json, each with an MCP endpoint on its own
//     domain <name>.demo.localhost. The domain proofs (ERC-8004 §Endpoint Domain Verification)
//     are right for some and wrong for real reasons: a correct
//     /.well-known/agent-registration.json, none at all (HTTP 404), one naming another agentId,
//     one naming another registry; one agent's registration file itself is missing (404);
//   - 60 clients: 24 honest ones that each rate 3 agents, every fourth also theta (most paying
//     the agent's owner first and citing the payment as x402 `proofOfPayment` in a data:
//     feedback file), and a Sybil
//     cluster of 36 fresh addresses, funded by one operator, that all give the bad agent
//     (`theta`, rated low by the honest clients) 100; owners' responses and clients' revocations;
//   - validation requests (ERC-8004 §Validation Registry) answered by two in-process validators
//     (agent::Validator), and one request whose requestURI does not hash to requestHash, which
//     the validator refuses;
//   - the six ERC-8301 scenarios (SingleStage, InputProvenance, CompetitiveBid,
//     SequentialPipeline, BFTCommitReveal, ParallelAudit), each run to completion by in-process
//     agent::TaskWorker instances (three owners' keys; the funder signs the attestation proofs,
//     as the devnet's ECDSA attester), with the evidence chain of each run verified;
//   - 6 tools (ERC-8257) with manifests at https://tools.demo.localhost/.well-known/ai-tool/
//     <slug>.json: two canonical, and one each failing §7 with hash_mismatch, origin_mismatch,
//     creator_mismatch and (after the four checks) a schema error.
// `funder` (anvil's first development key by default) funds the owners, validators and tool
// creator, an exchange (which funds the honest clients among 40 customers who never rate) and the
// Sybils' operator (which funds the Sybils): a real chain's shape (docs/trust.md §Funding).
//
// Idempotence: the outcome is saved as <state_dir>/demo-state.json; a later start on the same
// chain finds it, checks that the chain still holds the first agent with the same URI, and only
// restarts the HTTPS server. The CA in state_dir stays (demo_https.hpp).
//
// Errors: DemoFailure (one line); nothing throws. Thread-safety: one owner; the HTTPS server
// answers on its own thread while the Demo lives. Ownership: the Demo owns the server.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/agent/demo_https.hpp>
#include <credence/core/address.hpp>
#include <credence/core/secp256k1.hpp>

namespace credence::agent {

enum class DemoError {
    rpc,    ///< the node failed or could not be reached
    send,   ///< a transaction failed (its revert named in the detail)
    abi,    ///< encoding a call or decoding a result failed
    https,  ///< the demo CA or the HTTPS server failed (DemoHttpsError in the detail)
    state,  ///< the state directory or its demo-state.json cannot be used
    agent,  ///< a validator or task worker failed
};
[[nodiscard]] std::string_view to_string(DemoError e) noexcept;

struct DemoFailure {
    DemoError code = DemoError::rpc;
    std::string detail;
};
template <typename T>
using DemoResult = std::expected<T, DemoFailure>;

struct DemoOptions {
    std::string rpc_url;
    uint64_t chain_id = 0;
    /// The deployment's contracts by name ("IdentityRegistry", ...).
    std::map<std::string, core::Address, std::less<>> contracts;
    std::filesystem::path state_dir;
    int https_port = 0;  ///< 0: a free port
    /// One line per phase (nullptr: silent).
    std::function<void(std::string_view)> progress;
};

/// An agent as seeded, and what verifying its endpoint domain must give
/// (verify/rules/domain_check.hpp DomainReason names), or "fetch_failed" for the agent whose
/// registration file is missing.
struct DemoAgent {
    uint64_t agent_id = 0;
    std::string name;
    std::string domain;
    std::string expected_domain;
    core::Address owner;
};

/// A record of the earlier ERC-8004 revisions (demo_seed_revisions.hpp).
struct DemoEarlierAgent {
    std::string revision;  ///< "score" (the intermediate revision) or "draft" (the first draft)
    std::string role;      ///< "server" (the demo agent that moved), "client" or "validator"
    uint64_t agent_id = 0;
    core::Address owner;  ///< the first draft's AgentAddress
    std::string domain;   ///< the first draft's AgentDomain ("" in the intermediate revision)
    size_t feedback = 0;  ///< scores given (score) or feedback authorizations (draft)
    size_t validations = 0;
};

/// A tool as seeded and its expected ERC-8257 §7 outcome ("canonical" or the reason code).
struct DemoTool {
    uint64_t tool_id = 0;
    std::string slug;
    std::string expected;
};

/// One ERC-8301 scenario run by in-process task workers.
struct DemoRun {
    std::string workflow;  ///< the contract's name in the deployment
    std::string run_id;    ///< 0x-hex
    bool completed = false;
    bool evidence_valid = false;  ///< verify/verifiers/evidence.hpp verify_run() on the live chain
};

struct DemoSummary {
    bool already_seeded = false;
    uint64_t chain_id = 0;
    std::vector<DemoAgent> agents;
    std::vector<DemoTool> tools;
    size_t clients = 0;
    size_t sybil_clients = 0;
    /// The Sybil cluster's addresses (funded by one operator, docs/demo.md), so a test or a user
    /// can compare the target's score with its honest-only score.
    std::vector<core::Address> sybil_addresses;
    uint64_t sybil_target = 0;  ///< agentId of the agent the Sybil cluster inflates
    size_t feedback = 0;
    size_t paid_feedback = 0;
    size_t responses = 0;
    size_t revocations = 0;
    size_t validations_answered = 0;
    size_t validations_refused = 0;
    std::vector<DemoRun> runs;
    /// The earlier ERC-8004 revisions' records, when the deployment has their registries.
    std::vector<DemoEarlierAgent> earlier_revisions;
    [[nodiscard]] nlohmann::json to_json() const;
    [[nodiscard]] static std::expected<DemoSummary, std::string> from_json(const nlohmann::json& j);
};

class Demo {
public:
    /// Seeds the chain (unless demo-state.json says it is seeded already) and starts serving.
    /// `funder` pays for every demo account (borrowed for the call).
    [[nodiscard]] static DemoResult<std::unique_ptr<Demo>> start(const DemoOptions& options,
                                                                 const core::SecretKey& funder);
    ~Demo();
    Demo(const Demo&) = delete;
    Demo& operator=(const Demo&) = delete;

    [[nodiscard]] const DemoSummary& summary() const noexcept { return summary_; }
    [[nodiscard]] int port() const noexcept;
    /// The CA file verifiers pass as --ca-file.
    [[nodiscard]] const std::filesystem::path& ca_file() const noexcept;
    /// The --connect-to mappings of every demo host.
    [[nodiscard]] std::vector<std::string> connect_to() const;
    /// The fetch flags a verifier needs (--ca-file, --allow-host, --connect-to...).
    [[nodiscard]] std::vector<std::string> fetch_flags() const;

private:
    Demo() = default;
    DemoSummary summary_;
    DemoCertificates certificates_;
    std::unique_ptr<DemoHttpsServer> server_;
    std::vector<std::string> hosts_;
};

/// Every host name the demo serves.
[[nodiscard]] std::vector<std::string> demo_hosts();

}  // namespace credence::agent
