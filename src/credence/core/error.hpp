// Error values for the core library.
//
// The core never throws. Every fallible function returns std::expected<T, Error<Code>>, where Code
// is the enum class of one domain (HexError, AbiError, RlpError, ...). `detail` says which input
// was wrong, in words fit for a one-line CLI message or an HTTP JSON error.
#pragma once

#include <expected>
#include <string>
#include <utility>

namespace credence::core {

template <typename Code>
struct Error {
    Code code;
    std::string detail;

    friend bool operator==(const Error& a, const Error& b) { return a.code == b.code; }
};

template <typename T, typename Code>
using Result = std::expected<T, Error<Code>>;

/// Shorthand for returning a failure: `return fail(AbiError::bad_offset, "offset past end");`
template <typename Code>
[[nodiscard]] inline std::unexpected<Error<Code>> fail(Code code, std::string detail = {}) {
    return std::unexpected(Error<Code>{code, std::move(detail)});
}

}  // namespace credence::core
