#include <credence/chain/bindings/support.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <credence/core/abi_type.hpp>

namespace credence::chain::bindings {

std::string_view find_error_signature(std::span<const ErrorInfo> errors,
                                      const core::Selector& selector) noexcept {
    const auto it = std::find_if(errors.begin(), errors.end(),
                                 [&](const ErrorInfo& e) { return e.selector == selector; });
    return it == errors.end() ? std::string_view{} : it->signature;
}

std::string_view find_function_signature(std::span<const FunctionInfo> functions,
                                         const core::Selector& selector) noexcept {
    const auto it = std::find_if(functions.begin(), functions.end(),
                                 [&](const FunctionInfo& f) { return f.selector == selector; });
    return it == functions.end() ? std::string_view{} : it->signature;
}

std::string_view to_string(CallErrorKind kind) noexcept {
    switch (kind) {
        case CallErrorKind::rpc_failure:
            return "rpc_failure";
        case CallErrorKind::reverted:
            return "reverted";
        case CallErrorKind::bad_answer:
            return "bad_answer";
        case CallErrorKind::encoding:
            return "encoding";
    }
    return "unknown";
}

std::string_view CallError::name() const noexcept {
    if (function.empty()) return "eth_call";
    return std::string_view(function).substr(0, function.find('('));
}

std::string CallError::message() const {
    std::string out(name());
    switch (kind) {
        case CallErrorKind::reverted:
            out += " reverted: ";
            break;
        case CallErrorKind::rpc_failure:
            out += ": ";
            break;
        case CallErrorKind::bad_answer:
            out += ": bad return data: ";
            break;
        case CallErrorKind::encoding:
            out += ": cannot encode the arguments: ";
            break;
    }
    return out + detail;
}

bool CallError::is(const core::Selector& error_selector) const noexcept {
    return kind == CallErrorKind::reverted && reverted_with(revert_data, error_selector);
}

bool reverted_with(core::ByteView revert_data, const core::Selector& error_selector) noexcept {
    return revert_data.size() >= error_selector.size() &&
           std::equal(error_selector.begin(), error_selector.end(), revert_data.begin());
}

namespace detail {

CallResult<core::Bytes> call_function(Caller& caller, const core::Address& to,
                                      std::string_view function,
                                      core::Result<core::Bytes, core::AbiError> calldata) {
    if (!calldata) {
        return std::unexpected(
            CallError{CallErrorKind::encoding, std::string(function), {}, calldata.error().detail});
    }
    return name_answer(caller.call(to, std::move(*calldata)), function);
}

CallResult<core::Bytes> name_answer(CallResult<core::Bytes> answer, std::string_view function) {
    if (!answer) answer.error().function = function;
    return answer;
}

std::unexpected<CallError> bad_answer(std::string_view function,
                                      const core::Error<core::AbiError>& error) {
    return std::unexpected(
        CallError{CallErrorKind::bad_answer, std::string(function), {}, error.detail});
}

namespace {

[[noreturn]] void die(std::string_view what, std::string_view text) {
    std::fprintf(stderr, "credence bindings: generated %.*s does not parse: %.*s\n",
                 static_cast<int>(what.size()), what.data(), static_cast<int>(text.size()),
                 text.data());
    std::abort();
}

// 2^64 as the bound of the low limb: a Uint256 fits in 64 bits when its high limbs are zero.
bool fits_u64(const core::Uint256& v) noexcept {
    return v.limbs[1] == 0 && v.limbs[2] == 0 && v.limbs[3] == 0;
}

}  // namespace

std::vector<core::AbiType> parse_types_or_die(std::string_view list) {
    auto types = core::parse_type_list(list);
    if (!types) die("type list", list);
    return std::move(*types);
}

core::AbiEvent parse_event_or_die(std::string_view signature) {
    auto event = core::parse_event_signature(signature);
    if (!event) die("event", signature);
    return std::move(*event);
}

core::Error<core::AbiError> shape_error(std::string_view what) {
    return {core::AbiError::bad_value, "decoded value does not fit " + std::string(what)};
}

core::AbiValue to_abi(uint64_t v) { return core::Uint256(v); }
core::AbiValue to_abi(int64_t v) { return core::Int256(v); }
core::AbiValue to_abi(bool v) { return v; }
core::AbiValue to_abi(const core::Uint256& v) { return v; }
core::AbiValue to_abi(const core::Int256& v) { return v; }
core::AbiValue to_abi(const core::Address& v) { return v.bytes; }
core::AbiValue to_abi(std::string_view v) { return std::string(v); }
core::AbiValue to_abi(core::ByteView v) { return core::Bytes(v.begin(), v.end()); }
core::AbiValue to_abi(const core::Bytes& v) { return v; }

bool from_abi(const core::AbiValue& in, uint64_t& out) {
    const auto* v = in.as_uint();
    if (v == nullptr || !fits_u64(*v)) return false;
    out = v->limbs[0];
    return true;
}

bool from_abi(const core::AbiValue& in, int64_t& out) {
    const auto* v = in.as_int();
    if (v == nullptr) return false;
    // Two's complement: fits in int64 when limbs 1..3 are all copies of bit 63 of limb 0.
    const auto& limbs = v->bits.limbs;
    const uint64_t fill = (limbs[0] >> 63) != 0 ? ~uint64_t{0} : 0;
    if (limbs[1] != fill || limbs[2] != fill || limbs[3] != fill) return false;
    out = static_cast<int64_t>(limbs[0]);
    return true;
}

bool from_abi(const core::AbiValue& in, bool& out) {
    const auto* v = in.as_bool();
    if (v == nullptr) return false;
    out = *v;
    return true;
}

bool from_abi(const core::AbiValue& in, core::Uint256& out) {
    const auto* v = in.as_uint();
    if (v == nullptr) return false;
    out = *v;
    return true;
}

bool from_abi(const core::AbiValue& in, core::Int256& out) {
    const auto* v = in.as_int();
    if (v == nullptr) return false;
    out = *v;
    return true;
}

bool from_abi(const core::AbiValue& in, core::Address& out) {
    const auto* v = in.as_address();
    if (v == nullptr) return false;
    out.bytes = *v;
    return true;
}

bool from_abi(const core::AbiValue& in, std::string& out) {
    const auto* v = in.as_string();
    if (v == nullptr) return false;
    out = *v;
    return true;
}

bool from_abi(const core::AbiValue& in, core::Bytes& out) {
    const auto* v = in.as_bytes();
    if (v == nullptr) return false;
    out = *v;
    return true;
}

}  // namespace detail
}  // namespace credence::chain::bindings
