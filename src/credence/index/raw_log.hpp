// One log as the indexer ingests it: the fields of an eth_getLogs entry (execution-apis Log) that
// identify and decode it. Parsed from large eth_getLogs responses by log_json.hpp (simdjson), so
// it is a plain value with no JSON attached.
// Thread-safety: plain value type.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>

namespace credence::index {

struct RawLog {
    uint64_t block_num = 0;
    core::Hash32 block_hash{};
    core::Hash32 txn_hash{};
    uint64_t txn_index = 0;
    uint64_t log_index = 0;
    core::Address address{};
    std::vector<core::Hash32> topics;  // 0..4 entries
    core::Bytes data;
    bool removed = false;  // set by a node that reports a reorg-dropped log; never stored
    // The block's timestamp when the node sends `blockTimestamp` (anvil, geth >= 1.16, reth);
    // otherwise the indexer reads the block's header.
    std::optional<uint64_t> block_timestamp;

    friend bool operator==(const RawLog&, const RawLog&) = default;
};

/// A block header as the reorg tracker needs it.
struct BlockHeader {
    uint64_t block_num = 0;
    core::Hash32 hash{};
    core::Hash32 parent_hash{};
    uint64_t timestamp = 0;

    friend bool operator==(const BlockHeader&, const BlockHeader&) = default;
};

}  // namespace credence::index
