// ABI items (functions, events, custom errors) and their human-readable signatures.
//
// Accepted forms, cast-style:
//   "giveFeedback(uint256,int128,uint8,string,string,string,string,bytes32)"
//   "f(uint256)(uint256,string)"              outputs after the inputs
//   "register(string,(string,bytes)[])"      tuples, also written "tuple(string,bytes)[]"
//   "function balanceOf(address owner) view returns (uint256)"
//   "event Transfer(address indexed from, address indexed to, uint256 value)"
//   "error Unauthorized(address caller)"
// Parameter names and data locations (memory, calldata, storage) are allowed and ignored for the
// canonical signature. The selector of a function or error is the first 4 bytes of keccak256 of its
// canonical signature; an event's topic0 is the full hash (ABI spec §Function Selector, §Events).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/abi.hpp>
#include <credence/core/abi_type.hpp>
#include <credence/core/bytes.hpp>

namespace credence::core {

struct AbiParam {
    std::string name;  // may be empty
    AbiType type;
    bool indexed = false;  // events only

    friend bool operator==(const AbiParam&, const AbiParam&) = default;
};

/// The types of `params`, in order.
[[nodiscard]] std::vector<AbiType> types_of(std::span<const AbiParam> params);
/// "name(T1,T2,...)".
[[nodiscard]] std::string canonical_signature(std::string_view name,
                                              std::span<const AbiParam> params);

struct AbiFunction {
    std::string name;
    std::vector<AbiParam> inputs;
    std::vector<AbiParam> outputs;
    std::string state_mutability;  // "pure", "view", "nonpayable", "payable" or empty

    [[nodiscard]] std::string signature() const { return canonical_signature(name, inputs); }
    [[nodiscard]] Selector selector() const { return selector_of(signature()); }
};

struct AbiEvent {
    std::string name;
    std::vector<AbiParam> inputs;
    bool anonymous = false;

    [[nodiscard]] std::string signature() const { return canonical_signature(name, inputs); }
    /// keccak256 of the canonical signature: topic0 of every non-anonymous log of this event.
    [[nodiscard]] Hash32 topic0() const;
};

/// A custom error (Solidity >= 0.8.4); revert data is selector + abi.encode(inputs).
struct AbiCustomError {
    std::string name;
    std::vector<AbiParam> inputs;

    [[nodiscard]] std::string signature() const { return canonical_signature(name, inputs); }
    [[nodiscard]] Selector selector() const { return selector_of(signature()); }
};

/// Parses a function signature: "name(inputs)" with optional "(outputs)" or "returns (outputs)",
/// an optional leading "function" and state-mutability / visibility keywords.
[[nodiscard]] Result<AbiFunction, AbiError> parse_function_signature(std::string_view text);
/// Parses an event signature; params may be marked `indexed`; "anonymous" may follow the list.
[[nodiscard]] Result<AbiEvent, AbiError> parse_event_signature(std::string_view text);
/// Parses a custom error signature, with optional leading "error".
[[nodiscard]] Result<AbiCustomError, AbiError> parse_error_signature(std::string_view text);

}  // namespace credence::core
