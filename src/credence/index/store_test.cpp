// IndexStore and its projection rules against both real backends (a SQLite file in the scratch
// directory, a fresh database on the real PostgreSQL test server), fed with REAL logs: a devnet
// (anvil with every Credence contract) receives real transactions (agents, feedback, responses,
// validations, tools, a SingleStageWorkflow run with its proof), and eth_getLogs returns what the
// store ingests. One test per projection rule, named after it; the projections are also checked
// against the contracts' own view functions, and rollback against a fresh index (store.hpp).
#include <algorithm>
#include <array>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include <credence/chain/bindings/bft_commit_reveal_workflow.hpp>
#include <credence/chain/bindings/competitive_bid_workflow.hpp>
#include <credence/chain/bindings/ecdsa_attestation_verifier.hpp>
#include <credence/chain/bindings/i_agent_verifier.hpp>
#include <credence/chain/bindings/i_agent_workflow.hpp>
#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/input_provenance_workflow.hpp>
#include <credence/chain/bindings/parallel_audit_workflow.hpp>
#include <credence/chain/bindings/permissioned_single_stage_workflow.hpp>
#include <credence/chain/bindings/reputation_registry.hpp>
#include <credence/chain/bindings/sequential_pipeline_workflow.hpp>
#include <credence/chain/bindings/single_stage_workflow.hpp>
#include <credence/chain/bindings/tool_registry.hpp>
#include <credence/chain/bindings/validation_registry.hpp>
#include <credence/chain/txn_sender.hpp>
#include <credence/core/eip712.hpp>
#include <credence/core/keccak.hpp>
#include <credence/core/secp256k1.hpp>
#include <credence/index/projector.hpp>
#include <credence/index/schema.hpp>
#include <credence/index/store.hpp>
#include <support/devnet.hpp>
#include <support/postgres.hpp>
#include <support/scratch.hpp>

namespace credence::index {
namespace {

using core::Address;
using core::Bytes;
using core::Hash32;
using core::Uint256;

namespace idr = chain::bindings::identity_registry;
namespace rep = chain::bindings::reputation_registry;
namespace val = chain::bindings::validation_registry;
namespace tr = chain::bindings::tool_registry;
namespace wf = chain::bindings::i_agent_workflow;
namespace sw = chain::bindings::single_stage_workflow;
namespace av = chain::bindings::i_agent_verifier;
namespace ver = chain::bindings::ecdsa_attestation_verifier;

Bytes b(const Address& a) { return {a.bytes.begin(), a.bytes.end()}; }
Bytes b(const Hash32& h) { return {h.begin(), h.end()}; }
Bytes id32(uint64_t v) { return b(Uint256{v}.to_word()); }
Hash32 kk(std::string_view s) { return core::keccak256(s); }

chain::CallRequest call_to(const Address& to, Bytes data) {
    chain::CallRequest req;
    req.to = to;
    req.data = std::move(data);
    return req;
}

// ───────────────────────────── the devnet scenario ─────────────────────────────

// Accounts: 0 deployer and ECDSA attester, 1 Alice, 2 Bob, 3 Carol, 4 and 5 clients, 6 validator
// and operator, 7 tool creator and operator, 8 workflow caller, 9 replier.
constexpr size_t kAlice = 1, kBob = 2, kCarol = 3, kClient1 = 4, kClient2 = 5, kValidator = 6,
                 kToolCreator = 7, kCaller = 8, kReplier = 9;

struct Scenario {
    std::string error;  // non-empty: the scenario could not be built
    std::unique_ptr<testing::Devnet> devnet;
    uint64_t chain_id = 0;
    uint64_t head = 0;
    Address identity, reputation, validation, tools, workflow, verifier, predicate, permissioned;
    std::vector<Address> accounts;
    std::vector<std::pair<Address, ContractKind>> sources;
    std::vector<IngestLog> logs;  // every log of the sources, sorted, with task / reply details
    Hash32 request_hash{}, run_id{}, task_hash{}, reply_hash{}, operation_id{};
    Bytes input, output;

    [[nodiscard]] Address account(size_t i) const { return accounts.at(i); }
    /// Block of the n-th log (0-based) with this topic0 from this address.
    [[nodiscard]] uint64_t block_of(const Address& a, const Hash32& topic0, size_t n = 0) const {
        for (const auto& l : logs) {
            if (l.log.address == a && !l.log.topics.empty() && l.log.topics[0] == topic0) {
                if (n == 0) return l.log.block_num;
                --n;
            }
        }
        ADD_FAILURE() << "no such log in the scenario";
        return 0;
    }
    [[nodiscard]] const IngestLog& first_log(const Address& a, const Hash32& topic0) const {
        for (const auto& l : logs) {
            if (l.log.address == a && !l.log.topics.empty() && l.log.topics[0] == topic0) return l;
        }
        static const IngestLog kNone;
        ADD_FAILURE() << "no such log in the scenario";
        return kNone;
    }
    /// Logs with block_num in [from, to].
    [[nodiscard]] std::vector<IngestLog> logs_in(uint64_t from, uint64_t to) const {
        std::vector<IngestLog> out;
        for (const auto& l : logs) {
            if (l.log.block_num >= from && l.log.block_num <= to) out.push_back(l);
        }
        return out;
    }
};

/// Sends real transactions from the dev accounts.
class Txns {
public:
    explicit Txns(testing::Devnet& d) : rpc_(d.rpc()) {
        for (size_t i = 0; i < 10; ++i) {
            keys_.push_back(std::make_unique<core::SecretKey>(d.secret_key(i)));
            senders_.push_back(std::make_unique<chain::TxnSender>(rpc_, *keys_.back()));
        }
    }
    std::expected<chain::Receipt, std::string> send(size_t from, const Address& to,
                                                    core::Result<Bytes, core::AbiError> data) {
        if (!data) return std::unexpected("calldata: " + data.error().detail);
        chain::TxnRequest req;
        req.to = to;
        req.data = std::move(*data);
        auto r = senders_.at(from)->send(req);
        if (!r)
            return std::unexpected(std::string(chain::to_string(r.error().code)) + ": " +
                                   r.error().detail);
        return std::move(*r);
    }
    chain::RpcClient& rpc() { return rpc_; }
    const core::SecretKey& key(size_t i) { return *keys_.at(i); }

private:
    chain::RpcClient rpc_;
    std::vector<std::unique_ptr<core::SecretKey>> keys_;
    std::vector<std::unique_ptr<chain::TxnSender>> senders_;
};

#define SCENARIO_STEP(expr)                                              \
    do {                                                                 \
        auto step_result_ = (expr);                                      \
        if (!step_result_) {                                             \
            s->error = std::string(#expr) + ": " + step_result_.error(); \
            return s;                                                    \
        }                                                                \
    } while (0)

std::unique_ptr<Scenario> build_scenario() {
    auto s = std::make_unique<Scenario>();
    auto devnet = testing::Devnet::start();
    if (!devnet) {
        s->error = "devnet: " + devnet.error();
        return s;
    }
    s->devnet = std::move(*devnet);
    testing::Devnet& d = *s->devnet;
    s->chain_id = d.chain_id();
    for (size_t i = 0; i < 10; ++i) s->accounts.push_back(d.dev_address(i));
    s->identity = d.address("IdentityRegistry");
    s->reputation = d.address("ReputationRegistry");
    s->validation = d.address("ValidationRegistry");
    s->tools = d.address("ToolRegistry");
    s->workflow = d.address("SingleStageWorkflow");
    s->verifier = d.address("ECDSAAttestationVerifier");
    s->predicate = d.address("AllowlistPredicate");
    s->permissioned = d.address("PermissionedSingleStageWorkflow");
    s->sources = {{s->identity, ContractKind::identity_registry},
                  {s->reputation, ContractKind::reputation_registry},
                  {s->validation, ContractKind::validation_registry},
                  {s->tools, ContractKind::tool_registry},
                  {s->workflow, ContractKind::workflow},
                  {s->verifier, ContractKind::agent_verifier},
                  {s->permissioned, ContractKind::workflow}};
    Txns t(d);
    auto& rpc = t.rpc();
    const auto latest_ts = [&]() -> uint64_t {
        auto blk = rpc.get_block_by_number(chain::BlockId::latest());
        return blk && *blk ? (*blk)->timestamp : 0;
    };

    // ERC-8004 identity: agents 0 (Alice) and 1 (Bob).
    SCENARIO_STEP(t.send(kAlice, s->identity, idr::register_1("ipfs://agent-a")));
    const std::vector<idr::MetadataEntry> bob_meta{{"name", Bytes{'B', 'o', 'b'}}};
    SCENARIO_STEP(
        t.send(kBob, s->identity, idr::register_2("https://b.example/agent.json", bob_meta)));
    SCENARIO_STEP(t.send(kAlice, s->identity, idr::set_agent_uri(Uint256{0}, "ipfs://agent-a-v2")));
    SCENARIO_STEP(t.send(kAlice, s->identity,
                         idr::set_metadata(Uint256{0}, "skills", Bytes{0x01, 0x02, 0x03})));
    {
        // ERC-8004: the new wallet (Carol) signs AgentWalletSet over EIP-712.
        const Uint256 deadline{latest_ts() + 120};
        const auto digest = core::agent_wallet_set_digest(Uint256{s->chain_id}, s->identity.bytes,
                                                          Uint256{0}, s->account(kCarol).bytes,
                                                          s->account(kAlice).bytes, deadline);
        auto sig = core::sign_digest(t.key(kCarol), digest);
        if (!sig) {
            s->error = "sign wallet";
            return s;
        }
        const auto sig_bytes = sig->to_bytes_v27();
        SCENARIO_STEP(t.send(kAlice, s->identity,
                             idr::set_agent_wallet(Uint256{0}, s->account(kCarol), deadline,
                                                   Bytes(sig_bytes.begin(), sig_bytes.end()))));
    }
    SCENARIO_STEP(t.send(kBob, s->identity, idr::unset_agent_wallet(Uint256{1})));
    SCENARIO_STEP(t.send(kAlice, s->identity, idr::approve(s->account(kClient2), Uint256{0})));
    SCENARIO_STEP(
        t.send(kAlice, s->identity, idr::set_approval_for_all(s->account(kValidator), true)));
    SCENARIO_STEP(
        t.send(kAlice, s->identity, idr::set_approval_for_all(s->account(kToolCreator), true)));
    SCENARIO_STEP(
        t.send(kAlice, s->identity, idr::set_approval_for_all(s->account(kToolCreator), false)));
    SCENARIO_STEP(t.send(kAlice, s->identity,
                         idr::transfer_from(s->account(kAlice), s->account(kCarol), Uint256{0})));

    // ERC-8004 reputation, on Bob's agent 1.
    SCENARIO_STEP(t.send(kClient1, s->reputation,
                         rep::give_feedback(Uint256{1}, core::Int256{9977}, 2, "quality", "speed",
                                            "https://api.b.example", "ipfs://fb-1", kk("fb-1"))));
    SCENARIO_STEP(t.send(kClient2, s->reputation,
                         rep::give_feedback(Uint256{1}, core::Int256{32}.negate(), 1, "quality", "",
                                            "", "", Hash32{})));
    SCENARIO_STEP(
        t.send(kClient1, s->reputation,
               rep::give_feedback(Uint256{1}, core::Int256{5}, 0, "uptime", "", "", "", Hash32{})));
    SCENARIO_STEP(t.send(kClient1, s->reputation, rep::revoke_feedback(Uint256{1}, 1)));
    SCENARIO_STEP(t.send(
        kBob, s->reputation,
        rep::append_response(Uint256{1}, s->account(kClient1), 2, "ipfs://resp-1", kk("resp-1"))));
    SCENARIO_STEP(t.send(
        kValidator, s->reputation,
        rep::append_response(Uint256{1}, s->account(kClient1), 2, "ipfs://resp-2", kk("resp-2"))));

    // ERC-8004 validation.
    s->request_hash = kk("req-1");
    SCENARIO_STEP(t.send(kBob, s->validation,
                         val::validation_request(s->account(kValidator), Uint256{1}, "ipfs://req-1",
                                                 s->request_hash)));
    SCENARIO_STEP(
        t.send(kValidator, s->validation,
               val::validation_response(s->request_hash, 80, "ipfs://vr-1", kk("vr-1"), "soft")));
    SCENARIO_STEP(
        t.send(kValidator, s->validation,
               val::validation_response(s->request_hash, 100, "ipfs://vr-2", kk("vr-2"), "hard")));

    // A scenario event: Bob enrolls his agent as a replier of the permissioned workflow.
    SCENARIO_STEP(t.send(kBob, s->permissioned,
                         chain::bindings::permissioned_single_stage_workflow::enroll(Uint256{1})));

    // ERC-8257 tools 1 (updated, gated) and 2 (deregistered).
    SCENARIO_STEP(t.send(kToolCreator, s->tools,
                         tr::register_tool("ipfs://tool-a", kk("manifest-a"), Address{})));
    SCENARIO_STEP(
        t.send(kToolCreator, s->tools,
               tr::update_tool_metadata(Uint256{1}, "ipfs://tool-a-v2", kk("manifest-a2"))));
    SCENARIO_STEP(
        t.send(kToolCreator, s->tools, tr::set_access_predicate(Uint256{1}, s->predicate)));
    SCENARIO_STEP(t.send(kToolCreator, s->tools,
                         tr::register_tool("ipfs://tool-b", kk("manifest-b"), Address{})));
    SCENARIO_STEP(t.send(kToolCreator, s->tools, tr::deregister_tool(Uint256{2})));

    // ERC-8301 SingleStageWorkflow: run -> task, reply, proof (ECDSA attestation) -> Success.
    const std::string input_text = "summarise block 42";
    s->input.assign(input_text.begin(), input_text.end());
    auto run = t.send(kCaller, s->workflow, sw::run(kk(input_text), s->input, Uint256{0}));
    if (!run) {
        s->error = "run: " + run.error();
        return s;
    }
    for (const auto& l : run->logs) {
        if (auto e = wf::decode_new_agent_task_event(l.topics, l.data)) {
            s->run_id = e->workflow_run_id;
            s->task_hash = e->task_hash;
        }
    }
    auto task_data = rpc.call(call_to(s->workflow, *wf::get_agent_task(s->task_hash)));
    if (!task_data) {
        s->error = "getAgentTask: " + task_data.error().message;
        return s;
    }
    auto task = wf::decode_get_agent_task_result(*task_data);
    if (!task) {
        s->error = "getAgentTask result";
        return s;
    }
    // ERC-8301: reply.timestamp > the task's anchor time and <= block.timestamp.
    (void)rpc.request("evm_increaseTime", nlohmann::json::array({5}));
    const std::string output_text = "block 42 holds 3 transfers";
    s->output.assign(output_text.begin(), output_text.end());
    s->operation_id = kk("operation-1");
    wf::AgentReply reply;
    reply.operation_id = s->operation_id;
    reply.output_hash = kk(output_text);
    reply.output = s->output;
    reply.timestamp = Uint256{task->task.timestamp.limbs[0] + 1};
    reply.replier = s->account(kReplier);
    reply.prev_task_hashes = {s->task_hash};
    reply.workflow_run_id = s->run_id;
    auto replied = t.send(kReplier, s->workflow, wf::on_agent_reply(reply));
    if (!replied) {
        s->error = "onAgentReply: " + replied.error();
        return s;
    }
    for (const auto& l : replied->logs) {
        if (auto e = wf::decode_agent_reply_anchored_event(l.topics, l.data)) {
            s->reply_hash = e->reply_hash;
        }
    }
    {
        // ECDSAAttestationVerifier: AgentAttestation(taskId = runId, agentId = replier, inputHash,
        // outputHash) signed by the attester over its EIP-712 domain.
        core::Eip712Domain domain;
        domain.name = "CredenceECDSAVerifier";
        domain.version = "1";
        domain.chain_id = Uint256{s->chain_id};
        domain.verifying_contract = s->verifier.bytes;
        Hash32 agent_key{};
        std::copy(reply.replier.bytes.begin(), reply.replier.bytes.end(), agent_key.begin() + 12);
        const Hash32 type_hash =
            kk("AgentAttestation(bytes32 taskId,bytes32 agentId,bytes32 inputHash,bytes32 "
               "outputHash)");
        const Hash32 struct_hash = core::keccak256(core::concat(
            {type_hash, s->run_id, agent_key, task->task.input_hash, reply.output_hash}));
        const auto digest = core::eip712_digest(core::domain_separator(domain), struct_hash);
        auto sig = core::sign_digest(t.key(0), digest);
        if (!sig) {
            s->error = "sign attestation";
            return s;
        }
        const auto proof = sig->to_bytes_v27();
        const std::vector<Hash32> replies{s->reply_hash};
        SCENARIO_STEP(t.send(kReplier, s->workflow,
                             wf::on_agent_prove(replies, Bytes(proof.begin(), proof.end()))));
    }

    // Every log of the sources, with the getAgentTask / getAgentReply detail at its block.
    auto head = rpc.block_number();
    if (!head) {
        s->error = "eth_blockNumber";
        return s;
    }
    s->head = *head;
    chain::LogFilter filter;
    filter.from_block = chain::BlockId{uint64_t{0}};
    filter.to_block = chain::BlockId{s->head};
    for (const auto& [a, k] : s->sources) filter.addresses.push_back(a);
    auto logs = rpc.get_logs(filter);
    if (!logs) {
        s->error = "eth_getLogs: " + logs.error().message;
        return s;
    }
    for (const chain::Log& l : *logs) {
        IngestLog in;
        in.log = RawLog{l.block_num, l.block_hash, l.txn_hash, l.txn_index, l.log_index,
                        l.address,   l.topics,     l.data,     false,       l.block_timestamp};
        for (const auto& [a, k] : s->sources) {
            if (a == l.address) in.kind = k;
        }
        if (auto call = detail_call(in.log, in.kind)) {
            auto detail = rpc.call(*call, chain::BlockId{l.block_num});
            if (!detail) {
                s->error = "detail call: " + detail.error().message;
                return s;
            }
            in.detail = std::move(*detail);
        }
        s->logs.push_back(std::move(in));
    }
    std::sort(s->logs.begin(), s->logs.end(), [](const IngestLog& x, const IngestLog& y) {
        return std::pair(x.log.block_num, x.log.log_index) <
               std::pair(y.log.block_num, y.log.log_index);
    });
    return s;
}

/// Built once per test process (each test of a ctest run is its own process).
const Scenario& scenario() {
    static const std::unique_ptr<Scenario> kScenario = build_scenario();
    return *kScenario;
}

#define REQUIRE_SCENARIO()           \
    const Scenario& sc = scenario(); \
    ASSERT_TRUE(sc.error.empty()) << "scenario: " << sc.error

// ───────────────────────────── store fixture, both backends ─────────────────────────────

enum class Backend { sqlite, postgres };

std::unique_ptr<Database> open_backend(Backend backend) {
    static std::atomic<int> counter{0};
    std::string location;
    if (backend == Backend::sqlite) {
        location =
            (testing::scratch_dir() / ("store_" + std::to_string(counter++) + ".sqlite")).string();
    } else {
        auto url = testing::postgres_test_url();
        EXPECT_TRUE(url.has_value()) << "PostgreSQL test server: " << url.error();
        if (!url) return nullptr;
        location = *url;
    }
    auto db = open_database(location);
    EXPECT_TRUE(db.has_value()) << db.error().to_string();
    return db ? std::move(*db) : nullptr;
}

/// A database and its store.
struct Indexed {
    std::unique_ptr<Database> db;
    std::optional<IndexStore> store;
};

Indexed open_indexed(Backend backend) {
    Indexed out;
    out.db = open_backend(backend);
    if (!out.db) return out;
    auto store = IndexStore::open(*out.db);
    EXPECT_TRUE(store.has_value()) << store.error().to_string();
    if (store) out.store.emplace(std::move(*store));
    return out;
}

class index_store : public ::testing::TestWithParam<Backend> {
protected:
    void SetUp() override {
        idx_ = open_indexed(GetParam());
        ASSERT_TRUE(idx_.store.has_value());
    }
    IndexStore& store() { return *idx_.store; }
    Database& db() { return *idx_.db; }

    /// Commits the scenario's logs of blocks [from, to] as one batch whose cursor is `to`.
    BatchOutcome commit(const Scenario& sc, uint64_t from, uint64_t to) {
        Batch batch;
        batch.chain_id = sc.chain_id;
        batch.to_block = to;
        batch.logs = sc.logs_in(from, to);
        auto r = store().commit_batch(batch);
        EXPECT_TRUE(r.has_value()) << r.error().to_string();
        if (!r) return {};
        for (const auto& rej : r->rejected) ADD_FAILURE() << "rejected: " << rej.reason;
        return *r;
    }
    void commit_all(const Scenario& sc) { commit(sc, 0, sc.head); }

    std::vector<DbRow> rows(std::string_view sql, std::initializer_list<DbValue> params) {
        auto r = db().query(sql, std::span<const DbValue>(params.begin(), params.size()));
        EXPECT_TRUE(r.has_value()) << r.error().to_string();
        return r ? *r : std::vector<DbRow>{};
    }
    /// The single value of a one-row, one-column query (monostate when there is no row).
    DbValue one(std::string_view sql, std::initializer_list<DbValue> params) {
        auto r = rows(sql, params);
        EXPECT_EQ(r.size(), 1U) << sql;
        return r.size() == 1 && !r[0].empty() ? r[0][0] : DbValue{};
    }
    int64_t count(std::string_view sql, std::initializer_list<DbValue> params) {
        auto v = one(sql, params);
        return std::holds_alternative<int64_t>(v) ? std::get<int64_t>(v) : -1;
    }
    std::string dump() {
        auto d = canonical_dump(db(), IndexStore::data_tables());
        EXPECT_TRUE(d.has_value()) << d.error().to_string();
        return d ? *d : std::string{};
    }
    /// The dump of a fresh store that committed the scenario's blocks [0, to] as one batch.
    std::string fresh_dump(const Scenario& sc, uint64_t to) {
        Indexed fresh = open_indexed(GetParam());
        EXPECT_TRUE(fresh.store.has_value());
        if (!fresh.store) return {};
        Batch batch;
        batch.chain_id = sc.chain_id;
        batch.to_block = to;
        batch.logs = sc.logs_in(0, to);
        EXPECT_TRUE(fresh.store->commit_batch(batch).has_value());
        auto d = canonical_dump(*fresh.db, IndexStore::data_tables());
        EXPECT_TRUE(d.has_value()) << d.error().to_string();
        return d ? *d : std::string{};
    }

    Indexed idx_;
};

INSTANTIATE_TEST_SUITE_P(backends, index_store,
                         ::testing::Values(Backend::sqlite, Backend::postgres), [](const auto& p) {
                             return p.param == Backend::sqlite ? "sqlite" : "postgres";
                         });

DbValue i64(int64_t v) { return v; }
DbValue blob(const Bytes& v) { return v; }

// ───────────────────────────── identity registry rules ─────────────────────────────

TEST_P(index_store, transfer_sets_owner_and_clears_wallet_and_approval) {
    REQUIRE_SCENARIO();
    const uint64_t transfer = sc.block_of(sc.identity, idr::kTransferTopic, 2);  // after 2 mints
    commit(sc, 0, transfer - 1);
    const auto agent0 = {i64(static_cast<int64_t>(sc.chain_id)), blob(b(sc.identity)),
                         blob(id32(0))};
    auto before = rows(
        "SELECT owner, wallet, approved FROM agents WHERE chain_id = $1 AND "
        "registry = $2 AND agent_id = $3",
        agent0);
    ASSERT_EQ(before.size(), 1U);
    EXPECT_EQ(before[0][0], DbValue(b(sc.account(kAlice))));
    EXPECT_EQ(before[0][1], DbValue(b(sc.account(kCarol))));
    EXPECT_EQ(before[0][2], DbValue(b(sc.account(kClient2))));
    commit(sc, transfer, sc.head);
    auto after = rows(
        "SELECT owner, wallet, approved FROM agents WHERE chain_id = $1 AND "
        "registry = $2 AND agent_id = $3",
        agent0);
    ASSERT_EQ(after.size(), 1U);
    EXPECT_EQ(after[0][0], DbValue(b(sc.account(kCarol))));
    EXPECT_EQ(after[0][1], DbValue{});  // IdentityRegistry._transfer clears the wallet
    EXPECT_EQ(after[0][2], DbValue{});  // and the token approval
    auto transfers = rows(
        "SELECT from_address, to_address FROM agent_transfers WHERE chain_id = "
        "$1 AND registry = $2 AND agent_id = $3 ORDER BY block_num",
        agent0);
    ASSERT_EQ(transfers.size(), 2U);  // the mint and the transfer
    EXPECT_EQ(transfers[0][0], DbValue(b(Address{})));
    EXPECT_EQ(transfers[1][0], DbValue(b(sc.account(kAlice))));
    EXPECT_EQ(transfers[1][1], DbValue(b(sc.account(kCarol))));
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_history WHERE chain_id = $1 AND registry = $2 AND "
                    "agent_id = $3 AND event = 'Transfer'",
                    agent0),
              2);
}

TEST_P(index_store, registered_sets_owner_uri_and_registration) {
    REQUIRE_SCENARIO();
    commit_all(sc);
    const auto& reg = sc.first_log(sc.identity, idr::kRegisteredTopic);
    auto r = rows(
        "SELECT owner, agent_uri, registered_block_num, registered_txn_hash FROM agents "
        "WHERE chain_id = $1 AND registry = $2 AND agent_id = $3",
        {i64(static_cast<int64_t>(sc.chain_id)), blob(b(sc.identity)), blob(id32(1))});
    ASSERT_EQ(r.size(), 1U);
    EXPECT_EQ(r[0][0], DbValue(b(sc.account(kBob))));
    EXPECT_EQ(r[0][1], DbValue(std::string("https://b.example/agent.json")));
    EXPECT_EQ(r[0][2],
              DbValue(static_cast<int64_t>(sc.block_of(sc.identity, idr::kRegisteredTopic, 1))));
    EXPECT_EQ(std::get<Bytes>(r[0][3]).size(), 32U);
    EXPECT_NE(r[0][3], DbValue(b(reg.log.txn_hash)));  // Bob's registration, not Alice's
}

TEST_P(index_store, uri_updated_replaces_agent_uri) {
    REQUIRE_SCENARIO();
    commit_all(sc);
    EXPECT_EQ(one("SELECT agent_uri FROM agents WHERE registry = $1 AND agent_id = $2",
                  {blob(b(sc.identity)), blob(id32(0))}),
              DbValue(std::string("ipfs://agent-a-v2")));
    auto h = rows(
        "SELECT actor, text_value FROM agent_history WHERE registry = $1 AND agent_id = "
        "$2 AND event = 'URIUpdated'",
        {blob(b(sc.identity)), blob(id32(0))});
    ASSERT_EQ(h.size(), 1U);
    EXPECT_EQ(h[0][0], DbValue(b(sc.account(kAlice))));
    EXPECT_EQ(h[0][1], DbValue(std::string("ipfs://agent-a-v2")));
}

TEST_P(index_store, metadata_set_upserts_key_value) {
    REQUIRE_SCENARIO();
    commit_all(sc);
    EXPECT_EQ(one("SELECT metadata_value FROM agent_metadata WHERE registry = $1 AND agent_id = $2 "
                  "AND metadata_key = $3",
                  {blob(b(sc.identity)), blob(id32(0)), DbValue(std::string("skills"))}),
              DbValue(Bytes{0x01, 0x02, 0x03}));
    EXPECT_EQ(one("SELECT metadata_value FROM agent_metadata WHERE registry = $1 AND agent_id = $2 "
                  "AND metadata_key = $3",
                  {blob(b(sc.identity)), blob(id32(1)), DbValue(std::string("name"))}),
              DbValue(Bytes{'B', 'o', 'b'}));
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_history WHERE registry = $1 AND event = "
                    "'MetadataSet'",
                    {blob(b(sc.identity))}),
              7);  // 2 mints, name, skills, set wallet, unset wallet, wallet cleared by transfer
}

TEST_P(index_store, metadata_set_agent_wallet_sets_and_clears_wallet) {
    REQUIRE_SCENARIO();
    // The 3rd agentWallet MetadataSet of the chain is Alice's setAgentWallet(Carol).
    const uint64_t set_wallet = sc.block_of(sc.identity, idr::kMetadataSetTopic, 4);
    commit(sc, 0, set_wallet - 1);
    const auto wallet_of = [&](uint64_t agent) {
        return one("SELECT wallet FROM agents WHERE registry = $1 AND agent_id = $2",
                   {blob(b(sc.identity)), blob(id32(agent))});
    };
    EXPECT_EQ(wallet_of(0), DbValue(b(sc.account(kAlice))));  // the owner, from the mint
    commit(sc, set_wallet, sc.head);
    EXPECT_EQ(wallet_of(1), DbValue{});  // Bob's unsetAgentWallet
    EXPECT_EQ(one("SELECT metadata_value FROM agent_metadata WHERE registry = $1 AND agent_id = $2 "
                  "AND metadata_key = 'agentWallet'",
                  {blob(b(sc.identity)), blob(id32(1))}),
              DbValue(Bytes{}));
}

TEST_P(index_store, metadata_set_agent_wallet_to_a_custom_wallet) {
    REQUIRE_SCENARIO();
    const uint64_t transfer = sc.block_of(sc.identity, idr::kTransferTopic, 2);
    commit(sc, 0, transfer - 1);
    EXPECT_EQ(one("SELECT wallet FROM agents WHERE registry = $1 AND agent_id = $2",
                  {blob(b(sc.identity)), blob(id32(0))}),
              DbValue(b(sc.account(kCarol))));
}

TEST_P(index_store, approval_sets_approved_address) {
    REQUIRE_SCENARIO();
    const uint64_t approval = sc.block_of(sc.identity, idr::kApprovalTopic);
    commit(sc, 0, approval);
    EXPECT_EQ(one("SELECT approved FROM agents WHERE registry = $1 AND agent_id = $2",
                  {blob(b(sc.identity)), blob(id32(0))}),
              DbValue(b(sc.account(kClient2))));
    auto a = rows(
        "SELECT owner, approved FROM agent_approvals WHERE registry = $1 AND agent_id = "
        "$2",
        {blob(b(sc.identity)), blob(id32(0))});
    ASSERT_EQ(a.size(), 1U);
    EXPECT_EQ(a[0][0], DbValue(b(sc.account(kAlice))));
}

TEST_P(index_store, approval_for_all_keeps_current_operator_state) {
    REQUIRE_SCENARIO();
    commit_all(sc);
    const auto approved = [&](size_t op) {
        return one(
            "SELECT approved FROM operator_approvals WHERE registry = $1 AND owner = $2 "
            "AND operator = $3",
            {blob(b(sc.identity)), blob(b(sc.account(kAlice))), blob(b(sc.account(op)))});
    };
    EXPECT_EQ(approved(kValidator), DbValue(int64_t{1}));
    EXPECT_EQ(approved(kToolCreator), DbValue(int64_t{0}));  // approved, then revoked
}

// ───────────────────────────── reputation registry rules ─────────────────────────────

TEST_P(index_store, new_feedback_keeps_exact_value_and_normalizes) {
    REQUIRE_SCENARIO();
    commit_all(sc);
    const auto fb = [&](size_t client, int64_t index) {
        return rows(
            "SELECT value, value_decimals, value_wad, normalized, tag1, tag2, endpoint, "
            "feedback_uri, feedback_hash FROM feedback WHERE registry = $1 AND agent_id = "
            "$2 AND client = $3 AND feedback_index = $4",
            {blob(b(sc.reputation)), blob(id32(1)), blob(b(sc.account(client))), i64(index)});
    };
    auto f1 = fb(kClient1, 1);
    ASSERT_EQ(f1.size(), 1U);
    EXPECT_EQ(f1[0][0], DbValue(std::string("9977")));
    EXPECT_EQ(f1[0][1], DbValue(int64_t{2}));
    EXPECT_EQ(f1[0][2], DbValue(std::string("99770000000000000000")));
    EXPECT_EQ(f1[0][3], DbValue(99.77));
    EXPECT_EQ(f1[0][4], DbValue(std::string("quality")));
    EXPECT_EQ(f1[0][5], DbValue(std::string("speed")));
    EXPECT_EQ(f1[0][6], DbValue(std::string("https://api.b.example")));
    EXPECT_EQ(f1[0][7], DbValue(std::string("ipfs://fb-1")));
    EXPECT_EQ(f1[0][8], DbValue(b(kk("fb-1"))));
    auto f2 = fb(kClient2, 1);
    ASSERT_EQ(f2.size(), 1U);
    EXPECT_EQ(f2[0][0], DbValue(std::string("-32")));
    EXPECT_EQ(f2[0][2], DbValue(std::string("-3200000000000000000")));
    EXPECT_EQ(f2[0][3], DbValue(-3.2));
    EXPECT_EQ(
        count("SELECT COUNT(*) FROM feedback WHERE client = $1", {blob(b(sc.account(kClient1)))}),
        2);
}

TEST_P(index_store, feedback_revoked_marks_only_that_feedback) {
    REQUIRE_SCENARIO();
    commit_all(sc);
    const uint64_t revoke = sc.block_of(sc.reputation, rep::kFeedbackRevokedTopic);
    auto r = rows(
        "SELECT feedback_index, revoked, revoked_block_num FROM feedback WHERE registry "
        "= $1 AND client = $2 ORDER BY feedback_index",
        {blob(b(sc.reputation)), blob(b(sc.account(kClient1)))});
    ASSERT_EQ(r.size(), 2U);
    EXPECT_EQ(r[0][1], DbValue(int64_t{1}));
    EXPECT_EQ(r[0][2], DbValue(static_cast<int64_t>(revoke)));
    EXPECT_EQ(r[1][1], DbValue(int64_t{0}));
    EXPECT_EQ(r[1][2], DbValue{});
}

TEST_P(index_store, response_appended_adds_one_row_per_response) {
    REQUIRE_SCENARIO();
    commit_all(sc);
    auto r = rows(
        "SELECT responder, response_uri, response_hash FROM feedback_responses WHERE "
        "registry = $1 AND agent_id = $2 AND client = $3 AND feedback_index = 2 ORDER "
        "BY block_num, log_index",
        {blob(b(sc.reputation)), blob(id32(1)), blob(b(sc.account(kClient1)))});
    ASSERT_EQ(r.size(), 2U);
    EXPECT_EQ(r[0][0], DbValue(b(sc.account(kBob))));
    EXPECT_EQ(r[0][1], DbValue(std::string("ipfs://resp-1")));
    EXPECT_EQ(r[0][2], DbValue(b(kk("resp-1"))));
    EXPECT_EQ(r[1][0], DbValue(b(sc.account(kValidator))));
}

// ───────────────────────────── validation registry rules ─────────────────────────────

TEST_P(index_store, validation_request_creates_request) {
    REQUIRE_SCENARIO();
    const uint64_t request = sc.block_of(sc.validation, val::kValidationRequestTopic);
    commit(sc, 0, request);
    auto r = rows(
        "SELECT validator, agent_id, request_uri, response, response_count FROM "
        "validation_requests WHERE registry = $1 AND request_hash = $2",
        {blob(b(sc.validation)), blob(b(sc.request_hash))});
    ASSERT_EQ(r.size(), 1U);
    EXPECT_EQ(r[0][0], DbValue(b(sc.account(kValidator))));
    EXPECT_EQ(r[0][1], DbValue(id32(1)));
    EXPECT_EQ(r[0][2], DbValue(std::string("ipfs://req-1")));
    EXPECT_EQ(r[0][3], DbValue{});  // no response yet
    EXPECT_EQ(r[0][4], DbValue(int64_t{0}));
}

TEST_P(index_store, validation_response_keeps_latest_and_history) {
    REQUIRE_SCENARIO();
    commit_all(sc);
    auto r = rows(
        "SELECT response, response_uri, response_hash, response_tag, response_count "
        "FROM validation_requests WHERE registry = $1 AND request_hash = $2",
        {blob(b(sc.validation)), blob(b(sc.request_hash))});
    ASSERT_EQ(r.size(), 1U);
    EXPECT_EQ(r[0][0], DbValue(int64_t{100}));
    EXPECT_EQ(r[0][1], DbValue(std::string("ipfs://vr-2")));
    EXPECT_EQ(r[0][2], DbValue(b(kk("vr-2"))));
    EXPECT_EQ(r[0][3], DbValue(std::string("hard")));
    EXPECT_EQ(r[0][4], DbValue(int64_t{2}));
    auto h = rows(
        "SELECT response, tag FROM validation_responses WHERE registry = $1 AND "
        "request_hash = $2 ORDER BY block_num",
        {blob(b(sc.validation)), blob(b(sc.request_hash))});
    ASSERT_EQ(h.size(), 2U);
    EXPECT_EQ(h[0][0], DbValue(int64_t{80}));
    EXPECT_EQ(h[0][1], DbValue(std::string("soft")));
}

// ───────────────────────────── tool registry rules ─────────────────────────────

TEST_P(index_store, tool_registered_sets_config) {
    REQUIRE_SCENARIO();
    const uint64_t registered = sc.block_of(sc.tools, tr::kToolRegisteredTopic);
    commit(sc, 0, registered);
    auto r = rows(
        "SELECT creator, access_predicate, metadata_uri, manifest_hash, deregistered, "
        "registered_block_num FROM tools WHERE registry = $1 AND tool_id = $2",
        {blob(b(sc.tools)), blob(id32(1))});
    ASSERT_EQ(r.size(), 1U);
    EXPECT_EQ(r[0][0], DbValue(b(sc.account(kToolCreator))));
    EXPECT_EQ(r[0][1], DbValue(b(Address{})));
    EXPECT_EQ(r[0][2], DbValue(std::string("ipfs://tool-a")));
    EXPECT_EQ(r[0][3], DbValue(b(kk("manifest-a"))));
    EXPECT_EQ(r[0][4], DbValue(int64_t{0}));
    EXPECT_EQ(r[0][5], DbValue(static_cast<int64_t>(registered)));
    EXPECT_EQ(
        count("SELECT COUNT(*) FROM tools WHERE creator = $1", {blob(b(sc.account(kToolCreator)))}),
        1);
}

TEST_P(index_store, tool_metadata_updated_replaces_uri_and_hash) {
    REQUIRE_SCENARIO();
    commit_all(sc);
    auto r = rows(
        "SELECT metadata_uri, manifest_hash FROM tools WHERE registry = $1 AND tool_id "
        "= $2",
        {blob(b(sc.tools)), blob(id32(1))});
    ASSERT_EQ(r.size(), 1U);
    EXPECT_EQ(r[0][0], DbValue(std::string("ipfs://tool-a-v2")));
    EXPECT_EQ(r[0][1], DbValue(b(kk("manifest-a2"))));
}

TEST_P(index_store, access_predicate_updated_sets_predicate) {
    REQUIRE_SCENARIO();
    commit_all(sc);
    EXPECT_EQ(one("SELECT access_predicate FROM tools WHERE registry = $1 AND tool_id = $2",
                  {blob(b(sc.tools)), blob(id32(1))}),
              DbValue(b(sc.predicate)));
    auto h = rows(
        "SELECT event FROM tool_history WHERE registry = $1 AND tool_id = $2 ORDER BY "
        "block_num, log_index",
        {blob(b(sc.tools)), blob(id32(1))});
    ASSERT_EQ(h.size(), 3U);
    EXPECT_EQ(h[0][0], DbValue(std::string("ToolRegistered")));
    EXPECT_EQ(h[1][0], DbValue(std::string("ToolMetadataUpdated")));
    EXPECT_EQ(h[2][0], DbValue(std::string("AccessPredicateUpdated")));
}

TEST_P(index_store, tool_deregistered_marks_tool) {
    REQUIRE_SCENARIO();
    commit_all(sc);
    EXPECT_EQ(one("SELECT deregistered FROM tools WHERE registry = $1 AND tool_id = $2",
                  {blob(b(sc.tools)), blob(id32(2))}),
              DbValue(int64_t{1}));
    EXPECT_EQ(one("SELECT deregistered FROM tools WHERE registry = $1 AND tool_id = $2",
                  {blob(b(sc.tools)), blob(id32(1))}),
              DbValue(int64_t{0}));
}

// ───────────────────────────── workflow and verifier rules ─────────────────────────────

TEST_P(index_store, new_agent_task_stores_the_get_agent_task_detail) {
    REQUIRE_SCENARIO();
    const uint64_t task = sc.block_of(sc.workflow, wf::kNewAgentTaskTopic);
    commit(sc, 0, task);
    auto r = rows(
        "SELECT task_hash, stage, task_seq, input_hash, input, timestamp, expires_at, "
        "prev_reply_hashes, proven FROM workflow_tasks WHERE workflow = $1 AND run_id = "
        "$2",
        {blob(b(sc.workflow)), blob(b(sc.run_id))});
    ASSERT_EQ(r.size(), 1U);
    EXPECT_EQ(r[0][0], DbValue(b(sc.task_hash)));
    EXPECT_EQ(r[0][1], DbValue(int64_t{0}));
    EXPECT_TRUE(std::holds_alternative<int64_t>(r[0][2]));
    EXPECT_EQ(r[0][3], DbValue(b(core::keccak256(sc.input))));
    EXPECT_EQ(r[0][4], DbValue(sc.input));
    EXPECT_GT(std::get<int64_t>(r[0][5]), 0);
    EXPECT_EQ(r[0][6], DbValue(int64_t{0}));
    EXPECT_EQ(r[0][7], DbValue(Bytes{}));
    // getAgentTask: proven = every prevReplyHash proven, so a first task (none) is proven.
    EXPECT_EQ(r[0][8], DbValue(int64_t{1}));
    EXPECT_EQ(one("SELECT status FROM workflow_runs WHERE workflow = $1 AND run_id = $2",
                  {blob(b(sc.workflow)), blob(b(sc.run_id))}),
              DbValue(int64_t{0}));  // Pending
}

TEST_P(index_store, agent_reply_anchored_stores_the_get_agent_reply_detail) {
    REQUIRE_SCENARIO();
    commit_all(sc);
    auto r = rows(
        "SELECT reply_hash, replier, operation_id, output_hash, output, "
        "prev_task_hashes, verifier, proven FROM workflow_replies WHERE workflow = $1 "
        "AND run_id = $2",
        {blob(b(sc.workflow)), blob(b(sc.run_id))});
    ASSERT_EQ(r.size(), 1U);
    EXPECT_EQ(r[0][0], DbValue(b(sc.reply_hash)));
    EXPECT_EQ(r[0][1], DbValue(b(sc.account(kReplier))));
    EXPECT_EQ(r[0][2], DbValue(b(sc.operation_id)));
    EXPECT_EQ(r[0][3], DbValue(b(core::keccak256(sc.output))));
    EXPECT_EQ(r[0][4], DbValue(sc.output));
    EXPECT_EQ(r[0][5], DbValue(b(sc.task_hash)));
    EXPECT_EQ(r[0][7], DbValue(int64_t{0}));  // read at the anchoring block: not yet proven
}

TEST_P(index_store, workflow_completed_sets_run_status) {
    REQUIRE_SCENARIO();
    commit_all(sc);
    const uint64_t done = sc.block_of(sc.workflow, wf::kWorkflowCompletedTopic);
    auto r = rows(
        "SELECT status, final_task_hash, completed_at, completed_block_num FROM "
        "workflow_runs WHERE workflow = $1 AND run_id = $2",
        {blob(b(sc.workflow)), blob(b(sc.run_id))});
    ASSERT_EQ(r.size(), 1U);
    EXPECT_EQ(r[0][0], DbValue(int64_t{1}));  // Success
    EXPECT_EQ(std::get<Bytes>(r[0][1]).size(), 32U);
    EXPECT_GT(std::get<int64_t>(r[0][2]), 0);
    EXPECT_EQ(r[0][3], DbValue(static_cast<int64_t>(done)));
    EXPECT_EQ(count("SELECT COUNT(*) FROM workflow_results WHERE workflow = $1 AND run_id = $2",
                    {blob(b(sc.workflow)), blob(b(sc.run_id))}),
              1);
    // The final task (no NewAgentTask) is stored from getAgentTask(finalTaskHash) at the
    // WorkflowCompleted position, with the terminal sentinel stage (ERC-8301 §Gate Logic).
    auto final_task = rows(
        "SELECT stage, block_num, prev_reply_hashes FROM workflow_tasks WHERE workflow = $1 AND "
        "task_hash = $2",
        {blob(b(sc.workflow)), r[0][1]});
    ASSERT_EQ(final_task.size(), 1U);
    EXPECT_EQ(final_task[0][0], DbValue(int64_t{255}));
    EXPECT_EQ(final_task[0][1], DbValue(static_cast<int64_t>(done)));
    EXPECT_EQ(final_task[0][2], DbValue(b(sc.reply_hash)));
}

TEST_P(index_store, verification_completed_stores_proof) {
    REQUIRE_SCENARIO();
    commit_all(sc);
    Hash32 agent_key{};
    const Address replier = sc.account(kReplier);
    std::copy(replier.bytes.begin(), replier.bytes.end(), agent_key.begin() + 12);
    auto r = rows(
        "SELECT agent_key, valid, input_hash, output_hash, instance_id FROM "
        "workflow_proofs WHERE verifier = $1 AND task_id = $2",
        {blob(b(sc.verifier)), blob(b(sc.run_id))});
    ASSERT_EQ(r.size(), 1U);
    EXPECT_EQ(r[0][0], DbValue(b(agent_key)));
    EXPECT_EQ(r[0][1], DbValue(int64_t{1}));
    EXPECT_EQ(r[0][2], DbValue(b(core::keccak256(sc.input))));
    EXPECT_EQ(r[0][3], DbValue(b(core::keccak256(sc.output))));
    EXPECT_EQ(r[0][4], DbValue(b(sc.verifier)));  // abi.encodePacked(address(this))
}

TEST_P(index_store, other_events_go_to_contract_events) {
    REQUIRE_SCENARIO();
    commit_all(sc);
    // The workflow's constructor: AgentVerifierUpdated(abi.encode(address(0), verifier)).
    auto w = rows("SELECT name, run_id, args FROM contract_events WHERE address = $1",
                  {blob(b(sc.workflow))});
    ASSERT_EQ(w.size(), 1U);
    EXPECT_EQ(w[0][0], DbValue(std::string("AgentVerifierUpdated")));
    EXPECT_EQ(w[0][1], DbValue{});
    const std::string args = std::get<std::string>(w[0][2]);
    EXPECT_NE(args.find(sc.verifier.to_lower_hex().substr(2)), std::string::npos) << args;
    // The verifier's constructor: OwnershipTransferred and AttesterSet(deployer, true).
    auto v = rows("SELECT name, args FROM contract_events WHERE address = $1 ORDER BY name",
                  {blob(b(sc.verifier))});
    ASSERT_EQ(v.size(), 2U);
    EXPECT_EQ(v[0][0], DbValue(std::string("AttesterSet")));
    EXPECT_EQ(v[0][1],
              DbValue("{\"attester\":\"" + sc.account(0).to_lower_hex() + "\",\"enabled\":true}"));
    EXPECT_EQ(v[1][0], DbValue(std::string("OwnershipTransferred")));
    // PermissionedSingleStageWorkflow.enroll: ReplierEnrolled, in the replier's entity.
    auto e = rows(
        "SELECT entity, run_id, args FROM contract_events WHERE address = $1 AND name = "
        "'ReplierEnrolled'",
        {blob(b(sc.permissioned))});
    ASSERT_EQ(e.size(), 1U);
    EXPECT_EQ(e[0][0], DbValue(b(sc.account(kBob))));
    EXPECT_EQ(e[0][1], DbValue{});
    EXPECT_EQ(e[0][2], DbValue("{\"replier\":\"" + sc.account(kBob).to_lower_hex() +
                               "\",\"agentId\":\"1\"}"));
}

// ───────────────────────────── batches, rejects, cursor, headers ─────────────────────────────

TEST_P(index_store, undecodable_logs_are_rejected_and_not_stored) {
    REQUIRE_SCENARIO();
    const IngestLog good = sc.first_log(sc.reputation, rep::kNewFeedbackTopic);
    Batch batch;
    batch.chain_id = sc.chain_id;
    batch.to_block = good.log.block_num;
    IngestLog wrong_topics = good;  // NewFeedback has 3 topics
    wrong_topics.log.topics.pop_back();
    IngestLog unknown = good;
    unknown.log.topics[0] = kk("NoSuchEvent()");
    IngestLog truncated = good;
    truncated.log.data.resize(40);
    IngestLog foreign_task = sc.first_log(sc.workflow, wf::kNewAgentTaskTopic);
    foreign_task.log.topics[1] = kk("another run");  // the detail belongs to the real run
    for (auto* l : {&wrong_topics, &unknown, &truncated}) l->log.log_index += 1000;
    batch.logs = {good, wrong_topics, unknown, truncated, foreign_task};
    std::sort(batch.logs.begin(), batch.logs.end(), [](const auto& x, const auto& y) {
        return std::pair(x.log.block_num, x.log.log_index) <
               std::pair(y.log.block_num, y.log.log_index);
    });
    auto r = store().commit_batch(batch);
    ASSERT_TRUE(r.has_value()) << r.error().to_string();
    EXPECT_EQ(r->stored, 1U);
    ASSERT_EQ(r->rejected.size(), 4U);
    std::string reasons;
    for (const auto& rej : r->rejected) reasons += rej.reason + "\n";
    EXPECT_NE(reasons.find("topic_count"), std::string::npos) << reasons;
    EXPECT_NE(reasons.find("unknown reputation event"), std::string::npos) << reasons;
    EXPECT_NE(reasons.find("another run"), std::string::npos) << reasons;
    EXPECT_EQ(count("SELECT COUNT(*) FROM raw_logs WHERE chain_id = $1",
                    {i64(static_cast<int64_t>(sc.chain_id))}),
              1);
    EXPECT_EQ(count("SELECT COUNT(*) FROM feedback WHERE chain_id = $1",
                    {i64(static_cast<int64_t>(sc.chain_id))}),
              1);
}

// Consecutive feedback rows commit as multi-row statements (projector.hpp MultiRowInsert). A
// registry may emit one feedback key twice (any contract can be followed as a reputation
// registry): the later row wins, as one statement each would give, and PostgreSQL, which refuses
// an upsert that meets one row twice, is never handed both in one statement.
TEST_P(index_store, one_feedback_key_twice_in_a_batch_keeps_the_later_row) {
    REQUIRE_SCENARIO();
    const IngestLog first = sc.first_log(sc.reputation, rep::kNewFeedbackTopic);
    std::vector<IngestLog> logs;
    for (uint64_t i = 0; i < 600; ++i) {  // more rows than one statement holds
        IngestLog copy = first;
        copy.log.log_index = first.log.log_index + 1 + i;
        // 300 clients (the indexed clientAddress), each giving the same feedback twice in a row.
        copy.log.topics.at(2)[30] = static_cast<uint8_t>((i / 2) >> 8);
        copy.log.topics.at(2)[31] = static_cast<uint8_t>(i / 2);
        logs.push_back(std::move(copy));
    }
    Batch batch;
    batch.chain_id = sc.chain_id;
    batch.to_block = first.log.block_num;
    batch.logs = logs;
    auto r = store().commit_batch(batch);
    ASSERT_TRUE(r.has_value()) << r.error().to_string();
    EXPECT_EQ(r->stored, 600U);
    const auto rows_of = rows("SELECT COUNT(*), MAX(log_index) FROM feedback WHERE chain_id = $1",
                              {i64(static_cast<int64_t>(sc.chain_id))});
    ASSERT_EQ(rows_of.size(), 1U);
    EXPECT_EQ(rows_of[0][0], DbValue(int64_t{300}));
    EXPECT_EQ(rows_of[0][1], DbValue(static_cast<int64_t>(first.log.log_index + 600)));
    // Each client's row is its later log's.
    EXPECT_EQ(count("SELECT COUNT(*) FROM feedback WHERE chain_id = $1 AND (log_index - $2) % 2 "
                    "= 0",
                    {i64(static_cast<int64_t>(sc.chain_id)),
                     i64(static_cast<int64_t>(first.log.log_index))}),
              300);
}

TEST_P(index_store, cursor_is_empty_then_follows_batches) {
    auto c = store().cursor(7);
    ASSERT_TRUE(c.has_value()) << c.error().to_string();
    EXPECT_FALSE(c->has_value());
    Batch batch;
    batch.chain_id = 7;
    batch.to_block = 41;
    ASSERT_TRUE(store().commit_batch(batch).has_value());
    batch.to_block = 99;
    ASSERT_TRUE(store().commit_batch(batch).has_value());
    c = store().cursor(7);
    ASSERT_TRUE(c.has_value() && c->has_value());
    EXPECT_EQ(**c, 99U);
    auto other = store().cursor(8);  // per chain
    ASSERT_TRUE(other.has_value());
    EXPECT_FALSE(other->has_value());
}

TEST_P(index_store, batch_is_all_or_nothing) {
    REQUIRE_SCENARIO();
    const uint64_t mid = sc.block_of(sc.reputation, rep::kNewFeedbackTopic);
    commit(sc, 0, mid);
    const std::string before = dump();
    Batch batch;
    batch.chain_id = sc.chain_id;
    batch.to_block = sc.head;
    batch.logs = sc.logs_in(mid + 1, sc.head);
    batch.logs.push_back(sc.logs_in(mid, mid).front());  // already stored: the raw_logs key fails
    batch.headers.push_back({sc.head, kk("h"), kk("p"), 1});
    auto r = store().commit_batch(batch);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(dump(), before);
    auto c = store().cursor(sc.chain_id);
    ASSERT_TRUE(c.has_value() && c->has_value());
    EXPECT_EQ(**c, mid);
    auto headers = store().recent_blocks(sc.chain_id);
    ASSERT_TRUE(headers.has_value());
    EXPECT_TRUE(headers->empty());
    EXPECT_FALSE(db().in_transaction());
}

TEST_P(index_store, recent_blocks_highest_first_and_forgotten_below) {
    Batch batch;
    batch.chain_id = 5;
    batch.to_block = 12;
    for (uint64_t n = 10; n <= 12; ++n) {
        batch.headers.push_back(
            {n, kk("block " + std::to_string(n)), kk("block " + std::to_string(n - 1)), 1000 + n});
    }
    ASSERT_TRUE(store().commit_batch(batch).has_value());
    auto h = store().recent_blocks(5);
    ASSERT_TRUE(h.has_value()) << h.error().to_string();
    ASSERT_EQ(h->size(), 3U);
    EXPECT_EQ((*h)[0], batch.headers[2]);
    EXPECT_EQ((*h)[2], batch.headers[0]);
    Batch next;
    next.chain_id = 5;
    next.to_block = 13;
    next.headers.push_back({13, kk("block 13"), kk("block 12"), 1013});
    next.forget_below = 12;
    ASSERT_TRUE(store().commit_batch(next).has_value());
    h = store().recent_blocks(5);
    ASSERT_TRUE(h.has_value());
    ASSERT_EQ(h->size(), 2U);
    EXPECT_EQ((*h)[0].block_num, 13U);
    EXPECT_EQ((*h)[1].block_num, 12U);
}

TEST_P(index_store, record_code_hash_reports_a_change) {
    REQUIRE_SCENARIO();
    auto rpc = sc.devnet->rpc();
    auto code = rpc.get_code(sc.identity);
    ASSERT_TRUE(code.has_value());
    const Hash32 real = core::keccak256(*code);
    auto first = store().record_code_hash(sc.chain_id, sc.identity, 1, real);
    ASSERT_TRUE(first.has_value()) << first.error().to_string();
    EXPECT_FALSE(first->has_value());
    auto same = store().record_code_hash(sc.chain_id, sc.identity, 5, real);
    ASSERT_TRUE(same.has_value());
    EXPECT_FALSE(same->has_value());
    auto upgraded = store().record_code_hash(sc.chain_id, sc.identity, 9, kk("new code"));
    ASSERT_TRUE(upgraded.has_value());
    ASSERT_TRUE(upgraded->has_value());
    EXPECT_EQ(**upgraded, real);
    EXPECT_EQ(count("SELECT COUNT(*) FROM code_hashes WHERE chain_id = $1",
                    {i64(static_cast<int64_t>(sc.chain_id))}),
              2);
}

TEST_P(index_store, status_counts_every_data_table) {
    REQUIRE_SCENARIO();
    commit_all(sc);
    auto s = store().status(sc.chain_id);
    ASSERT_TRUE(s.has_value()) << s.error().to_string();
    ASSERT_TRUE(s->cursor.has_value());
    EXPECT_EQ(*s->cursor, sc.head);
    ASSERT_EQ(s->counts.size(), IndexStore::data_tables().size());
    std::map<std::string, int64_t> counts;
    for (const auto& c : s->counts) counts[c.table] = c.rows;
    EXPECT_EQ(counts["raw_logs"], static_cast<int64_t>(sc.logs.size()));
    EXPECT_EQ(counts["agents"], 2);
    EXPECT_EQ(counts["feedback"], 3);
    EXPECT_EQ(counts["tools"], 2);
    EXPECT_EQ(counts["workflow_runs"], 1);
    auto other = store().status(sc.chain_id + 1);
    ASSERT_TRUE(other.has_value());
    EXPECT_FALSE(other->cursor.has_value());
    for (const auto& c : other->counts) EXPECT_EQ(c.rows, 0) << c.table;
}

// ───────────────────────────── rollback by entity replay ─────────────────────────────

// store.hpp: after rollback_to(k) the data tables equal a fresh index of the logs <= k, and after
// re-committing the later logs they equal an index that never rolled back.
TEST_P(index_store, rollback_equals_a_fresh_index_of_the_kept_logs) {
    REQUIRE_SCENARIO();
    Indexed uninterrupted = open_indexed(GetParam());
    ASSERT_TRUE(uninterrupted.store.has_value());
    {
        Batch all;
        all.chain_id = sc.chain_id;
        all.to_block = sc.head;
        all.logs = sc.logs;
        ASSERT_TRUE(uninterrupted.store->commit_batch(all).has_value());
    }
    auto full_dump = canonical_dump(*uninterrupted.db, IndexStore::data_tables());
    ASSERT_TRUE(full_dump.has_value());

    // Fork points: inside the deployment, before the transfer, between feedback and revocation,
    // between the two validation responses, between reply and proof, and the head's parent.
    const std::vector<uint64_t> forks{
        sc.block_of(sc.identity, idr::kRegisteredTopic) - 1,
        sc.block_of(sc.identity, idr::kTransferTopic, 2) - 1,
        sc.block_of(sc.reputation, rep::kFeedbackRevokedTopic) - 1,
        sc.block_of(sc.validation, val::kValidationResponseTopic, 1) - 1,
        sc.block_of(sc.workflow, wf::kAgentReplyAnchoredTopic),
        sc.head - 1,
    };
    for (const uint64_t k : forks) {
        SCOPED_TRACE("fork at block " + std::to_string(k));
        Indexed rolled = open_indexed(GetParam());
        ASSERT_TRUE(rolled.store.has_value());
        // Several batches, so rolled-back rows come from more than one transaction.
        for (uint64_t from = 0; from <= sc.head; from += 7) {
            Batch batch;
            batch.chain_id = sc.chain_id;
            batch.to_block = std::min(from + 6, sc.head);
            batch.logs = sc.logs_in(from, batch.to_block);
            for (uint64_t n = from; n <= batch.to_block; ++n) {
                batch.headers.push_back({n, kk(std::to_string(n)), kk(std::to_string(n - 1)), n});
            }
            auto r = rolled.store->commit_batch(batch);
            ASSERT_TRUE(r.has_value()) << r.error().to_string();
        }
        auto rb = rolled.store->rollback_to(sc.chain_id, k);
        ASSERT_TRUE(rb.has_value()) << rb.error().to_string();
        EXPECT_EQ(rb->logs_removed, sc.logs.size() - sc.logs_in(0, k).size());
        EXPECT_GT(rb->entities_rebuilt, 0U);

        auto rolled_dump = canonical_dump(*rolled.db, IndexStore::data_tables());
        ASSERT_TRUE(rolled_dump.has_value());
        EXPECT_EQ(*rolled_dump, fresh_dump(sc, k));

        auto cursor = rolled.store->cursor(sc.chain_id);
        ASSERT_TRUE(cursor.has_value() && cursor->has_value());
        EXPECT_EQ(**cursor, k);
        auto headers = rolled.store->recent_blocks(sc.chain_id);
        ASSERT_TRUE(headers.has_value());
        ASSERT_FALSE(headers->empty());
        EXPECT_EQ(headers->front().block_num, k);

        Batch rest;
        rest.chain_id = sc.chain_id;
        rest.to_block = sc.head;
        rest.logs = sc.logs_in(k + 1, sc.head);
        ASSERT_TRUE(rolled.store->commit_batch(rest).has_value());
        rolled_dump = canonical_dump(*rolled.db, IndexStore::data_tables());
        ASSERT_TRUE(rolled_dump.has_value());
        EXPECT_EQ(*rolled_dump, *full_dump);
    }
}

TEST_P(index_store, rollback_never_advances_the_cursor) {
    auto none = store().rollback_to(3, 50);  // a chain never indexed keeps no cursor
    ASSERT_TRUE(none.has_value()) << none.error().to_string();
    auto c = store().cursor(3);
    ASSERT_TRUE(c.has_value());
    EXPECT_FALSE(c->has_value());
    Batch batch;
    batch.chain_id = 3;
    batch.to_block = 20;
    ASSERT_TRUE(store().commit_batch(batch).has_value());
    ASSERT_TRUE(store().rollback_to(3, 30).has_value());  // above the cursor: unchanged
    c = store().cursor(3);
    ASSERT_TRUE(c.has_value() && c->has_value());
    EXPECT_EQ(**c, 20U);
    ASSERT_TRUE(store().rollback_to(3, 12).has_value());
    c = store().cursor(3);
    ASSERT_TRUE(c.has_value() && c->has_value());
    EXPECT_EQ(**c, 12U);
}

// ───────────────────────────── bulk load: secondary indexes ─────────────────────────────

// Each deferrable index's definition as the backend's catalog states it: SQLite's column list,
// PostgreSQL's indexdef. Empty when the index does not exist.
std::string index_definition(Database& db, std::string_view name) {
    const std::array<DbValue, 1> p{std::string(name)};
    auto rows = db.dialect() == Dialect::sqlite
                    ? db.query("SELECT name FROM pragma_index_info($1) ORDER BY seqno", p)
                    : db.query(
                          "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND "
                          "indexname = $1",
                          p);
    EXPECT_TRUE(rows.has_value()) << rows.error().to_string();
    std::string out;
    if (!rows) return out;
    for (const auto& row : *rows) out += std::get<std::string>(row.at(0)) + ",";
    return out;
}

TEST_P(index_store, dropped_secondary_indexes_come_back_as_the_migrations_define_them) {
    REQUIRE_SCENARIO();
    std::map<std::string, std::string, std::less<>> migrated;
    for (const auto& index : index_deferrable_indexes()) {
        migrated[std::string(index.name)] = index_definition(db(), index.name);
        EXPECT_FALSE(migrated[std::string(index.name)].empty()) << index.name;
    }
    auto built = store().secondary_indexes_built();
    ASSERT_TRUE(built.has_value()) << built.error().to_string();
    EXPECT_TRUE(*built);

    ASSERT_TRUE(store().drop_secondary_indexes().has_value());
    ASSERT_TRUE(store().drop_secondary_indexes().has_value());  // idempotent
    built = store().secondary_indexes_built();
    ASSERT_TRUE(built.has_value());
    EXPECT_FALSE(*built);
    for (const auto& index : index_deferrable_indexes())
        EXPECT_EQ(index_definition(db(), index.name), "") << index.name;

    // Ingestion never needs them: the rows are those of a store that kept them.
    commit_all(sc);
    EXPECT_EQ(dump(), fresh_dump(sc, sc.head));

    ASSERT_TRUE(store().build_secondary_indexes().has_value());
    ASSERT_TRUE(store().build_secondary_indexes().has_value());  // idempotent
    built = store().secondary_indexes_built();
    ASSERT_TRUE(built.has_value());
    EXPECT_TRUE(*built);
    for (const auto& index : index_deferrable_indexes())
        EXPECT_EQ(index_definition(db(), index.name), migrated[std::string(index.name)])
            << index.name;
    if (db().dialect() == Dialect::sqlite) {
        // The build's smaller sort cache is given back; temporary files stay on disk (file 1).
        EXPECT_EQ(one("PRAGMA cache_size", {}), DbValue{-kSqliteCacheKib});
        EXPECT_EQ(one("PRAGMA temp_store", {}), DbValue{int64_t{1}});
    }
}

// The bulk-load decision (indexer.hpp kBulkLoadRatio) weighs every chain's rows, since the
// secondary indexes cover them all; the count stops at its limit.
TEST_P(index_store, log_count_counts_every_chain_up_to_the_limit) {
    REQUIRE_SCENARIO();
    commit_all(sc);
    Batch other;
    other.chain_id = sc.chain_id + 1;
    other.to_block = sc.head;
    other.logs = sc.logs_in(0, sc.head);
    auto stored = store().commit_batch(other);
    ASSERT_TRUE(stored.has_value()) << stored.error().to_string();
    const auto all = static_cast<uint64_t>(count("SELECT COUNT(*) FROM raw_logs", {}));
    ASSERT_GT(stored->stored, 2U);
    EXPECT_EQ(all, 2 * stored->stored);
    auto n = store().log_count_up_to(all + 10);
    ASSERT_TRUE(n.has_value()) << n.error().to_string();
    EXPECT_EQ(*n, all);
    n = store().log_count_up_to(3);
    ASSERT_TRUE(n.has_value());
    EXPECT_EQ(*n, 3U);
}

// A node following several chains gives each indexer's connection a share of the cache
// (docs/node.md §Many chains): building the indexes gives back that share, not the default.
TEST_P(index_store, building_the_indexes_gives_back_the_connections_own_cache) {
    if (db().dialect() != Dialect::sqlite) GTEST_SKIP() << "a SQLite page cache";
    ASSERT_TRUE(db().exec_script("PRAGMA cache_size=-21845").has_value());
    ASSERT_TRUE(store().drop_secondary_indexes().has_value());
    ASSERT_TRUE(store().build_secondary_indexes().has_value());
    EXPECT_EQ(one("PRAGMA cache_size", {}), DbValue{int64_t{-21845}});
}

// A reorg during a bulk load (after a restart) rolls back correctly and ends the bulk load.
TEST_P(index_store, rollback_during_a_bulk_load_builds_the_indexes_and_rolls_back) {
    REQUIRE_SCENARIO();
    ASSERT_TRUE(store().drop_secondary_indexes().has_value());
    commit_all(sc);
    const uint64_t fork = sc.block_of(sc.reputation, rep::kFeedbackRevokedTopic) - 1;
    auto rb = store().rollback_to(sc.chain_id, fork);
    ASSERT_TRUE(rb.has_value()) << rb.error().to_string();
    EXPECT_EQ(rb->logs_removed, sc.logs.size() - sc.logs_in(0, fork).size());
    auto built = store().secondary_indexes_built();
    ASSERT_TRUE(built.has_value());
    EXPECT_TRUE(*built);

    EXPECT_EQ(dump(), fresh_dump(sc, fork));
}

// ───────────────────────────── projections vs the contracts' views ─────────────────────────────

template <typename T>
T view(chain::RpcClient& rpc, const Address& to, core::Result<Bytes, core::AbiError> data,
       core::Result<T, core::AbiError> (*decode)(core::ByteView)) {
    EXPECT_TRUE(data.has_value());
    if (!data) return T{};
    auto out = rpc.call(call_to(to, *data));
    EXPECT_TRUE(out.has_value()) << out.error().message;
    if (!out) return T{};
    auto decoded = decode(*out);
    EXPECT_TRUE(decoded.has_value());
    return decoded ? std::move(*decoded) : T{};
}

TEST_P(index_store, projections_match_the_contract_views) {
    REQUIRE_SCENARIO();
    commit_all(sc);
    auto rpc = sc.devnet->rpc();
    // Agents: ownerOf, tokenURI, getAgentWallet, getApproved, getMetadata.
    for (uint64_t agent : {uint64_t{0}, uint64_t{1}}) {
        SCOPED_TRACE("agent " + std::to_string(agent));
        auto r = rows(
            "SELECT owner, agent_uri, wallet, approved FROM agents WHERE registry = $1 "
            "AND agent_id = $2",
            {blob(b(sc.identity)), blob(id32(agent))});
        ASSERT_EQ(r.size(), 1U);
        const Uint256 id{agent};
        const Address owner =
            view(rpc, sc.identity, idr::owner_of(id), idr::decode_owner_of_result);
        EXPECT_EQ(r[0][0], DbValue(b(owner)));
        EXPECT_EQ(r[0][1], DbValue(view(rpc, sc.identity, idr::token_uri(id),
                                        idr::decode_token_uri_result)));
        const Address wallet =
            view(rpc, sc.identity, idr::get_agent_wallet(id), idr::decode_get_agent_wallet_result);
        EXPECT_EQ(r[0][2], wallet.is_zero() ? DbValue{} : DbValue(b(wallet)));
        const Address approved =
            view(rpc, sc.identity, idr::get_approved(id), idr::decode_get_approved_result);
        EXPECT_EQ(r[0][3], approved.is_zero() ? DbValue{} : DbValue(b(approved)));
        for (const auto& m : rows("SELECT metadata_key, metadata_value FROM agent_metadata WHERE "
                                  "registry = $1 AND agent_id = $2",
                                  {blob(b(sc.identity)), blob(id32(agent))})) {
            const auto key = std::get<std::string>(m[0]);
            EXPECT_EQ(m[1], DbValue(view(rpc, sc.identity, idr::get_metadata(id, key),
                                         idr::decode_get_metadata_result)))
                << key;
        }
    }
    for (const auto& op : rows("SELECT owner, operator, approved FROM operator_approvals", {})) {
        auto owner = Address::from_bytes(std::get<Bytes>(op[0]));
        auto oper = Address::from_bytes(std::get<Bytes>(op[1]));
        ASSERT_TRUE(owner && oper);
        EXPECT_EQ(op[2],
                  DbValue(int64_t{view(rpc, sc.identity, idr::is_approved_for_all(*owner, *oper),
                                       idr::decode_is_approved_for_all_result)}));
    }
    // Feedback: readFeedback(agentId, client, index) -> value, decimals, tags, revoked.
    auto fbs = rows(
        "SELECT agent_id, client, feedback_index, value, value_decimals, tag1, tag2, "
        "revoked FROM feedback",
        {});
    ASSERT_EQ(fbs.size(), 3U);
    for (const auto& f : fbs) {
        auto agent = Uint256::from_be_bytes(std::get<Bytes>(f[0]));
        auto client = Address::from_bytes(std::get<Bytes>(f[1]));
        ASSERT_TRUE(agent && client);
        const auto index = static_cast<uint64_t>(std::get<int64_t>(f[2]));
        const auto onchain = view(rpc, sc.reputation, rep::read_feedback(*agent, *client, index),
                                  rep::decode_read_feedback_result);
        EXPECT_EQ(f[3], DbValue(onchain.value.to_dec()));
        EXPECT_EQ(f[4], DbValue(static_cast<int64_t>(onchain.value_decimals)));
        EXPECT_EQ(f[5], DbValue(onchain.tag1));
        EXPECT_EQ(f[6], DbValue(onchain.tag2));
        EXPECT_EQ(f[7], DbValue(int64_t{onchain.is_revoked}));
    }
    // Validation: getValidationStatus(requestHash).
    const auto status = view(rpc, sc.validation, val::get_validation_status(sc.request_hash),
                             val::decode_get_validation_status_result);
    auto vr = rows(
        "SELECT validator, agent_id, response, response_hash, response_tag FROM "
        "validation_requests WHERE request_hash = $1",
        {blob(b(sc.request_hash))});
    ASSERT_EQ(vr.size(), 1U);
    EXPECT_EQ(vr[0][0], DbValue(b(status.validator_address)));
    EXPECT_EQ(vr[0][1], DbValue(b(status.agent_id.to_word())));
    EXPECT_EQ(vr[0][2], DbValue(static_cast<int64_t>(status.response)));
    EXPECT_EQ(vr[0][3], DbValue(b(status.response_hash)));
    EXPECT_EQ(vr[0][4], DbValue(status.tag));
    // Tool 1: getToolConfig.
    const auto config =
        view(rpc, sc.tools, tr::get_tool_config(Uint256{1}), tr::decode_get_tool_config_result);
    auto tool = rows(
        "SELECT creator, metadata_uri, manifest_hash, access_predicate FROM tools "
        "WHERE tool_id = $1",
        {blob(id32(1))});
    ASSERT_EQ(tool.size(), 1U);
    EXPECT_EQ(tool[0][0], DbValue(b(config.creator)));
    EXPECT_EQ(tool[0][1], DbValue(config.metadata_uri));
    EXPECT_EQ(tool[0][2], DbValue(b(config.manifest_hash)));
    EXPECT_EQ(tool[0][3], DbValue(b(config.access_predicate)));
    // The run: result(runId), getAgentTask, getAgentReply.
    const auto result = view(rpc, sc.workflow, wf::result(sc.run_id), wf::decode_result_result);
    auto run = rows(
        "SELECT status, final_task_hash, completed_at FROM workflow_runs WHERE run_id "
        "= $1",
        {blob(b(sc.run_id))});
    ASSERT_EQ(run.size(), 1U);
    EXPECT_EQ(run[0][0], DbValue(static_cast<int64_t>(result.status)));
    EXPECT_EQ(run[0][1], DbValue(b(result.final_task_hash)));
    EXPECT_EQ(run[0][2], DbValue(static_cast<int64_t>(result.completed_at.limbs[0])));
    const auto task =
        view(rpc, sc.workflow, wf::get_agent_task(sc.task_hash), wf::decode_get_agent_task_result);
    auto t = rows(
        "SELECT task_seq, input_hash, input, timestamp, expires_at FROM workflow_tasks "
        "WHERE task_hash = $1",
        {blob(b(sc.task_hash))});
    ASSERT_EQ(t.size(), 1U);
    EXPECT_EQ(t[0][0], DbValue(static_cast<int64_t>(task.task.task_seq.limbs[0])));
    EXPECT_EQ(t[0][1], DbValue(b(task.task.input_hash)));
    EXPECT_EQ(t[0][2], DbValue(task.task.input));
    EXPECT_EQ(t[0][3], DbValue(static_cast<int64_t>(task.task.timestamp.limbs[0])));
    EXPECT_EQ(t[0][4], DbValue(static_cast<int64_t>(task.task.expires_at.limbs[0])));
    const auto reply = view(rpc, sc.workflow, wf::get_agent_reply(sc.reply_hash),
                            wf::decode_get_agent_reply_result);
    auto rr = rows(
        "SELECT operation_id, output_hash, output, timestamp, verifier FROM "
        "workflow_replies WHERE reply_hash = $1",
        {blob(b(sc.reply_hash))});
    ASSERT_EQ(rr.size(), 1U);
    EXPECT_EQ(rr[0][0], DbValue(b(reply.reply.operation_id)));
    EXPECT_EQ(rr[0][1], DbValue(b(reply.reply.output_hash)));
    EXPECT_EQ(rr[0][2], DbValue(reply.reply.output));
    EXPECT_EQ(rr[0][3], DbValue(static_cast<int64_t>(reply.reply.timestamp.limbs[0])));
    // The proof: the reply is proven now, with the digest of the verifier's event.
    EXPECT_TRUE(reply.proven);
    EXPECT_EQ(count("SELECT COUNT(*) FROM workflow_proofs WHERE verification_digest = $1",
                    {blob(b(reply.verification_digest))}),
              1);
}

// ───────────────────────────── pure: catalog, names, detail calls ─────────────────────────────

bool in_catalog(ContractKind kind, const Hash32& topic0) {
    const auto catalog = event_catalog(kind);
    return std::any_of(catalog.begin(), catalog.end(),
                       [&](const CatalogEvent& e) { return e.topic0 == topic0; });
}

template <size_t N>
void expect_all_in_catalog(ContractKind kind,
                           const std::array<chain::bindings::EventInfo, N>& events) {
    for (const auto& e : events) {
        EXPECT_TRUE(in_catalog(kind, e.topic0)) << to_string(kind) << ": " << e.signature;
    }
}

TEST(index_projector, catalog_covers_every_event_of_every_abi) {
    namespace bindings = chain::bindings;
    expect_all_in_catalog(ContractKind::identity_registry, idr::kEvents);
    expect_all_in_catalog(ContractKind::reputation_registry, rep::kEvents);
    expect_all_in_catalog(ContractKind::validation_registry, val::kEvents);
    expect_all_in_catalog(ContractKind::tool_registry, tr::kEvents);
    expect_all_in_catalog(ContractKind::workflow, wf::kEvents);
    expect_all_in_catalog(ContractKind::workflow, sw::kEvents);
    expect_all_in_catalog(ContractKind::workflow, bindings::competitive_bid_workflow::kEvents);
    expect_all_in_catalog(ContractKind::workflow, bindings::bft_commit_reveal_workflow::kEvents);
    expect_all_in_catalog(ContractKind::workflow, bindings::input_provenance_workflow::kEvents);
    expect_all_in_catalog(ContractKind::workflow, bindings::parallel_audit_workflow::kEvents);
    expect_all_in_catalog(ContractKind::workflow,
                          bindings::permissioned_single_stage_workflow::kEvents);
    expect_all_in_catalog(ContractKind::workflow, bindings::sequential_pipeline_workflow::kEvents);
    expect_all_in_catalog(ContractKind::agent_verifier, av::kEvents);
    expect_all_in_catalog(ContractKind::agent_verifier, ver::kEvents);
    // And nothing else: the catalog lists exactly those events.
    EXPECT_EQ(event_catalog(ContractKind::identity_registry).size(), idr::kEvents.size());
    EXPECT_EQ(event_catalog(ContractKind::reputation_registry).size(), rep::kEvents.size());
    EXPECT_EQ(event_catalog(ContractKind::tool_registry).size(), tr::kEvents.size());
    EXPECT_EQ(event_catalog(ContractKind::agent_verifier).size(), ver::kEvents.size());
}

TEST(index_projector, every_kind_deletes_its_entities_from_contract_events) {
    for (auto kind : {ContractKind::identity_registry, ContractKind::reputation_registry,
                      ContractKind::validation_registry, ContractKind::tool_registry,
                      ContractKind::workflow, ContractKind::agent_verifier}) {
        const auto deletes = entity_delete_statements(kind);
        ASSERT_FALSE(deletes.empty());
        EXPECT_NE(deletes.back().find("contract_events"), std::string_view::npos);
    }
}

TEST(index_sources, contract_kind_names_round_trip) {
    for (auto kind : {ContractKind::identity_registry, ContractKind::reputation_registry,
                      ContractKind::validation_registry, ContractKind::tool_registry,
                      ContractKind::workflow, ContractKind::agent_verifier}) {
        EXPECT_EQ(parse_contract_kind(to_string(kind)), kind);
    }
    EXPECT_EQ(to_string(ContractKind::identity_registry), "identity");
    EXPECT_EQ(to_string(ContractKind::agent_verifier), "verifier");
    EXPECT_EQ(parse_contract_kind("Identity"), std::nullopt);
    EXPECT_EQ(parse_contract_kind(""), std::nullopt);
}

TEST(index_projector, detail_call_reads_get_agent_task_and_get_agent_reply) {
    RawLog task;
    task.address = Address{{0xaa}};
    task.topics = {wf::kNewAgentTaskTopic, kk("run"), Hash32{}, kk("task")};
    auto call = detail_call(task, ContractKind::workflow);
    ASSERT_TRUE(call.has_value());
    EXPECT_EQ(call->to, task.address);
    EXPECT_EQ(call->data, *wf::get_agent_task(kk("task")));
    RawLog reply = task;
    reply.topics = {wf::kAgentReplyAnchoredTopic, kk("run"), kk("reply"), Hash32{}};
    call = detail_call(reply, ContractKind::workflow);
    ASSERT_TRUE(call.has_value());
    EXPECT_EQ(call->data, *wf::get_agent_reply(kk("reply")));
    EXPECT_FALSE(detail_call(task, ContractKind::identity_registry).has_value());
    reply.topics[0] = wf::kWorkflowCompletedTopic;
    EXPECT_FALSE(detail_call(reply, ContractKind::workflow).has_value());
}

TEST(index_schema, every_data_table_has_chain_id_and_no_autoincrement) {
    std::string all;
    for (const auto& m : index_migrations()) all += m.sql;
    EXPECT_EQ(all.find("AUTOINCREMENT"), std::string::npos);
    EXPECT_EQ(all.find("SERIAL"), std::string::npos);
    for (const auto table : index_data_tables()) {
        const auto at = all.find("CREATE TABLE " + std::string(table) + " (");
        ASSERT_NE(at, std::string::npos) << table;
        const auto body = all.substr(at, all.find(");", at) - at);
        EXPECT_NE(body.find("chain_id BIGINT NOT NULL"), std::string::npos) << table;
        EXPECT_NE(body.find("PRIMARY KEY (chain_id"), std::string::npos) << table;
    }
}

}  // namespace
}  // namespace credence::index
