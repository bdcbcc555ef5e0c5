// Runtime support for the generated contract bindings (tools/gen_bindings.cpp writes one
// header/source pair per contract under <build>/generated/credence/chain/bindings/).
//
// The generated code maps Solidity types to C++ types and converts through core::AbiValue, so the
// ABI codec of core/abi.hpp stays the only encoder and decoder:
//   uintN/intN, N <= 64   uint64_t / int64_t (lossless on decode; encode checks the range)
//   uintN/intN, N > 64    core::Uint256 / core::Int256
//   address               core::Address           bool      bool
//   bytes32               core::Hash32            bytesN    std::array<uint8_t, N>
//   bytes                 core::Bytes (params: core::ByteView)
//   string                std::string (params: std::string_view)
//   T[] / T[k]            std::vector<T> / std::array<T, k> (params: std::span<const T>)
//   tuple                 a generated struct, fields named after the ABI components
// to_abi/from_abi below are the conversions; from_abi returns false when the value does not have
// the shape the type promises, which the decoders of core never produce for the matching type.
//
// Call helpers: for every function with outputs the generator also writes
//   <contract>::call::<function>(Caller& caller, const core::Address& contract, args...)
// which encodes, runs the eth_call through `caller` and decodes: CallResult<T>, one CallError
// for every way it can fail. Caller is an interface rather than chain::RpcClient because this
// library depends on core only (chain links it, not the other way round): chain/contract_call.hpp
// implements it over the RPC client, and tests can inject a caller that fails. An interface, not
// a template over the client, keeps the generated helpers ordinary functions compiled once here.
// <contract>::call::<function>_answer(CallResult<core::Bytes>) does the decoding half for an
// eth_call sent elsewhere (a JSON-RPC batch).
//
// Thread-safety: everything here is pure. Ownership: the tables hold views of string literals.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <expected>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/abi.hpp>
#include <credence/core/abi_signature.hpp>
#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/uint256.hpp>

namespace credence::chain::bindings {

/// One function of a contract: selector and canonical signature, e.g. "register(string)".
struct FunctionInfo {
    core::Selector selector;
    std::string_view signature;
};
/// One event: topic0 and canonical signature.
struct EventInfo {
    core::Hash32 topic0;
    std::string_view signature;
};
/// One custom error: selector and canonical signature, e.g. "NotToolCreator(uint256,address)".
struct ErrorInfo {
    core::Selector selector;
    std::string_view signature;
};

/// Signature of the error with this selector in `errors`, or empty when there is none.
[[nodiscard]] std::string_view find_error_signature(std::span<const ErrorInfo> errors,
                                                    const core::Selector& selector) noexcept;
/// Signature of the function with this selector in `functions`, or empty.
[[nodiscard]] std::string_view find_function_signature(std::span<const FunctionInfo> functions,
                                                       const core::Selector& selector) noexcept;

/// How an eth_call through a call helper failed.
enum class CallErrorKind : uint8_t {
    rpc_failure,  // no answer from the contract: transport, HTTP, a non-revert JSON-RPC error
    reverted,     // the EVM reverted: revert_data is what the contract returned
    bad_answer,   // the return data does not decode as the function's outputs
    encoding,     // an argument is out of range of its Solidity type; nothing was sent
};

[[nodiscard]] std::string_view to_string(CallErrorKind kind) noexcept;

/// One failed contract call.
struct CallError {
    CallErrorKind kind = CallErrorKind::rpc_failure;
    /// Canonical signature of the function, "getAgentWallet(uint256)"; set by the call helper
    /// (empty for a raw Caller::call).
    std::string function;
    /// reverted: the revert data (possibly empty). Empty for the other kinds.
    core::Bytes revert_data;
    /// rpc_failure: the node's error; reverted: the revert decoded into one line (the Caller
    /// describes it, chain/revert.hpp); bad_answer, encoding: the ABI error.
    std::string detail;

    /// The function's name, "getAgentWallet" ("eth_call" when no function is set).
    [[nodiscard]] std::string_view name() const noexcept;
    /// One line, e.g. "getAgentWallet reverted: ERC721NonexistentToken(tokenId=7)" or
    /// "getAgentWallet: transport: connection refused".
    [[nodiscard]] std::string message() const;
    /// Whether the call reverted with this custom error (a generated k<Error>Error selector).
    [[nodiscard]] bool is(const core::Selector& error_selector) const noexcept;
};

template <typename T>
using CallResult = std::expected<T, CallError>;

/// Whether revert data is the custom error with this selector (its first four bytes).
[[nodiscard]] bool reverted_with(core::ByteView revert_data,
                                 const core::Selector& error_selector) noexcept;

/// Where the call helpers send their eth_calls. Implementations: chain::ContractCaller (over the
/// JSON-RPC client, at a chosen block).
class Caller {
public:
    virtual ~Caller() = default;
    /// eth_call of `data` to `to`: the return data, or a CallError of kind rpc_failure or
    /// reverted (with revert_data and its description in detail). `function` is left empty.
    [[nodiscard]] virtual CallResult<core::Bytes> call(const core::Address& to,
                                                       core::Bytes data) = 0;
};

namespace detail {

/// What every generated call helper does around its encoder and decoder: runs `calldata`
/// through `caller` (an encoding failure becomes CallErrorKind::encoding) and names `function`
/// in the error.
[[nodiscard]] CallResult<core::Bytes> call_function(
    Caller& caller, const core::Address& to, std::string_view function,
    core::Result<core::Bytes, core::AbiError> calldata);
/// Names `function` in a failed answer (a no-op on success).
[[nodiscard]] CallResult<core::Bytes> name_answer(CallResult<core::Bytes> answer,
                                                  std::string_view function);
/// The error of return data that does not decode as `function`'s outputs.
[[nodiscard]] std::unexpected<CallError> bad_answer(std::string_view function,
                                                    const core::Error<core::AbiError>& error);

/// Types of a parenthesized list the generator has already validated with core::parse_type_list;
/// aborts on failure, which would be a generator bug.
[[nodiscard]] std::vector<core::AbiType> parse_types_or_die(std::string_view list);
/// Event from a generated signature such as "Registered(uint256 indexed,string,address indexed)".
[[nodiscard]] core::AbiEvent parse_event_or_die(std::string_view signature);
/// The error a decoder returns when a decoded value does not fit its C++ field.
[[nodiscard]] core::Error<core::AbiError> shape_error(std::string_view what);

// Typed value -> AbiValue. Non-templates first, so the templates below see them.
[[nodiscard]] core::AbiValue to_abi(uint64_t v);
[[nodiscard]] core::AbiValue to_abi(int64_t v);
[[nodiscard]] core::AbiValue to_abi(bool v);
[[nodiscard]] core::AbiValue to_abi(const core::Uint256& v);
[[nodiscard]] core::AbiValue to_abi(const core::Int256& v);
[[nodiscard]] core::AbiValue to_abi(const core::Address& v);
[[nodiscard]] core::AbiValue to_abi(std::string_view v);
[[nodiscard]] core::AbiValue to_abi(core::ByteView v);
[[nodiscard]] core::AbiValue to_abi(const core::Bytes& v);
template <size_t N>
[[nodiscard]] core::AbiValue to_abi(const std::array<uint8_t, N>& v);
template <typename T>
[[nodiscard]] core::AbiValue to_abi(std::span<const T> v);
template <typename T>
[[nodiscard]] core::AbiValue to_abi(const std::vector<T>& v);
template <typename T, size_t N>
[[nodiscard]] core::AbiValue to_abi(const std::array<T, N>& v);

// AbiValue -> typed value; false when the value has another shape or is out of range.
[[nodiscard]] bool from_abi(const core::AbiValue& in, uint64_t& out);
[[nodiscard]] bool from_abi(const core::AbiValue& in, int64_t& out);
[[nodiscard]] bool from_abi(const core::AbiValue& in, bool& out);
[[nodiscard]] bool from_abi(const core::AbiValue& in, core::Uint256& out);
[[nodiscard]] bool from_abi(const core::AbiValue& in, core::Int256& out);
[[nodiscard]] bool from_abi(const core::AbiValue& in, core::Address& out);
[[nodiscard]] bool from_abi(const core::AbiValue& in, std::string& out);
[[nodiscard]] bool from_abi(const core::AbiValue& in, core::Bytes& out);
template <size_t N>
[[nodiscard]] bool from_abi(const core::AbiValue& in, std::array<uint8_t, N>& out);
template <typename T>
[[nodiscard]] bool from_abi(const core::AbiValue& in, std::vector<T>& out);
template <typename T, size_t N>
[[nodiscard]] bool from_abi(const core::AbiValue& in, std::array<T, N>& out);

template <size_t N>
core::AbiValue to_abi(const std::array<uint8_t, N>& v) {
    return core::FixedBytes(core::ByteView(v.data(), N));
}
template <typename T>
core::AbiValue to_abi(std::span<const T> v) {
    core::AbiValue::List list;
    list.reserve(v.size());
    for (const T& x : v) list.push_back(to_abi(x));
    return list;
}
template <typename T>
core::AbiValue to_abi(const std::vector<T>& v) {
    // Not through std::span: std::vector<bool> has no contiguous storage.
    core::AbiValue::List list;
    list.reserve(v.size());
    for (const auto& x : v) list.push_back(to_abi(static_cast<const T&>(x)));
    return list;
}
template <typename T, size_t N>
core::AbiValue to_abi(const std::array<T, N>& v) {
    return to_abi(std::span<const T>(v));
}

template <size_t N>
bool from_abi(const core::AbiValue& in, std::array<uint8_t, N>& out) {
    const auto* fixed = in.as_fixed_bytes();
    if (fixed == nullptr || fixed->size != N) return false;
    std::copy_n(fixed->data.begin(), N, out.begin());
    return true;
}
template <typename T>
bool from_abi(const core::AbiValue& in, std::vector<T>& out) {
    const auto* list = in.as_list();
    if (list == nullptr) return false;
    out.clear();
    out.reserve(list->size());
    for (const auto& item : *list) {
        T x{};  // not out[i]: std::vector<bool> hands out proxies
        if (!from_abi(item, x)) return false;
        out.push_back(std::move(x));
    }
    return true;
}
template <typename T, size_t N>
bool from_abi(const core::AbiValue& in, std::array<T, N>& out) {
    const auto* list = in.as_list();
    if (list == nullptr || list->size() != N) return false;
    for (size_t i = 0; i < N; ++i) {
        if (!from_abi((*list)[i], out[i])) return false;
    }
    return true;
}

}  // namespace detail
}  // namespace credence::chain::bindings
