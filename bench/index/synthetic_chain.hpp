// A deterministic synthetic chain of Credence registry events, for the indexer throughput
// benchmark (docs/benchmarks.md: "a synthetic chain of 1,000,000 or more registry events ...
// served as eth_getLogs JSON from a local HTTP server, so that the figure is the indexer's own").
//
// generate() draws, from a seeded PRNG (xoshiro256**, so the same params give the same chain on
// every platform), a realistic mix of transactions on five contracts at fixed addresses: the
// ERC-8004 Identity, Reputation and Validation registries, the ERC-8257 ToolRegistry and an
// ERC-8301 SingleStageWorkflow. Logs are encoded exactly as the contracts emit them (topic0 from
// the generated bindings, indexed params as topics, the rest abi-encoded by core::encode) and the
// history is causally consistent: feedback only for registered agents and never from their owner,
// revocations and responses only for existing feedback, validation responses only from the
// requested validator, tool updates only for live tools, replies only for open tasks.
//
// Invariants: exactly params.events logs; block 0 is the genesis (no logs); blocks are numbered
// 0..head() with hash(n).parent == hash(n-1); logs are sorted by (block_num, log_index) and a
// block's logs are contiguous; the last kTrailingEmptyBlocks blocks are empty so that every log
// is final for any finality depth up to that many blocks.
//
// Thread-safety: a generated SyntheticChain is immutable and may be read from many threads.
// Ownership: it owns every byte it serves (logs, topics and data live in flat arenas).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>

namespace credence::bench {

enum class Registry : uint8_t { identity, reputation, validation, tool, workflow };
inline constexpr size_t kRegistryCount = 5;

/// Every event kind the generator emits, for the per-event counts.
enum class EventKind : uint8_t {
    transfer,
    approval,
    approval_for_all,
    registered,
    uri_updated,
    metadata_set,
    new_feedback,
    feedback_revoked,
    response_appended,
    validation_request,
    validation_response,
    tool_registered,
    tool_metadata_updated,
    access_predicate_updated,
    tool_deregistered,
    new_agent_task,
    agent_reply_anchored,
    workflow_completed,
};
inline constexpr size_t kEventKindCount = 18;

[[nodiscard]] std::string_view to_string(EventKind kind) noexcept;
/// The fixed address of a registry (the ERC-8004 ones are the deployed mainnet addresses).
[[nodiscard]] const core::Address& registry_address(Registry registry) noexcept;
/// The kind name of `credence index --registry <kind>=<address>`.
[[nodiscard]] std::string_view registry_kind(Registry registry) noexcept;
/// The contract name ("IdentityRegistry", ...).
[[nodiscard]] std::string_view registry_contract(Registry registry) noexcept;

struct ChainParams {
    uint64_t events = 1'000'000;
    uint64_t seed = 8004;
    uint64_t chain_id = 8'004'001;  // no real chain: the indexer must take the registries as given
    uint64_t genesis_timestamp = 1'767'225'600;  // 2026-01-01T00:00:00Z
    uint64_t block_time = 12;
    uint32_t max_logs_per_block = 40;  // a block with logs holds 1..max (actions never split)
    uint32_t empty_block_percent = 10;
};

/// Empty blocks appended after the last log (see the invariants above).
inline constexpr uint64_t kTrailingEmptyBlocks = 64;

struct SyntheticLog {
    uint64_t block_num = 0;
    core::Hash32 txn_hash{};
    uint64_t data_offset = 0;  // into SyntheticChain's data arena
    uint32_t data_size = 0;
    uint32_t topics_offset = 0;  // into SyntheticChain's topic arena
    uint32_t txn_index = 0;      // within the block
    uint32_t log_index = 0;      // within the block
    uint8_t topic_count = 0;
    Registry registry = Registry::identity;
    EventKind kind = EventKind::transfer;
};

struct SyntheticBlock {
    core::Hash32 hash{};
    uint64_t timestamp = 0;
    uint64_t first_log = 0;  // index of the block's first log; its logs end at the next block's
};

struct Hash32Hasher {
    size_t operator()(const core::Hash32& h) const noexcept;
};

class SyntheticChain {
public:
    [[nodiscard]] static SyntheticChain generate(const ChainParams& params);

    [[nodiscard]] const ChainParams& params() const noexcept { return params_; }
    [[nodiscard]] uint64_t head() const noexcept { return blocks_.size() - 1; }
    [[nodiscard]] const SyntheticBlock& block(uint64_t block_num) const {
        return blocks_[block_num];
    }
    [[nodiscard]] const core::Hash32& parent_hash(uint64_t block_num) const;
    /// Block number of a block hash, or -1.
    [[nodiscard]] int64_t find_block(const core::Hash32& hash) const;

    [[nodiscard]] std::span<const SyntheticLog> logs() const noexcept { return logs_; }
    /// The logs of blocks [from, to] (clamped to the head), contiguous.
    [[nodiscard]] std::span<const SyntheticLog> logs_in(uint64_t from, uint64_t to) const;
    [[nodiscard]] std::span<const core::Hash32> topics(const SyntheticLog& log) const {
        return {topics_.data() + log.topics_offset, log.topic_count};
    }
    [[nodiscard]] core::ByteView data(const SyntheticLog& log) const {
        return {data_.data() + log.data_offset, log.data_size};
    }

    /// The abi-encoded return data of getAgentTask(task_hash) / getAgentReply(reply_hash) as the
    /// workflow answers after the whole chain, or nullptr when it would revert (unknown hash).
    [[nodiscard]] const core::Bytes* agent_task_result(const core::Hash32& task_hash) const;
    [[nodiscard]] const core::Bytes* agent_reply_result(const core::Hash32& reply_hash) const;

    [[nodiscard]] const std::array<uint64_t, kEventKindCount>& counts() const noexcept {
        return counts_;
    }

private:
    friend class ChainGenerator;

    ChainParams params_;
    std::vector<SyntheticBlock> blocks_;
    std::vector<SyntheticLog> logs_;
    std::vector<core::Hash32> topics_;
    core::Bytes data_;
    std::unordered_map<core::Hash32, uint64_t, Hash32Hasher> block_by_hash_;
    std::unordered_map<core::Hash32, core::Bytes, Hash32Hasher> task_results_;
    std::unordered_map<core::Hash32, core::Bytes, Hash32Hasher> reply_results_;
    std::array<uint64_t, kEventKindCount> counts_{};
};

}  // namespace credence::bench
