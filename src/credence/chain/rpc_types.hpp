// Typed values of the Ethereum JSON-RPC API (execution-apis): block ids, call requests, log
// filters, and the parts of blocks, logs, receipts and fee history that Credence reads.
//
// Invariants: values parsed from a node are complete; a field that the spec allows to be null
// for pending objects (block number, log index, ...) is rejected as bad_response rather than
// defaulted, because Credence only reads mined data. Numbers that fit the protocol's uint64
// (block numbers, gas, nonces, timestamps) are uint64_t; wei amounts are Uint256.
// Thread-safety: plain value types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/uint256.hpp>

namespace credence::chain {

/// A block parameter: a tag or a number (execution-apis BlockNumberOrTag).
class BlockId {
public:
    enum class Tag : uint8_t { latest, pending, earliest, safe, finalized };

    constexpr BlockId() noexcept = default;               // latest
    constexpr BlockId(Tag tag) noexcept : value_(tag) {}  // NOLINT: implicit by design
    constexpr BlockId(uint64_t block_num) noexcept : value_(block_num) {}  // NOLINT
    static constexpr BlockId latest() noexcept { return {Tag::latest}; }
    static constexpr BlockId pending() noexcept { return {Tag::pending}; }
    static constexpr BlockId earliest() noexcept { return {Tag::earliest}; }
    static constexpr BlockId safe() noexcept { return {Tag::safe}; }
    static constexpr BlockId finalized() noexcept { return {Tag::finalized}; }

    /// "latest", "pending", ... or the QUANTITY "0x1a".
    [[nodiscard]] std::string to_param() const;

private:
    std::variant<Tag, uint64_t> value_{Tag::latest};
};

/// Arguments of eth_call / eth_estimateGas (execution-apis GenericTransaction subset).
struct CallRequest {
    std::optional<core::Address> from;
    std::optional<core::Address> to;  // nullopt: contract creation (estimateGas of a deploy)
    core::Bytes data;
    std::optional<core::Uint256> value;
    std::optional<uint64_t> gas;
};

/// One topic position of a log filter: nullopt matches anything; a list matches any of its
/// entries (OR). Positions are ANDed (execution-apis FilterTopics).
using TopicFilter = std::optional<std::vector<core::Hash32>>;

struct LogFilter {
    BlockId from_block = BlockId::latest();
    BlockId to_block = BlockId::latest();
    /// Empty: any address. Otherwise logs from any of these.
    std::vector<core::Address> addresses;
    std::vector<TopicFilter> topics;
    /// When set, from_block / to_block are ignored (EIP-234).
    std::optional<core::Hash32> block_hash;
};

struct Log {
    core::Address address;
    std::vector<core::Hash32> topics;
    core::Bytes data;
    uint64_t block_num = 0;
    core::Hash32 block_hash{};
    core::Hash32 txn_hash{};
    uint64_t txn_index = 0;
    uint64_t log_index = 0;
    bool removed = false;  // true when a reorg dropped it
    std::optional<uint64_t> block_timestamp;  // `blockTimestamp`, sent by newer nodes
    friend bool operator==(const Log&, const Log&) = default;
};

struct Block {
    uint64_t number = 0;
    core::Hash32 hash{};
    core::Hash32 parent_hash{};
    uint64_t timestamp = 0;
    std::optional<core::Uint256> base_fee_per_gas;  // absent before London (EIP-1559)
    uint64_t gas_limit = 0;
    uint64_t gas_used = 0;
    std::vector<core::Hash32> txn_hashes;
    friend bool operator==(const Block&, const Block&) = default;
};

struct Receipt {
    core::Hash32 txn_hash{};
    uint64_t txn_index = 0;
    core::Hash32 block_hash{};
    uint64_t block_num = 0;
    core::Address from;
    std::optional<core::Address> to;  // nullopt for contract creation
    /// EIP-658: 1 success, 0 failure.
    bool status = false;
    uint64_t gas_used = 0;
    uint64_t cumulative_gas_used = 0;
    core::Uint256 effective_gas_price;
    std::optional<core::Address> contract_address;
    std::vector<Log> logs;
};

/// eth_feeHistory result (EIP-1559). base_fee_per_gas has block_count + 1 entries (the next
/// block's base fee last); reward[i] has one entry per requested percentile.
struct FeeHistory {
    uint64_t oldest_block = 0;
    std::vector<core::Uint256> base_fee_per_gas;
    std::vector<double> gas_used_ratio;
    std::vector<std::vector<core::Uint256>> reward;
};

}  // namespace credence::chain
