#include <credence/index/log_json.hpp>

#include <array>
#include <optional>
#include <utility>

#include <simdjson.h>

#include <credence/chain/rpc_jsonrpc.hpp>
#include <credence/core/bytes.hpp>

namespace credence::index {
namespace {

namespace dom = simdjson::dom;
using chain::RpcErrorKind;
using chain::RpcResult;

// A parse failure on its way up: the kind, and a message that callers prefix with where it was.
struct Failure {
    RpcErrorKind kind = RpcErrorKind::bad_response;
    std::string what;
};
using Step = std::optional<Failure>;  // nullopt: that step succeeded

Failure shape(std::string what) { return Failure{RpcErrorKind::bad_response, std::move(what)}; }

std::unexpected<chain::RpcError> to_error(Failure f) {
    return chain::rpc_fail(f.kind, std::move(f.what));
}

// Hex digit values (kNotHex for anything else) as a table built from core::hex_digit_value: the
// hot loop of this parser is the hex of topics, hashes and data, about 1 KiB per log.
constexpr uint8_t kNotHex = 0xff;
constexpr std::array<uint8_t, 256> kHexValue = [] {
    std::array<uint8_t, 256> t{};
    for (size_t c = 0; c < t.size(); ++c) {
        const int v = core::hex_digit_value(static_cast<char>(c));
        t[c] = v < 0 ? kNotHex : static_cast<uint8_t>(v);
    }
    return t;
}();

// Decodes exactly 2 * n hex digits into out[0..n); false on a non-digit.
bool decode_hex(std::string_view digits, uint8_t* out, size_t n) noexcept {
    unsigned seen = 0;
    for (size_t i = 0; i < n; ++i) {
        const unsigned hi = kHexValue[static_cast<uint8_t>(digits[2 * i])];
        const unsigned lo = kHexValue[static_cast<uint8_t>(digits[(2 * i) + 1])];
        seen |= hi | lo;  // high bits set once any digit was kNotHex
        out[i] = static_cast<uint8_t>((hi << 4U) | lo);
    }
    return (seen & 0xf0U) == 0;
}

// The characters of a JSON string value (escapes already undone by simdjson).
Step read_string(dom::element v, std::string_view& out, const char* what) {
    if (v.get_string().get(out)) return shape(std::string(what) + " must be a string");
    return std::nullopt;
}

// QUANTITY (execution-apis): 0x, then hex digits without leading zeros; here it must fit 64 bits.
Step read_u64(dom::element v, uint64_t& out) {
    std::string_view s;
    if (auto step = read_string(v, s, "quantity")) return step;
    if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) {
        return shape("quantity must be 0x-prefixed with at least one digit");
    }
    s.remove_prefix(2);
    if (s.size() > 1 && s[0] == '0') return shape("quantity has leading zeros");
    uint64_t value = 0;
    for (char c : s) {
        const uint8_t d = kHexValue[static_cast<uint8_t>(c)];
        if (d == kNotHex) return shape("quantity has a non-hex digit");
        if (value >> 60U != 0) return shape("quantity exceeds 64 bits");
        value = (value << 4U) | d;
    }
    out = value;
    return std::nullopt;
}

// DATA of 32 bytes: exactly 0x and 64 hex digits (as chain::read_hash).
Step read_hash(dom::element v, core::Hash32& out) {
    std::string_view s;
    if (auto step = read_string(v, s, "hash")) return step;
    if (s.size() != 66 || s[0] != '0' || s[1] != 'x' || !decode_hex(s.substr(2), out.data(), 32)) {
        return shape("hash must be 0x + 64 hex");
    }
    return std::nullopt;
}

// DATA of 20 bytes: letter case carries no meaning on the wire, so no EIP-55 check (as
// chain::read_address).
Step read_address(dom::element v, core::Address& out) {
    std::string_view s;
    if (auto step = read_string(v, s, "address")) return step;
    if (s.size() != 42 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') ||
        !decode_hex(s.substr(2), out.bytes.data(), core::Address::kSize)) {
        return shape("address must be 0x + 40 hex");
    }
    return std::nullopt;
}

// DATA of any length: 0x and an even number of hex digits (as core::from_prefixed_hex).
Step read_data(dom::element v, core::Bytes& out) {
    std::string_view s;
    if (auto step = read_string(v, s, "data")) return step;
    if (s.size() < 2 || s[0] != '0' || s[1] != 'x') return shape("bad hex data: missing 0x prefix");
    s.remove_prefix(2);
    if (s.size() % 2 != 0) return shape("bad hex data: odd number of hex digits");
    out.resize(s.size() / 2);
    if (!decode_hex(s, out.data(), out.size())) return shape("bad hex data: invalid hex digit");
    return std::nullopt;
}

Step read_topics(dom::element v, std::vector<core::Hash32>& out) {
    dom::array arr;
    if (v.get_array().get(arr)) return shape("expected an array");
    out.reserve(arr.size());
    for (dom::element topic : arr) {
        if (auto step = read_hash(topic, out.emplace_back())) return step;
    }
    return std::nullopt;
}

// `removed` is optional: absent or null means false (as chain::read_log).
Step read_removed(dom::element v, bool& out) {
    if (v.is_null()) {
        out = false;
        return std::nullopt;
    }
    if (v.get_bool().get(out)) return shape("expected a boolean");
    return std::nullopt;
}

// Members of a log; the required ones must all appear, none twice.
constexpr uint32_t kHasAddress = 1U << 0U;
constexpr uint32_t kHasTopics = 1U << 1U;
constexpr uint32_t kHasData = 1U << 2U;
constexpr uint32_t kHasBlockNumber = 1U << 3U;
constexpr uint32_t kHasBlockHash = 1U << 4U;
constexpr uint32_t kHasTxnHash = 1U << 5U;
constexpr uint32_t kHasTxnIndex = 1U << 6U;
constexpr uint32_t kHasLogIndex = 1U << 7U;
constexpr uint32_t kHasRemoved = 1U << 8U;
constexpr uint32_t kHasBlockTimestamp = 1U << 9U;

struct Member {
    std::string_view name;
    uint32_t bit;
};
constexpr std::array<Member, 8> kRequired = {{
    {"address", kHasAddress},
    {"topics", kHasTopics},
    {"data", kHasData},
    {"blockNumber", kHasBlockNumber},
    {"blockHash", kHasBlockHash},
    {"transactionHash", kHasTxnHash},
    {"transactionIndex", kHasTxnIndex},
    {"logIndex", kHasLogIndex},
}};

// Reads member `key` of a log into `log`; sets `bit` to the member's flag (0: unknown, ignored).
Step read_member(std::string_view key, dom::element value, RawLog& log, uint32_t& bit) {
    bit = 0;
    if (key == "address") {
        bit = kHasAddress;
        return read_address(value, log.address);
    }
    if (key == "topics") {
        bit = kHasTopics;
        return read_topics(value, log.topics);
    }
    if (key == "data") {
        bit = kHasData;
        return read_data(value, log.data);
    }
    if (key == "blockNumber") {
        bit = kHasBlockNumber;
        return read_u64(value, log.block_num);
    }
    if (key == "blockHash") {
        bit = kHasBlockHash;
        return read_hash(value, log.block_hash);
    }
    if (key == "transactionHash") {
        bit = kHasTxnHash;
        return read_hash(value, log.txn_hash);
    }
    if (key == "transactionIndex") {
        bit = kHasTxnIndex;
        return read_u64(value, log.txn_index);
    }
    if (key == "logIndex") {
        bit = kHasLogIndex;
        return read_u64(value, log.log_index);
    }
    if (key == "removed") {
        bit = kHasRemoved;
        return read_removed(value, log.removed);
    }
    if (key == "blockTimestamp") {
        bit = kHasBlockTimestamp;
        uint64_t timestamp = 0;
        if (auto step = read_u64(value, timestamp)) return step;
        log.block_timestamp = timestamp;
    }
    return std::nullopt;
}

Step read_log(dom::element v, RawLog& log) {
    dom::object obj;
    if (v.get_object().get(obj)) return shape("log must be an object");
    uint32_t seen = 0;
    for (dom::key_value_pair member : obj) {
        uint32_t bit = 0;
        if (auto step = read_member(member.key, member.value, log, bit)) {
            step->what = std::string(member.key) + ": " + step->what;
            return step;
        }
        // RFC 8259 §4 leaves repeated names to the parser; which one counts is ambiguous.
        if ((seen & bit) != 0) return shape(std::string(member.key) + ": repeated member");
        seen |= bit;
    }
    for (const auto& m : kRequired) {
        if ((seen & m.bit) == 0) return shape("missing field " + std::string(m.name));
    }
    return std::nullopt;
}

Step read_result(dom::element v, std::vector<RawLog>& logs) {
    dom::array arr;
    if (v.get_array().get(arr)) return shape("result: expected an array");
    logs.reserve(arr.size());
    size_t index = 0;
    for (dom::element element : arr) {
        if (auto step = read_log(element, logs.emplace_back())) {
            step->what = "log " + std::to_string(index) + ": " + step->what;
            return step;
        }
        ++index;
    }
    return std::nullopt;
}

// JSON-RPC 2.0 §5: the id is the request's, an unsigned integer here (as chain::decode_response:
// 1.0, -1 or "1" are a mismatch).
bool id_matches(dom::element v, uint64_t id) {
    if (!v.is_int64() && !v.is_uint64()) return false;
    uint64_t value = 0;
    return !v.get_uint64().get(value) && value == id;
}

constexpr uint32_t kHasJsonrpc = 1U << 0U;
constexpr uint32_t kHasId = 1U << 1U;
constexpr uint32_t kHasResult = 1U << 2U;

RpcResult<std::vector<RawLog>> parse_document(dom::parser& parser, const std::string& body,
                                              uint64_t id) {
    // The DOM parser validates the whole document (stage 2 builds the tape), and its stage 1 is
    // chosen at run time for this CPU (haswell, westmere, fallback) by the shared library.
    dom::element doc;
    if (auto e = parser.parse(body.data(), body.size(), /*realloc_if_needed=*/false).get(doc)) {
        return chain::rpc_fail(RpcErrorKind::bad_json,
                               std::string("response is not JSON: ") + simdjson::error_message(e));
    }
    dom::object top;
    if (doc.get_object().get(top)) {
        return chain::rpc_fail(RpcErrorKind::bad_response, "response is not an object");
    }
    std::vector<RawLog> logs;
    bool v2 = false;
    bool id_ok = false;
    uint32_t seen = 0;
    for (dom::key_value_pair member : top) {
        uint32_t bit = 0;
        if (member.key == "jsonrpc") {
            bit = kHasJsonrpc;
            std::string_view s;
            v2 = !member.value.get_string().get(s) && s == "2.0";
        } else if (member.key == "id") {
            bit = kHasId;
            id_ok = id_matches(member.value, id);
        } else if (member.key == "result") {
            bit = kHasResult;
            if (auto step = read_result(member.value, logs)) return to_error(std::move(*step));
        } else if (member.key == "error" && !member.value.is_null()) {
            // JSON-RPC 2.0 §5.1: an error object. It is small: decode it exactly as the client's
            // other calls do, with the same id rules (§5: an id-null error is still reported).
            auto decoded = chain::decode_response(body, id);
            if (!decoded) return std::unexpected(std::move(decoded.error()));
            return chain::rpc_fail(RpcErrorKind::bad_response, "both result and error");
        }
        if ((seen & bit) != 0) {
            return chain::rpc_fail(RpcErrorKind::bad_response,
                                   "repeated member " + std::string(member.key));
        }
        seen |= bit;
    }
    if (!v2) return chain::rpc_fail(RpcErrorKind::bad_response, "jsonrpc is not \"2.0\"");
    if (!id_ok) {
        return chain::rpc_fail(RpcErrorKind::bad_response, "response id does not match request id");
    }
    if ((seen & kHasResult) == 0) {
        return chain::rpc_fail(RpcErrorKind::bad_response, "neither result nor error");
    }
    return logs;
}

}  // namespace

struct LogJsonParser::Impl {
    dom::parser parser;
    std::string copy;  // padded copy for parse(string_view)
};

LogJsonParser::LogJsonParser() : impl_(std::make_unique<Impl>()) {}
LogJsonParser::~LogJsonParser() = default;
LogJsonParser::LogJsonParser(LogJsonParser&&) noexcept = default;
LogJsonParser& LogJsonParser::operator=(LogJsonParser&&) noexcept = default;

RpcResult<std::vector<RawLog>> LogJsonParser::parse_in_place(std::string& body, uint64_t id) {
    try {
        // simdjson reads up to SIMDJSON_PADDING bytes past the end; any values will do there.
        body.reserve(body.size() + simdjson::SIMDJSON_PADDING);
        return parse_document(impl_->parser, body, id);
    } catch (const std::exception& e) {  // bad_alloc from the vectors; simdjson itself never throws
        return chain::rpc_fail(RpcErrorKind::bad_response, e.what());
    }
}

RpcResult<std::vector<RawLog>> LogJsonParser::parse(std::string_view body, uint64_t id) {
    try {
        impl_->copy.assign(body);
        auto out = parse_in_place(impl_->copy, id);
        impl_->copy.clear();
        return out;
    } catch (const std::exception& e) {
        return chain::rpc_fail(RpcErrorKind::bad_response, e.what());
    }
}

RpcResult<std::vector<RawLog>> parse_logs_response(std::string_view body, uint64_t id) {
    try {
        LogJsonParser parser;
        return parser.parse(body, id);
    } catch (const std::exception& e) {
        return chain::rpc_fail(RpcErrorKind::bad_response, e.what());
    }
}

}  // namespace credence::index
