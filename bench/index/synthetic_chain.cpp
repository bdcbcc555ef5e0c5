#include "synthetic_chain.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>

#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/reputation_registry.hpp>
#include <credence/chain/bindings/single_stage_workflow.hpp>
#include <credence/chain/bindings/tool_registry.hpp>
#include <credence/chain/bindings/validation_registry.hpp>
#include <credence/core/abi.hpp>
#include <credence/core/keccak.hpp>
#include <credence/core/uint256.hpp>

namespace credence::bench {

namespace {

namespace identity = chain::bindings::identity_registry;
namespace reputation = chain::bindings::reputation_registry;
namespace validation = chain::bindings::validation_registry;
namespace tools = chain::bindings::tool_registry;
namespace workflow = chain::bindings::single_stage_workflow;

using core::AbiType;
using core::AbiValue;
using core::Hash32;

[[noreturn]] void die(const std::string& what) {
    std::fprintf(stderr, "synthetic_chain: %s\n", what.c_str());
    std::abort();
}

core::Address parse_address(const char* hex) {
    auto a = core::Address::from_hex(hex, core::ChecksumMode::ignore);
    if (!a) die(std::string("bad address ") + hex);
    return *a;
}

std::vector<AbiType> types(std::string_view list) {
    auto t = core::parse_type_list(list);
    if (!t) die("bad type list " + std::string(list) + ": " + t.error().detail);
    return std::move(*t);
}

/// xoshiro256** (Blackman and Vigna), seeded through splitmix64: fixed output on every platform,
/// unlike the std distributions.
class Rng {
public:
    explicit Rng(uint64_t seed) noexcept {
        for (auto& s : s_) {
            seed += 0x9e3779b97f4a7c15ULL;
            uint64_t z = seed;
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
            s = z ^ (z >> 31);
        }
    }
    uint64_t next() noexcept {
        const uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }
    /// Uniform in [0, n) (the modulo bias is irrelevant at these n).
    uint64_t below(uint64_t n) noexcept { return next() % n; }
    bool percent(uint64_t p) noexcept { return below(100) < p; }
    Hash32 hash() noexcept {
        Hash32 h{};
        for (size_t i = 0; i < 4; ++i) {
            const uint64_t v = next();
            std::memcpy(h.data() + i * 8, &v, 8);
        }
        return h;
    }
    core::Bytes bytes(size_t n) {
        core::Bytes out(n);
        for (auto& b : out) b = static_cast<uint8_t>(next() >> 56);
        return out;
    }

private:
    static uint64_t rotl(uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
    std::array<uint64_t, 4> s_{};
};

Hash32 word(uint64_t v) noexcept {
    Hash32 w{};
    for (size_t i = 0; i < 8; ++i) w[31 - i] = static_cast<uint8_t>(v >> (8 * i));
    return w;
}

Hash32 word(const core::Address& a) noexcept {
    Hash32 w{};
    std::copy(a.bytes.begin(), a.bytes.end(), w.begin() + 12);
    return w;
}

core::Address derive_address(std::string_view role, uint64_t i) {
    const std::string seed = "credence-bench/" + std::string(role) + "/" + std::to_string(i);
    const Hash32 h = core::keccak256(seed);
    core::Address a;
    std::copy(h.begin() + 12, h.end(), a.bytes.begin());
    return a;
}

AbiValue fixed(const Hash32& h) { return AbiValue(core::FixedBytes(h)); }
AbiValue address_value(const core::Address& a) { return AbiValue(a.bytes); }

// Vocabulary of the generated values: what agents and clients put on chain today (ERC-8004
// §Reputation: tag1/tag2 are free-form, "starred", "uptime", "successRate" are the common ones).
constexpr std::array<std::string_view, 7> kTag1{
    "starred", "uptime", "successRate", "reachable", "responseTime", "quality", ""};
constexpr std::array<std::string_view, 5> kTag2{"", "", "day", "week", "month"};
constexpr std::array<std::string_view, 5> kMetadataKeys{"name", "description", "capabilities",
                                                        "x402Support", "endpoints"};
constexpr std::array<std::string_view, 5> kValidationTags{"", "soft-finality", "hard-finality",
                                                          "zkml", "tee-attestation"};

constexpr uint8_t kTerminalStage = 255;  // AgentWorkflow.TERMINAL_STAGE
constexpr uint8_t kRunSuccess = 1;       // RunStatus.Success
constexpr uint8_t kRunFailed = 2;        // RunStatus.Failed

}  // namespace

std::string_view to_string(EventKind kind) noexcept {
    switch (kind) {
        case EventKind::transfer:
            return "Transfer";
        case EventKind::approval:
            return "Approval";
        case EventKind::approval_for_all:
            return "ApprovalForAll";
        case EventKind::registered:
            return "Registered";
        case EventKind::uri_updated:
            return "URIUpdated";
        case EventKind::metadata_set:
            return "MetadataSet";
        case EventKind::new_feedback:
            return "NewFeedback";
        case EventKind::feedback_revoked:
            return "FeedbackRevoked";
        case EventKind::response_appended:
            return "ResponseAppended";
        case EventKind::validation_request:
            return "ValidationRequest";
        case EventKind::validation_response:
            return "ValidationResponse";
        case EventKind::tool_registered:
            return "ToolRegistered";
        case EventKind::tool_metadata_updated:
            return "ToolMetadataUpdated";
        case EventKind::access_predicate_updated:
            return "AccessPredicateUpdated";
        case EventKind::tool_deregistered:
            return "ToolDeregistered";
        case EventKind::new_agent_task:
            return "NewAgentTask";
        case EventKind::agent_reply_anchored:
            return "AgentReplyAnchored";
        case EventKind::workflow_completed:
            return "WorkflowCompleted";
    }
    return "?";
}

const core::Address& registry_address(Registry registry) noexcept {
    // The ERC-8004 registries at their deployed mainnet addresses (tests/vectors/erc8004.json);
    // the ERC-8257 and ERC-8301 contracts have no canonical deployment, so vanity placeholders.
    static const std::array<core::Address, kRegistryCount> kAddresses{
        parse_address("0x8004A169FB4a3325136EB29fA0ceB6D2e539a432"),
        parse_address("0x8004BAa17C55a88189AE136b182e5fdA19dE9b63"),
        parse_address("0x8004Cc8439f36fd5F9F049D9fF86523Df6dAAB58"),
        parse_address("0x8257000000000000000000000000000000008257"),
        parse_address("0x8301000000000000000000000000000000008301"),
    };
    return kAddresses[static_cast<size_t>(registry)];
}

std::string_view registry_kind(Registry registry) noexcept {
    switch (registry) {
        case Registry::identity:
            return "identity";
        case Registry::reputation:
            return "reputation";
        case Registry::validation:
            return "validation";
        case Registry::tool:
            return "tool";
        case Registry::workflow:
            return "workflow";
    }
    return "?";
}

std::string_view registry_contract(Registry registry) noexcept {
    switch (registry) {
        case Registry::identity:
            return "IdentityRegistry";
        case Registry::reputation:
            return "ReputationRegistry";
        case Registry::validation:
            return "ValidationRegistry";
        case Registry::tool:
            return "ToolRegistry";
        case Registry::workflow:
            return "SingleStageWorkflow";
    }
    return "?";
}

size_t Hash32Hasher::operator()(const core::Hash32& h) const noexcept {
    uint64_t v = 0;
    std::memcpy(&v, h.data(), sizeof(v));
    return static_cast<size_t>(v);
}

const core::Hash32& SyntheticChain::parent_hash(uint64_t block_num) const {
    static const core::Hash32 kZero{};
    return block_num == 0 ? kZero : blocks_[block_num - 1].hash;
}

int64_t SyntheticChain::find_block(const core::Hash32& hash) const {
    const auto it = block_by_hash_.find(hash);
    return it == block_by_hash_.end() ? -1 : static_cast<int64_t>(it->second);
}

std::span<const SyntheticLog> SyntheticChain::logs_in(uint64_t from, uint64_t to) const {
    to = std::min(to, head());
    if (from > to) return {};
    const uint64_t begin = blocks_[from].first_log;
    const uint64_t end = to + 1 < blocks_.size() ? blocks_[to + 1].first_log : logs_.size();
    return std::span<const SyntheticLog>(logs_).subspan(begin, end - begin);
}

const core::Bytes* SyntheticChain::agent_task_result(const core::Hash32& task_hash) const {
    const auto it = task_results_.find(task_hash);
    return it == task_results_.end() ? nullptr : &it->second;
}

const core::Bytes* SyntheticChain::agent_reply_result(const core::Hash32& reply_hash) const {
    const auto it = reply_results_.find(reply_hash);
    return it == reply_results_.end() ? nullptr : &it->second;
}

/// The generator's state: the contracts' storage, as far as the events depend on it.
class ChainGenerator {
public:
    ChainGenerator(SyntheticChain& chain, const ChainParams& params)
        : chain_(chain), params_(params), rng_(params.seed) {
        for (uint64_t i = 0; i < 4096; ++i) owners_.push_back(derive_address("owner", i));
        for (uint64_t i = 0; i < 32768; ++i) clients_.push_back(derive_address("client", i));
        for (uint64_t i = 0; i < 64; ++i) validators_.push_back(derive_address("validator", i));
        for (uint64_t i = 0; i < 64; ++i) operators_.push_back(derive_address("operator", i));
        for (uint64_t i = 0; i < 256; ++i) repliers_.push_back(derive_address("replier", i));
        predicates_.emplace_back();  // address(0): an open tool
        for (uint64_t i = 0; i < 7; ++i) predicates_.push_back(derive_address("predicate", i));
    }

    void run() {
        if (params_.events > (uint64_t{1} << 30)) die("at most 2^30 events");
        if (params_.max_logs_per_block == 0) die("max_logs_per_block must be positive");
        chain_.logs_.reserve(params_.events);
        chain_.topics_.reserve(params_.events * 3 + 16);
        chain_.data_.reserve(params_.events * 320);
        start_block(0);
        for (uint64_t n = 1; chain_.logs_.size() < params_.events; ++n) {
            start_block(n);
            const uint64_t target = rng_.percent(params_.empty_block_percent)
                                        ? 0
                                        : 1 + rng_.below(params_.max_logs_per_block);
            const size_t first = chain_.logs_.size();
            while (chain_.logs_.size() - first < target && chain_.logs_.size() < params_.events)
                act(params_.events - chain_.logs_.size());
        }
        const uint64_t last = chain_.blocks_.size() - 1;
        for (uint64_t n = last + 1; n <= last + kTrailingEmptyBlocks; ++n) start_block(n);
    }

private:
    // ---- blocks, transactions, logs ----

    void start_block(uint64_t n) {
        Hash32 seed_word = word(params_.seed);
        core::Keccak256 k;
        k.update(std::string_view("credence-bench/block"));
        k.update(seed_word);
        k.update(word(n));
        SyntheticBlock b;
        b.hash = k.finalize();
        b.timestamp = params_.genesis_timestamp + n * params_.block_time;
        b.first_log = chain_.logs_.size();
        chain_.block_by_hash_.emplace(b.hash, n);
        chain_.blocks_.push_back(b);
        block_num_ = n;
        txn_index_ = 0;
        log_index_ = 0;
    }

    [[nodiscard]] uint64_t now() const { return chain_.blocks_.back().timestamp; }

    void begin_txn() {
        core::Keccak256 k;
        k.update(chain_.blocks_.back().hash);
        k.update(word(txn_count_++));
        txn_hash_ = k.finalize();
    }
    void end_txn() { ++txn_index_; }

    void emit(Registry registry, EventKind kind, std::initializer_list<Hash32> topics,
              const std::vector<AbiType>& data_types = {},
              std::initializer_list<AbiValue> data_values = {}) {
        SyntheticLog log;
        log.block_num = block_num_;
        log.txn_hash = txn_hash_;
        log.txn_index = txn_index_;
        log.log_index = log_index_++;
        log.registry = registry;
        log.kind = kind;
        log.topics_offset = static_cast<uint32_t>(chain_.topics_.size());
        log.topic_count = static_cast<uint8_t>(topics.size());
        chain_.topics_.insert(chain_.topics_.end(), topics.begin(), topics.end());
        log.data_offset = chain_.data_.size();
        if (!data_types.empty()) {
            // core::encode_into reserves exactly what it appends, which defeats the vector's
            // geometric growth on a long arena: keep spare capacity here.
            if (chain_.data_.capacity() - chain_.data_.size() < 64 * 1024)
                chain_.data_.reserve(chain_.data_.capacity() * 2 + 1024 * 1024);
            const std::vector<AbiValue> values(data_values);
            auto ok = core::encode_into(chain_.data_, data_types, values);
            if (!ok) die(std::string(to_string(kind)) + ": " + ok.error().detail);
        }
        log.data_size = static_cast<uint32_t>(chain_.data_.size() - log.data_offset);
        chain_.logs_.push_back(log);
        ++chain_.counts_[static_cast<size_t>(kind)];
    }

    // ---- random values ----

    std::string cid() {
        static constexpr std::string_view kBase32 = "abcdefghijklmnopqrstuvwxyz234567";
        std::string s = "ipfs://bafkrei";
        for (int i = 0; i < 52; ++i) s += kBase32[rng_.below(kBase32.size())];
        return s;
    }
    std::string agent_uri(uint64_t agent_id) {
        if (rng_.percent(70)) return cid();
        return "https://agents.example.com/" + std::to_string(agent_id) + "/registration.json";
    }
    uint64_t pick_agent() {
        // A few popular agents get much of the traffic, as on the live registries.
        const uint64_t n = agents_.size();
        return rng_.percent(30) ? rng_.below(std::min<uint64_t>(n, 100)) : rng_.below(n);
    }
    template <typename T>
    const T& pick(const std::vector<T>& v) {
        return v[rng_.below(v.size())];
    }
    template <typename T, size_t N>
    T pick(const std::array<T, N>& v) {
        return v[rng_.below(N)];
    }

    // ---- actions (one transaction each) ----

    struct Agent {
        core::Address owner;
        bool has_wallet = false;
    };
    struct Feedback {
        uint64_t agent_id = 0;
        uint32_t client = 0;
        uint64_t index = 0;
        bool revoked = false;
    };
    struct Request {
        Hash32 hash{};
        uint32_t validator = 0;
        uint64_t agent_id = 0;
    };
    struct Tool {
        uint32_t creator = 0;
        core::Address predicate;
        bool live = true;
    };
    struct OpenTask {
        Hash32 run_id{};
        Hash32 task_hash{};
    };

    enum class Action : uint8_t {
        feedback,
        register_agent,
        uri_update,
        metadata,
        wallet,
        transfer,
        approval,
        approval_for_all,
        revoke,
        response,
        validation_request,
        validation_response,
        tool_register,
        tool_update,
        tool_predicate,
        tool_deregister,
        workflow_run,
        workflow_reply,
        workflow_fail,
    };
    struct Weight {
        Action action;
        uint32_t weight;    // relative frequency of the transaction
        uint32_t max_logs;  // logs it may emit
    };
    // NewFeedback is about half of all logs, as on the live Reputation Registry; registrations
    // (3-4 logs each) a fifth; the rest spread over responses, revocations, validations, tools and
    // workflow runs.
    static constexpr std::array<Weight, 19> kWeights{{
        {Action::feedback, 500, 1},
        {Action::register_agent, 60, 4},
        {Action::uri_update, 20, 1},
        {Action::metadata, 20, 1},
        {Action::wallet, 5, 1},
        {Action::transfer, 7, 2},
        {Action::approval, 5, 1},
        {Action::approval_for_all, 2, 1},
        {Action::revoke, 40, 1},
        {Action::response, 70, 1},
        {Action::validation_request, 30, 1},
        {Action::validation_response, 35, 1},
        {Action::tool_register, 10, 1},
        {Action::tool_update, 10, 1},
        {Action::tool_predicate, 5, 1},
        {Action::tool_deregister, 3, 1},
        {Action::workflow_run, 30, 1},
        {Action::workflow_reply, 27, 2},
        {Action::workflow_fail, 3, 1},
    }};

    void act(uint64_t remaining) {
        static constexpr uint32_t kTotal = [] {
            uint32_t t = 0;
            for (const auto& w : kWeights) t += w.weight;
            return t;
        }();
        uint64_t r = rng_.below(kTotal);
        const Weight* chosen = kWeights.data();
        for (const auto& w : kWeights) {
            if (r < w.weight) {
                chosen = &w;
                break;
            }
            r -= w.weight;
        }
        begin_txn();
        bool done = chosen->max_logs <= remaining && perform(chosen->action);
        // Fallback when the action's preconditions do not hold yet (no agent, no feedback, ...)
        // or it could overshoot the exact event count: a one-log transaction that always can.
        if (!done) {
            if (!agents_.empty())
                done = perform(Action::feedback);
            else if (remaining >= 4)
                done = perform(Action::register_agent);
            else
                done = perform(Action::tool_register);
        }
        if (!done) die("no action possible");
        end_txn();
    }

    bool perform(Action action) {
        switch (action) {
            case Action::feedback:
                return feedback();
            case Action::register_agent:
                return register_agent();
            case Action::uri_update:
                return uri_update();
            case Action::metadata:
                return metadata();
            case Action::wallet:
                return wallet();
            case Action::transfer:
                return transfer();
            case Action::approval:
                return approval();
            case Action::approval_for_all:
                return approval_for_all();
            case Action::revoke:
                return revoke();
            case Action::response:
                return response();
            case Action::validation_request:
                return validation_request();
            case Action::validation_response:
                return validation_response();
            case Action::tool_register:
                return tool_register();
            case Action::tool_update:
                return tool_update();
            case Action::tool_predicate:
                return tool_predicate();
            case Action::tool_deregister:
                return tool_deregister();
            case Action::workflow_run:
                return workflow_run();
            case Action::workflow_reply:
                return workflow_reply();
            case Action::workflow_fail:
                return workflow_fail();
        }
        return false;
    }

    // IdentityRegistry.register(agentURI[, metadata]): _mint emits Transfer(0, owner, id) and the
    // agentWallet MetadataSet, then the custom metadata, then Registered (IdentityRegistry.sol).
    bool register_agent() {
        const uint64_t agent_id = agents_.size();
        const core::Address& owner = pick(owners_);
        agents_.push_back({owner, true});
        emit(Registry::identity, EventKind::transfer,
             {identity::kTransferTopic, word(core::Address{}), word(owner), word(agent_id)});
        metadata_set(agent_id, "agentWallet", core::Bytes(owner.bytes.begin(), owner.bytes.end()));
        if (rng_.percent(20)) {
            metadata_set(agent_id, pick(kMetadataKeys), rng_.bytes(8 + rng_.below(56)));
        }
        const std::string uri = rng_.percent(95) ? agent_uri(agent_id) : std::string();
        emit(Registry::identity, EventKind::registered,
             {identity::kRegisteredTopic, word(agent_id), word(owner)}, t_string_, {AbiValue(uri)});
        return true;
    }

    void metadata_set(uint64_t agent_id, std::string_view key, core::Bytes value) {
        emit(Registry::identity, EventKind::metadata_set,
             {identity::kMetadataSetTopic, word(agent_id), core::keccak256(key)}, t_string_bytes_,
             {AbiValue(std::string(key)), AbiValue(std::move(value))});
    }

    bool uri_update() {
        if (agents_.empty()) return false;
        const uint64_t agent_id = pick_agent();
        emit(Registry::identity, EventKind::uri_updated,
             {identity::kUriUpdatedTopic, word(agent_id), word(agents_[agent_id].owner)}, t_string_,
             {AbiValue(agent_uri(agent_id))});
        return true;
    }

    bool metadata() {
        if (agents_.empty()) return false;
        metadata_set(pick_agent(), pick(kMetadataKeys), rng_.bytes(8 + rng_.below(56)));
        return true;
    }

    // setAgentWallet: the reserved key with the 20-byte packed wallet.
    bool wallet() {
        if (agents_.empty()) return false;
        const uint64_t agent_id = pick_agent();
        const core::Address w = derive_address("wallet", rng_.below(1'000'000));
        agents_[agent_id].has_wallet = true;
        metadata_set(agent_id, "agentWallet", core::Bytes(w.bytes.begin(), w.bytes.end()));
        return true;
    }

    // ERC-8004: a transfer clears the agent wallet (Transfer, then MetadataSet to "").
    bool transfer() {
        if (agents_.empty()) return false;
        const uint64_t agent_id = pick_agent();
        Agent& a = agents_[agent_id];
        core::Address to = pick(owners_);
        if (to == a.owner) return false;
        emit(Registry::identity, EventKind::transfer,
             {identity::kTransferTopic, word(a.owner), word(to), word(agent_id)});
        if (a.has_wallet) metadata_set(agent_id, "agentWallet", {});
        a.owner = to;
        a.has_wallet = false;
        return true;
    }

    // Operators come from their own pool, so no approved address ever gives feedback
    // (giveFeedback reverts SelfFeedbackNotAllowed for the owner and its approved operators).
    bool approval() {
        if (agents_.empty()) return false;
        const uint64_t agent_id = pick_agent();
        emit(Registry::identity, EventKind::approval,
             {identity::kApprovalTopic, word(agents_[agent_id].owner), word(pick(operators_)),
              word(agent_id)});
        return true;
    }

    bool approval_for_all() {
        emit(Registry::identity, EventKind::approval_for_all,
             {identity::kApprovalForAllTopic, word(pick(owners_)), word(pick(operators_))}, t_bool_,
             {AbiValue(rng_.percent(80))});
        return true;
    }

    // ReputationRegistry.giveFeedback: feedbackIndex = ++lastIndex[agent][client], from 1.
    bool feedback() {
        if (agents_.empty()) return false;
        const uint64_t agent_id = pick_agent();
        const auto client = static_cast<uint32_t>(rng_.below(clients_.size()));
        const uint64_t index = ++last_index_[(agent_id << 16) ^ client];
        feedback_.push_back({agent_id, client, index, false});

        int64_t value = 0;
        uint64_t decimals = 0;
        const uint64_t shape = rng_.below(10);
        if (shape < 7) {
            value = static_cast<int64_t>(rng_.below(101));  // a 0-100 score
        } else if (shape < 9) {
            value = static_cast<int64_t>(9000 + rng_.below(1000));  // uptime 90.00-99.99 %
            decimals = 2;
        } else {
            value = -static_cast<int64_t>(rng_.below(1000));  // a penalty, one decimal
            decimals = 1;
        }
        const std::string tag1(pick(kTag1));
        const std::string tag2(pick(kTag2));
        const std::string endpoint =
            rng_.percent(60) ? "https://agent-" + std::to_string(agent_id) + ".example.com/a2a"
                             : std::string();
        const bool has_file = rng_.percent(70);
        const std::string uri = has_file ? cid() : std::string();
        const Hash32 file_hash = has_file ? rng_.hash() : Hash32{};
        emit(Registry::reputation, EventKind::new_feedback,
             {reputation::kNewFeedbackTopic, word(agent_id), word(clients_[client]),
              core::keccak256(tag1)},
             t_feedback_,
             {AbiValue(core::Uint256(index)), AbiValue(core::Int256(value)),
              AbiValue(core::Uint256(decimals)), AbiValue(tag1), AbiValue(tag2), AbiValue(endpoint),
              AbiValue(uri), fixed(file_hash)});
        return true;
    }

    // revokeFeedback: only the client, only an existing and not yet revoked index.
    bool revoke() {
        if (feedback_.empty()) return false;
        for (int attempt = 0; attempt < 4; ++attempt) {
            Feedback& f = feedback_[rng_.below(feedback_.size())];
            if (f.revoked) continue;
            f.revoked = true;
            emit(Registry::reputation, EventKind::feedback_revoked,
                 {reputation::kFeedbackRevokedTopic, word(f.agent_id), word(clients_[f.client]),
                  word(f.index)});
            return true;
        }
        return false;
    }

    // appendResponse: anyone (mostly the agent's owner), on existing feedback, non-empty URI.
    bool response() {
        if (feedback_.empty()) return false;
        const Feedback& f = feedback_[rng_.below(feedback_.size())];
        const core::Address& responder =
            rng_.percent(70) ? agents_[f.agent_id].owner : pick(validators_);
        emit(Registry::reputation, EventKind::response_appended,
             {reputation::kResponseAppendedTopic, word(f.agent_id), word(clients_[f.client]),
              word(responder)},
             t_response_, {AbiValue(core::Uint256(f.index)), AbiValue(cid()), fixed(rng_.hash())});
        return true;
    }

    bool validation_request() {
        if (agents_.empty()) return false;
        Request r;
        r.agent_id = pick_agent();
        r.validator = static_cast<uint32_t>(rng_.below(validators_.size()));
        r.hash = rng_.hash();
        requests_.push_back(r);
        emit(Registry::validation, EventKind::validation_request,
             {validation::kValidationRequestTopic, word(validators_[r.validator]), word(r.agent_id),
              r.hash},
             t_string_, {AbiValue(cid())});
        return true;
    }

    // validationResponse: only the requested validator; may be repeated (progressive finality).
    bool validation_response() {
        if (requests_.empty()) return false;
        const size_t n = requests_.size();
        const Request& r = rng_.percent(70)
                               ? requests_[n - 1 - rng_.below(std::min<size_t>(n, 500))]
                               : requests_[rng_.below(n)];
        const bool has_file = rng_.percent(80);
        emit(Registry::validation, EventKind::validation_response,
             {validation::kValidationResponseTopic, word(validators_[r.validator]),
              word(r.agent_id), r.hash},
             t_validation_response_,
             {AbiValue(core::Uint256(rng_.below(101))), AbiValue(has_file ? cid() : std::string()),
              fixed(has_file ? rng_.hash() : Hash32{}),
              AbiValue(std::string(pick(kValidationTags)))});
        return true;
    }

    // ToolRegistry: toolId = ++toolCount, from 1.
    bool tool_register() {
        Tool t;
        t.creator = static_cast<uint32_t>(rng_.below(owners_.size()));
        t.predicate = rng_.percent(50) ? core::Address{} : pick(predicates_);
        tools_.push_back(t);
        const uint64_t tool_id = tools_.size();
        emit(Registry::tool, EventKind::tool_registered,
             {tools::kToolRegisteredTopic, word(tool_id), word(owners_[t.creator]),
              word(t.predicate)},
             t_string_hash_, {AbiValue(cid()), fixed(rng_.hash())});
        return true;
    }

    /// A live tool's id (1-based), or 0.
    uint64_t live_tool() {
        if (tools_.empty()) return 0;
        for (int attempt = 0; attempt < 4; ++attempt) {
            const uint64_t i = rng_.below(tools_.size());
            if (tools_[i].live) return i + 1;
        }
        return 0;
    }

    bool tool_update() {
        const uint64_t tool_id = live_tool();
        if (tool_id == 0) return false;
        emit(Registry::tool, EventKind::tool_metadata_updated,
             {tools::kToolMetadataUpdatedTopic, word(tool_id)}, t_string_hash_,
             {AbiValue(cid()), fixed(rng_.hash())});
        return true;
    }

    // setAccessPredicate: an idempotent call emits nothing, so the predicate always changes.
    bool tool_predicate() {
        const uint64_t tool_id = live_tool();
        if (tool_id == 0) return false;
        Tool& t = tools_[tool_id - 1];
        const core::Address next = pick(predicates_);
        if (next == t.predicate) return false;
        t.predicate = next;
        emit(Registry::tool, EventKind::access_predicate_updated,
             {tools::kAccessPredicateUpdatedTopic, word(tool_id), word(next)});
        return true;
    }

    bool tool_deregister() {
        const uint64_t tool_id = live_tool();
        if (tool_id == 0) return false;
        tools_[tool_id - 1].live = false;
        emit(Registry::tool, EventKind::tool_deregistered,
             {tools::kToolDeregisteredTopic, word(tool_id)});
        return true;
    }

    // ---- ERC-8301 SingleStageWorkflow ----

    /// AgentWorkflow.taskHashOf: keccak256(abi.encode(stage, taskSeq, inputHash, timestamp,
    /// expiresAt, keccak256(abi.encodePacked(prevReplyHashes)), workflowRunId)).
    Hash32 task_hash(const workflow::AgentTask& t) {
        core::Keccak256 packed;
        for (const auto& h : t.prev_reply_hashes) packed.update(h);
        const std::vector<AbiValue> values{AbiValue(core::Uint256(t.stage)),
                                           AbiValue(t.task_seq),
                                           fixed(t.input_hash),
                                           AbiValue(t.timestamp),
                                           AbiValue(t.expires_at),
                                           fixed(packed.finalize()),
                                           fixed(t.workflow_run_id)};
        auto enc = core::encode(t_task_hash_, values);
        if (!enc) die("taskHashOf: " + enc.error().detail);
        return core::keccak256(*enc);
    }

    /// AgentWorkflow.replyHashOf: keccak256(abi.encode(operationId, outputHash, timestamp,
    /// replier, keccak256(abi.encodePacked(prevTaskHashes)), workflowRunId)).
    Hash32 reply_hash(const workflow::AgentReply& r) {
        core::Keccak256 packed;
        for (const auto& h : r.prev_task_hashes) packed.update(h);
        const std::vector<AbiValue> values{fixed(r.operation_id),    fixed(r.output_hash),
                                           AbiValue(r.timestamp),    address_value(r.replier),
                                           fixed(packed.finalize()), fixed(r.workflow_run_id)};
        auto enc = core::encode(t_reply_hash_, values);
        if (!enc) die("replyHashOf: " + enc.error().detail);
        return core::keccak256(*enc);
    }

    /// Stores the task as getAgentTask returns it: (AgentTask, proven = false).
    Hash32 store_task(const workflow::AgentTask& t) {
        const Hash32 h = task_hash(t);
        const std::vector<AbiValue> values{workflow::to_abi(t), AbiValue(false)};
        auto enc = core::encode(t_get_task_, values);
        if (!enc) die("getAgentTask: " + enc.error().detail);
        chain_.task_results_.emplace(h, std::move(*enc));
        return h;
    }

    // run(inputHash, input, expiresAt): workflowRunId = keccak256(abi.encode(msg.sender,
    // block.number, nonce)), then _start emits the single stage-0 task.
    bool workflow_run() {
        const core::Address& caller = pick(clients_);
        const std::vector<AbiValue> id_values{address_value(caller),
                                              AbiValue(core::Uint256(block_num_)),
                                              AbiValue(core::Uint256(run_nonce_++))};
        auto id_enc = core::encode(t_run_id_, id_values);
        if (!id_enc) die("workflowRunId: " + id_enc.error().detail);
        workflow::AgentTask t;
        t.stage = 0;  // SingleStageWorkflow.STAGE_EXECUTE
        t.task_seq = core::Uint256(0);
        if (rng_.percent(50)) {
            t.input = rng_.bytes(16 + rng_.below(80));
            t.input_hash = core::keccak256(t.input);
        } else {
            t.input_hash = rng_.hash();  // input kept off chain
        }
        t.timestamp = core::Uint256(now());
        t.expires_at = core::Uint256(rng_.percent(50) ? now() + 3600 : 0);
        t.workflow_run_id = core::keccak256(*id_enc);
        const Hash32 h = store_task(t);
        open_tasks_.push_back({t.workflow_run_id, h});
        emit(Registry::workflow, EventKind::new_agent_task,
             {workflow::kNewAgentTaskTopic, t.workflow_run_id, word(0), h});
        return true;
    }

    OpenTask take_open_task() {
        const size_t i = rng_.below(open_tasks_.size());
        const OpenTask t = open_tasks_[i];
        open_tasks_[i] = open_tasks_.back();
        open_tasks_.pop_back();
        return t;
    }

    // onAgentReply: AgentReplyAnchored, then the sync gate completes the run with the terminal
    // task (stage 255, seq 1, prevReplyHashes = [replyHash]) and WorkflowCompleted(Success).
    bool workflow_reply() {
        if (open_tasks_.empty()) return false;
        const OpenTask open = take_open_task();
        workflow::AgentReply r;
        r.operation_id = rng_.hash();
        r.output = rng_.bytes(32 + rng_.below(96));
        r.output_hash = core::keccak256(r.output);
        r.timestamp = core::Uint256(now());
        r.replier = pick(repliers_);
        r.prev_task_hashes = {open.task_hash};
        r.workflow_run_id = open.run_id;
        const Hash32 rh = reply_hash(r);
        const std::vector<AbiValue> values{workflow::to_abi(r), address_value(core::Address{}),
                                           AbiValue(false), fixed(Hash32{})};
        auto enc = core::encode(t_get_reply_, values);
        if (!enc) die("getAgentReply: " + enc.error().detail);
        chain_.reply_results_.emplace(rh, std::move(*enc));
        emit(Registry::workflow, EventKind::agent_reply_anchored,
             {workflow::kAgentReplyAnchoredTopic, open.run_id, rh, word(r.replier)});

        workflow::AgentTask final_task;
        final_task.stage = kTerminalStage;
        final_task.task_seq = core::Uint256(1);
        final_task.timestamp = core::Uint256(now());
        final_task.prev_reply_hashes = {rh};
        final_task.workflow_run_id = open.run_id;
        const Hash32 final_hash = store_task(final_task);
        emit(Registry::workflow, EventKind::workflow_completed,
             {workflow::kWorkflowCompletedTopic, open.run_id}, t_completed_,
             {AbiValue(core::Uint256(kRunSuccess)), fixed(final_hash),
              AbiValue(core::Uint256(now()))});
        return true;
    }

    // replyTimeout with no retry left: WorkflowCompleted(Failed, finalTaskHash = 0).
    bool workflow_fail() {
        if (open_tasks_.empty()) return false;
        const OpenTask open = take_open_task();
        emit(
            Registry::workflow, EventKind::workflow_completed,
            {workflow::kWorkflowCompletedTopic, open.run_id}, t_completed_,
            {AbiValue(core::Uint256(kRunFailed)), fixed(Hash32{}), AbiValue(core::Uint256(now()))});
        return true;
    }

    SyntheticChain& chain_;
    const ChainParams& params_;
    Rng rng_;

    uint64_t block_num_ = 0;
    uint32_t txn_index_ = 0;
    uint32_t log_index_ = 0;
    uint64_t txn_count_ = 0;
    Hash32 txn_hash_{};
    uint64_t run_nonce_ = 0;

    std::vector<core::Address> owners_, clients_, validators_, operators_, repliers_, predicates_;
    std::vector<Agent> agents_;
    std::vector<Feedback> feedback_;
    std::unordered_map<uint64_t, uint64_t> last_index_;
    std::vector<Request> requests_;
    std::vector<Tool> tools_;
    std::vector<OpenTask> open_tasks_;

    // The data layouts (non-indexed params) of the events, from contracts/abi/*.json.
    const std::vector<AbiType> t_string_ = types("(string)");
    const std::vector<AbiType> t_bool_ = types("(bool)");
    const std::vector<AbiType> t_string_bytes_ = types("(string,bytes)");
    const std::vector<AbiType> t_string_hash_ = types("(string,bytes32)");
    const std::vector<AbiType> t_feedback_ =
        types("(uint64,int128,uint8,string,string,string,string,bytes32)");
    const std::vector<AbiType> t_response_ = types("(uint64,string,bytes32)");
    const std::vector<AbiType> t_validation_response_ = types("(uint8,string,bytes32,string)");
    const std::vector<AbiType> t_completed_ = types("(uint8,bytes32,uint256)");
    const std::vector<AbiType> t_run_id_ = types("(address,uint256,uint256)");
    const std::vector<AbiType> t_task_hash_ =
        types("(uint8,uint256,bytes32,uint256,uint256,bytes32,bytes32)");
    const std::vector<AbiType> t_reply_hash_ =
        types("(bytes32,bytes32,uint256,address,bytes32,bytes32)");
    const std::vector<AbiType> t_get_task_ =
        types("((uint8,uint256,bytes32,bytes,uint256,uint256,bytes32[],bytes32),bool)");
    const std::vector<AbiType> t_get_reply_ =
        types("((bytes32,bytes32,bytes,uint256,address,bytes32[],bytes32),address,bool,bytes32)");
};

SyntheticChain SyntheticChain::generate(const ChainParams& params) {
    SyntheticChain chain;
    chain.params_ = params;
    ChainGenerator generator(chain, chain.params_);
    generator.run();
    return chain;
}

}  // namespace credence::bench
