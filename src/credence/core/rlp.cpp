#include <credence/core/rlp.hpp>

#include <limits>
#include <string>

namespace credence::core {

std::string_view to_string(RlpError e) noexcept {
    switch (e) {
        case RlpError::input_too_short:
            return "RLP input too short";
        case RlpError::trailing_bytes:
            return "trailing bytes after RLP item";
        case RlpError::non_canonical_size:
            return "non-canonical RLP size";
        case RlpError::leading_zero_in_length:
            return "leading zero in RLP length";
        case RlpError::length_overflow:
            return "RLP length overflow";
        case RlpError::too_deep:
            return "RLP nesting too deep";
        case RlpError::unexpected_list:
            return "expected RLP string, got list";
        case RlpError::unexpected_string:
            return "expected RLP list, got string";
        case RlpError::leading_zero_scalar:
            return "RLP scalar with leading zero";
        case RlpError::scalar_overflow:
            return "RLP scalar too large";
        case RlpError::wrong_size:
            return "RLP string of wrong size";
        case RlpError::wrong_field_count:
            return "RLP list with wrong number of fields";
    }
    return "RLP error";
}

namespace {

// Yellow Paper appendix B: short strings 0x80+len (len <= 55), long strings 0xb7+len(len) then
// len; lists the same from 0xc0 and 0xf7.
constexpr uint8_t kShortString = 0x80;
constexpr uint8_t kLongString = 0xb7;
constexpr uint8_t kShortList = 0xc0;
constexpr uint8_t kLongList = 0xf7;
constexpr size_t kShortMax = 55;

size_t be_width(uint64_t v) noexcept {
    size_t n = 0;
    while (v != 0) {
        ++n;
        v >>= 8;
    }
    return n;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Encoding

void rlp_append_header(Bytes& out, bool list, size_t length) {
    const uint8_t short_base = list ? kShortList : kShortString;
    const uint8_t long_base = list ? kLongList : kLongString;
    if (length <= kShortMax) {
        out.push_back(static_cast<uint8_t>(short_base + length));
        return;
    }
    const auto len64 = static_cast<uint64_t>(length);
    const size_t width = be_width(len64);
    out.push_back(static_cast<uint8_t>(long_base + width));
    for (size_t i = width; i > 0; --i) out.push_back(static_cast<uint8_t>(len64 >> (8 * (i - 1))));
}

void rlp_append_string(Bytes& out, ByteView data) {
    // Yellow Paper B: a single byte below 0x80 is its own encoding.
    if (data.size() == 1 && data[0] < kShortString) {
        out.push_back(data[0]);
        return;
    }
    rlp_append_header(out, false, data.size());
    out.insert(out.end(), data.begin(), data.end());
}

void rlp_append_uint(Bytes& out, const Uint256& value) {
    const Hash32 word = value.to_word();
    size_t skip = 0;
    while (skip < word.size() && word[skip] == 0) ++skip;
    rlp_append_string(out, ByteView(word).subspan(skip));
}

void rlp_append_uint(Bytes& out, uint64_t value) {
    // All eight big-endian bytes, then the significant tail: a fixed-bound loop that GCC 12's
    // -Wstringop-overflow can see stays inside the array.
    std::array<uint8_t, 8> be{};
    for (size_t i = 0; i < be.size(); ++i) be[i] = static_cast<uint8_t>(value >> (56 - 8 * i));
    const size_t width = be_width(value);
    rlp_append_string(out, ByteView(be.data() + (be.size() - width), width));
}

Bytes rlp_encode_string(ByteView data) {
    Bytes out;
    out.reserve(data.size() + 9);
    rlp_append_string(out, data);
    return out;
}

Bytes rlp_encode_uint(const Uint256& value) {
    Bytes out;
    rlp_append_uint(out, value);
    return out;
}

Bytes rlp_encode_list_payload(ByteView payload) {
    Bytes out;
    out.reserve(payload.size() + 9);
    rlp_append_header(out, true, payload.size());
    out.insert(out.end(), payload.begin(), payload.end());
    return out;
}

namespace {
void append_value(Bytes& out, const RlpValue& v) {
    if (!v.is_list()) {
        rlp_append_string(out, v.bytes());
        return;
    }
    Bytes payload;
    for (const auto& item : v.items()) append_value(payload, item);
    rlp_append_header(out, true, payload.size());
    out.insert(out.end(), payload.begin(), payload.end());
}
}  // namespace

Bytes rlp_encode(const RlpValue& value) {
    Bytes out;
    append_value(out, value);
    return out;
}

// ---------------------------------------------------------------------------------------------
// Decoding

Result<RlpHeader, RlpError> rlp_decode_header(ByteView in) {
    if (in.empty()) return fail(RlpError::input_too_short, "empty input");
    const uint8_t b = in[0];
    RlpHeader h;
    if (b < kShortString) {
        h.header_size = 0;
        h.payload_size = 1;
        return h;
    }
    h.list = b >= kShortList;
    const uint8_t short_base = h.list ? kShortList : kShortString;
    const uint8_t long_base = h.list ? kLongList : kLongString;
    if (b <= long_base) {
        h.header_size = 1;
        h.payload_size = static_cast<size_t>(b - short_base);
        if (h.payload_size > in.size() - 1)
            return fail(RlpError::input_too_short, "payload past end");
        // Yellow Paper B: a single byte < 0x80 must encode as itself, not as 0x81xx.
        if (!h.list && h.payload_size == 1 && in[1] < kShortString) {
            return fail(RlpError::non_canonical_size, "single byte below 0x80 with a 0x81 prefix");
        }
        return h;
    }
    const size_t width = static_cast<size_t>(b - long_base);  // 1..8
    if (width > in.size() - 1) return fail(RlpError::input_too_short, "length past end");
    if (in[1] == 0) return fail(RlpError::leading_zero_in_length, "long-form length starts with 0");
    if (width > sizeof(size_t)) return fail(RlpError::length_overflow, "length wider than size_t");
    uint64_t length = 0;
    for (size_t i = 0; i < width; ++i) length = (length << 8) | in[1 + i];
    // The long form is only for payloads of 56 bytes or more.
    if (length <= kShortMax)
        return fail(RlpError::non_canonical_size, "long form for short payload");
    h.header_size = 1 + width;
    if (length > in.size() - h.header_size)
        return fail(RlpError::input_too_short, "payload past end");
    h.payload_size = static_cast<size_t>(length);
    return h;
}

namespace {

Result<RlpItem, RlpError> decode_item(ByteView in, size_t depth, size_t& consumed) {
    auto h = rlp_decode_header(in);
    if (!h) return std::unexpected(h.error());
    RlpItem item;
    item.list = h->list;
    item.encoded = in.first(h->header_size + h->payload_size);
    item.payload = item.encoded.subspan(h->header_size);
    consumed = item.encoded.size();
    if (!item.list) return item;
    if (depth >= kRlpMaxDepth) return fail(RlpError::too_deep, "nesting deeper than 64");
    ByteView rest = item.payload;
    while (!rest.empty()) {
        size_t n = 0;
        auto child = decode_item(rest, depth + 1, n);
        if (!child) return child;
        // Each child consumed n >= 1 bytes of input that exist, so the vector stays bounded by
        // the input size.
        item.items.push_back(std::move(*child));
        rest = rest.subspan(n);
    }
    return item;
}

RlpValue to_value(const RlpItem& item) {
    if (!item.list) return RlpValue(Bytes(item.payload.begin(), item.payload.end()));
    std::vector<RlpValue> items;
    items.reserve(item.items.size());
    for (const auto& c : item.items) items.push_back(to_value(c));
    return RlpValue(std::move(items));
}

}  // namespace

Result<RlpItem, RlpError> rlp_decode(ByteView in) {
    size_t consumed = 0;
    auto item = decode_item(in, 0, consumed);
    if (!item) return item;
    if (consumed != in.size()) return fail(RlpError::trailing_bytes, "bytes after the top item");
    return item;
}

Result<RlpValue, RlpError> rlp_decode_value(ByteView in) {
    auto item = rlp_decode(in);
    if (!item) return std::unexpected(item.error());
    return to_value(*item);
}

Result<Uint256, RlpError> rlp_scalar_to_uint256(ByteView payload) {
    if (!payload.empty() && payload[0] == 0) {
        return fail(RlpError::leading_zero_scalar, "scalar has a leading zero byte");
    }
    if (payload.size() > 32) return fail(RlpError::scalar_overflow, "scalar wider than 256 bits");
    auto v = Uint256::from_be_bytes(payload);
    if (!v) return fail(RlpError::scalar_overflow, "scalar wider than 256 bits");
    return *v;
}

Result<uint64_t, RlpError> rlp_scalar_to_u64(ByteView payload) {
    if (!payload.empty() && payload[0] == 0) {
        return fail(RlpError::leading_zero_scalar, "scalar has a leading zero byte");
    }
    if (payload.size() > 8) return fail(RlpError::scalar_overflow, "scalar wider than 64 bits");
    uint64_t v = 0;
    for (uint8_t b : payload) v = (v << 8) | b;
    return v;
}

Result<RlpReader, RlpError> RlpReader::open_list(ByteView in) {
    auto h = rlp_decode_header(in);
    if (!h) return std::unexpected(h.error());
    if (!h->list) return fail(RlpError::unexpected_string, "expected a list");
    if (h->header_size + h->payload_size != in.size()) {
        return fail(RlpError::trailing_bytes, "bytes after the list");
    }
    return RlpReader(in.subspan(h->header_size, h->payload_size));
}

Result<ByteView, RlpError> RlpReader::next_string() {
    auto h = rlp_decode_header(rest_);
    if (!h) return std::unexpected(h.error());
    if (h->list) return fail(RlpError::unexpected_list, "expected a string");
    ByteView payload = rest_.subspan(h->header_size, h->payload_size);
    rest_ = rest_.subspan(h->header_size + h->payload_size);
    return payload;
}

Result<ByteView, RlpError> RlpReader::next_fixed(size_t n) {
    auto s = next_string();
    if (!s) return s;
    if (s->size() != n) {
        return fail(RlpError::wrong_size,
                    "expected " + std::to_string(n) + " bytes, got " + std::to_string(s->size()));
    }
    return s;
}

Result<RlpReader, RlpError> RlpReader::next_list() {
    auto h = rlp_decode_header(rest_);
    if (!h) return std::unexpected(h.error());
    if (!h->list) return fail(RlpError::unexpected_string, "expected a list");
    RlpReader inner(rest_.subspan(h->header_size, h->payload_size));
    rest_ = rest_.subspan(h->header_size + h->payload_size);
    return inner;
}

Result<Uint256, RlpError> RlpReader::next_uint256() {
    auto s = next_string();
    if (!s) return std::unexpected(s.error());
    return rlp_scalar_to_uint256(*s);
}

Result<uint64_t, RlpError> RlpReader::next_u64() {
    auto s = next_string();
    if (!s) return std::unexpected(s.error());
    return rlp_scalar_to_u64(*s);
}

Result<void, RlpError> RlpReader::finish() const {
    if (!rest_.empty()) return fail(RlpError::trailing_bytes, "unexpected extra list items");
    return {};
}

Result<std::vector<ByteView>, RlpError> rlp_decode_string_fields(ByteView in, size_t n) {
    auto reader = RlpReader::open_list(in);
    if (!reader) return std::unexpected(reader.error());
    std::vector<ByteView> fields;
    while (!reader->at_end()) {
        if (fields.size() == n) return fail(RlpError::wrong_field_count, "too many fields");
        auto s = reader->next_string();
        if (!s) return std::unexpected(s.error());
        fields.push_back(*s);
    }
    if (fields.size() != n) return fail(RlpError::wrong_field_count, "too few fields");
    return fields;
}

}  // namespace credence::core
