#include <credence/chain/revert.hpp>

#include <algorithm>
#include <cstring>
#include <vector>

#include <credence/chain/bindings/all.hpp>
#include <credence/core/abi.hpp>
#include <credence/core/abi_text.hpp>
#include <credence/core/uint256.hpp>

namespace credence::chain {

using core::AbiType;
using core::ByteView;

namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

/// Printable ASCII and well-formed UTF-8 pass through; every other byte (C0/C1 controls, DEL,
/// malformed UTF-8) becomes \n, \r, \t or \xNN, so the text stays on one line and cannot drive
/// the terminal. Quotes and backslashes are escaped when `quoted`.
std::string escape_text(std::string_view s, bool quoted) {
    std::string out;
    out.reserve(s.size() + 2);
    if (quoted) out += '"';
    size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c < 0x7f) {
            if (quoted && (c == '"' || c == '\\')) out += '\\';
            out += static_cast<char>(c);
            ++i;
            continue;
        }
        // Well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF) passes through, except the
        // C1 controls U+0080..U+009F which terminals interpret.
        size_t len = 0;
        uint32_t cp = 0;
        if (c >= 0xc2 && c <= 0xdf) {
            len = 2;
            cp = c & 0x1fu;
        } else if (c >= 0xe0 && c <= 0xef) {
            len = 3;
            cp = c & 0x0fu;
        } else if (c >= 0xf0 && c <= 0xf4) {
            len = 4;
            cp = c & 0x07u;
        }
        bool ok = len != 0 && i + len <= s.size();
        for (size_t k = 1; ok && k < len; ++k) {
            const auto cc = static_cast<unsigned char>(s[i + k]);
            if ((cc & 0xc0u) != 0x80u) ok = false;
            cp = (cp << 6) | (cc & 0x3fu);
        }
        if (ok) {
            const uint32_t min = len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
            ok = cp >= min && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff) &&
                 (cp < 0x80 || cp > 0x9f);
        }
        if (ok) {
            out.append(s.substr(i, len));
            i += len;
            continue;
        }
        switch (c) {
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                out += "\\x";
                out += kHexDigits[c >> 4];
                out += kHexDigits[c & 0x0f];
        }
        ++i;
    }
    if (quoted) out += '"';
    return out;
}

std::string unknown_text(ByteView data) {
    if (data.size() < 4)
        return "malformed revert data " + core::to_hex(data) + " (" + std::to_string(data.size()) +
               " bytes of data)";
    return "unknown error " + core::to_hex(data.first(4)) + " (" + std::to_string(data.size()) +
           " bytes of data)";
}

/// Text of one decoded parameter: strings quoted and escaped, everything else via format_value
/// (whose output for nested strings is escaped again, so no control byte survives).
std::string param_text(const AbiType& type, const core::AbiValue& value) {
    if (const std::string* s = value.as_string();
        s != nullptr && type.kind() == core::AbiKind::string)
        return escape_text(*s, true);
    return escape_text(core::format_value(type, value), false);
}

bool decode_custom(const core::AbiCustomError& err, ByteView args, std::string& out) {
    auto values = core::decode_with(
        err.inputs.size(), [&](size_t i) -> const AbiType& { return err.inputs[i].type; }, args);
    if (!values) return false;
    out = err.name + "(";
    for (size_t i = 0; i < err.inputs.size(); ++i) {
        if (i != 0) out += ", ";
        if (!err.inputs[i].name.empty()) out += err.inputs[i].name + "=";
        out += param_text(err.inputs[i].type, (*values)[i]);
    }
    out += ")";
    return true;
}

}  // namespace

std::string_view panic_meaning(uint64_t code) noexcept {
    // Solidity docs, "Panic via assert and Error via require".
    switch (code) {
        case 0x00:
            return "generic compiler-inserted panic";
        case 0x01:
            return "assertion failed";
        case 0x11:
            return "arithmetic overflow or underflow";
        case 0x12:
            return "division or modulo by zero";
        case 0x21:
            return "invalid enum value";
        case 0x22:
            return "incorrectly encoded storage byte array";
        case 0x31:
            return "pop() on an empty array";
        case 0x32:
            return "array index out of bounds";
        case 0x41:
            return "out of memory (too much memory allocated or array too large)";
        case 0x51:
            return "call to a zero-initialized internal function";
        default:
            return "";
    }
}

DecodedRevert decode_revert(ByteView data, std::span<const core::AbiDocument> abis) {
    if (data.empty()) return {RevertKind::empty, "execution reverted (no data)"};
    if (data.size() < 4) return {RevertKind::unknown, unknown_text(data)};
    core::Selector selector{};
    std::copy_n(data.begin(), 4, selector.begin());
    const ByteView args = data.subspan(4);

    if (selector == kErrorStringSelector) {
        auto reason = core::decode_one(AbiType::make_string(), args);
        if (reason) {
            if (const std::string* s = reason->as_string())
                return {RevertKind::error_string, "reason: " + escape_text(*s, true)};
        }
        return {RevertKind::unknown, "malformed Error(string) revert (" +
                                         std::to_string(data.size()) + " bytes of data)"};
    }
    if (selector == kPanicSelector) {
        auto code = core::decode_one(AbiType::make_uint(256), args);
        if (code) {
            if (const core::Uint256* c = code->as_uint()) {
                std::string text = "panic " + c->to_hex();
                const std::string_view meaning = c->fits_u64() ? panic_meaning(c->limbs[0]) : "";
                text += meaning.empty() ? ": unknown panic code" : ": " + std::string(meaning);
                return {RevertKind::panic, std::move(text)};
            }
        }
        return {RevertKind::unknown, "malformed Panic(uint256) revert (" +
                                         std::to_string(data.size()) + " bytes of data)"};
    }
    // Several ABIs may define an error with the same selector (same signature, or a collision):
    // the first whose parameters decode wins.
    for (const core::AbiDocument& doc : abis) {
        for (const core::AbiCustomError& err : doc.errors) {
            if (err.selector() != selector) continue;
            std::string text;
            if (decode_custom(err, args, text)) return {RevertKind::custom, std::move(text)};
        }
    }
    return {RevertKind::unknown, unknown_text(data)};
}

std::string describe_revert(ByteView data, std::span<const core::AbiDocument> abis) {
    return decode_revert(data, abis).text;
}

std::span<const core::AbiDocument> credence_abis() {
    // The generator checked every ABI with core::parse_json_abi, so none is skipped here.
    static const std::vector<core::AbiDocument> kAbis = [] {
        std::vector<core::AbiDocument> abis;
        for (const auto& contract : bindings::all_contracts())
            if (auto doc = core::parse_json_abi(contract.abi_json)) abis.push_back(std::move(*doc));
        return abis;
    }();
    return kAbis;
}

DecodedRevert decode_credence_revert(ByteView data) { return decode_revert(data, credence_abis()); }

std::string describe_credence_revert(ByteView data) { return decode_credence_revert(data).text; }

}  // namespace credence::chain
