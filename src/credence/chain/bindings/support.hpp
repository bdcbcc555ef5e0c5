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
// Thread-safety: everything here is pure. Ownership: the tables hold views of string literals.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
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

namespace detail {

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
