// Decoding of event logs against an event ABI (Solidity ABI spec §Events).
//
// A non-anonymous log carries topic0 = keccak256(signature), then one topic per indexed param, and
// the non-indexed params abi-encoded in `data`. Indexed params of value types (uintN, intN,
// address, bool, bytesN) are stored in their topic as one ABI word and decoded with the usual
// padding and range checks. Indexed params of other types (bytes, string, arrays, tuples) are
// stored as the keccak256 of their encoding, which cannot be inverted: they come back as the
// 32-byte hash (a bytes32 FixedBytes) with `hashed` set.
//
// Thread-safety: LogDecoder is immutable after construction and may be shared between threads.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include <credence/core/abi.hpp>
#include <credence/core/abi_signature.hpp>

namespace credence::core {

struct LogValue {
    AbiValue value;
    bool hashed = false;  // indexed dynamic param: value is the topic (keccak256 of the value)

    friend bool operator==(const LogValue&, const LogValue&) = default;
};

/// Decodes a log: one LogValue per event input, in declaration order. Checks the topic count
/// and, unless the event is anonymous, topic0.
[[nodiscard]] Result<std::vector<LogValue>, AbiError> decode_log(const AbiEvent& event,
                                                                 std::span<const Hash32> topics,
                                                                 ByteView data,
                                                                 DecodeOptions options = {});

/// The same with topic0 and the layout computed once, for the indexer's hot path.
class LogDecoder {
public:
    explicit LogDecoder(AbiEvent event);

    [[nodiscard]] const AbiEvent& event() const noexcept { return event_; }
    /// topic0, or nullopt for an anonymous event.
    [[nodiscard]] const std::optional<Hash32>& topic0() const noexcept { return topic0_; }

    [[nodiscard]] Result<std::vector<LogValue>, AbiError> decode(std::span<const Hash32> topics,
                                                                 ByteView data,
                                                                 DecodeOptions options = {}) const;

private:
    AbiEvent event_;
    std::optional<Hash32> topic0_;
    std::vector<size_t> data_params_;  // indices of the non-indexed inputs
    size_t indexed_count_ = 0;
};

}  // namespace credence::core
