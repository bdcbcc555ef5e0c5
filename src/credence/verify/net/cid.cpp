#include <credence/verify/net/cid.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>

#include <openssl/evp.h>

namespace credence::verify {

using core::Bytes;
using core::ByteView;
using core::fail;
using core::Result;

std::string_view to_string(CidError e) noexcept {
    switch (e) {
        case CidError::bad_multibase:
            return "bad_multibase";
        case CidError::bad_encoding:
            return "bad_encoding";
        case CidError::bad_varint:
            return "bad_varint";
        case CidError::unsupported_version:
            return "unsupported_version";
        case CidError::unsupported_codec:
            return "unsupported_codec";
        case CidError::unsupported_hash:
            return "unsupported_hash";
        case CidError::bad_digest_length:
            return "bad_digest_length";
        case CidError::trailing_bytes:
            return "trailing_bytes";
        case CidError::digest_mismatch:
            return "digest_mismatch";
        case CidError::bad_dag_pb:
            return "bad_dag_pb";
        case CidError::multi_block:
            return "multi_block";
        case CidError::bad_unixfs:
            return "bad_unixfs";
        case CidError::unsupported_unixfs:
            return "unsupported_unixfs";
    }
    return "unknown";
}

core::Hash32 sha256(ByteView data) {
    core::Hash32 out{};
    unsigned int len = 0;
    // EVP_Digest with a fetched-once digest cannot fail for sha256 on valid memory.
    EVP_Digest(data.data(), data.size(), out.data(), &len, EVP_sha256(), nullptr);
    return out;
}

namespace {

constexpr uint64_t kSha256Code = 0x12;
constexpr size_t kSha256Length = 32;
constexpr std::string_view kBase58Alphabet =
    "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
constexpr std::string_view kBase32Alphabet = "abcdefghijklmnopqrstuvwxyz234567";

// Base58btc (the Bitcoin alphabet): leading '1's are leading zero bytes, the rest is a big-endian
// number. Quadratic, which is fine for the bounded CID lengths accepted here.
std::optional<Bytes> base58_decode(std::string_view text) {
    size_t zeros = 0;
    while (zeros < text.size() && text[zeros] == '1') ++zeros;
    Bytes num;  // little-endian base-256
    for (size_t i = zeros; i < text.size(); ++i) {
        const size_t digit = kBase58Alphabet.find(text[i]);
        if (digit == std::string_view::npos) return std::nullopt;
        uint32_t carry = static_cast<uint32_t>(digit);
        for (auto& b : num) {
            carry += uint32_t{b} * 58;
            b = static_cast<uint8_t>(carry & 0xff);
            carry >>= 8;
        }
        while (carry > 0) {
            num.push_back(static_cast<uint8_t>(carry & 0xff));
            carry >>= 8;
        }
    }
    Bytes out(zeros, 0);
    out.insert(out.end(), num.rbegin(), num.rend());
    return out;
}

std::string base58_encode(ByteView data) {
    size_t zeros = 0;
    while (zeros < data.size() && data[zeros] == 0) ++zeros;
    std::vector<uint8_t> digits;  // little-endian base-58
    for (size_t i = zeros; i < data.size(); ++i) {
        uint32_t carry = data[i];
        for (auto& d : digits) {
            carry += uint32_t{d} << 8;
            d = static_cast<uint8_t>(carry % 58);
            carry /= 58;
        }
        while (carry > 0) {
            digits.push_back(static_cast<uint8_t>(carry % 58));
            carry /= 58;
        }
    }
    std::string out(zeros, '1');
    for (auto it = digits.rbegin(); it != digits.rend(); ++it) out += kBase58Alphabet[*it];
    return out;
}

// RFC 4648 §6 base32, lowercase, no padding (multibase 'b'). Leftover bits must be fewer than 5
// and zero, so the text is canonical.
std::optional<Bytes> base32_decode(std::string_view text) {
    Bytes out;
    uint32_t buffer = 0;
    unsigned bits = 0;
    for (char c : text) {
        const size_t v = kBase32Alphabet.find(c);
        if (v == std::string_view::npos) return std::nullopt;
        buffer = (buffer << 5) | static_cast<uint32_t>(v);
        bits += 5;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<uint8_t>((buffer >> bits) & 0xff));
        }
    }
    if (bits >= 5 || (buffer & ((1U << bits) - 1)) != 0) return std::nullopt;
    return out;
}

std::string base32_encode(ByteView data) {
    std::string out;
    uint32_t buffer = 0;
    unsigned bits = 0;
    for (uint8_t b : data) {
        buffer = (buffer << 8) | b;
        bits += 8;
        while (bits >= 5) {
            bits -= 5;
            out += kBase32Alphabet[(buffer >> bits) & 0x1f];
        }
    }
    if (bits > 0) out += kBase32Alphabet[(buffer << (5 - bits)) & 0x1f];
    return out;
}

// Unsigned LEB128, at most 9 bytes (63 bits), minimal (multiformats unsigned-varint spec).
std::optional<uint64_t> read_varint(ByteView data, size_t& pos) {
    uint64_t value = 0;
    for (unsigned i = 0; i < 9; ++i) {
        if (pos >= data.size()) return std::nullopt;
        const uint8_t b = data[pos++];
        value |= uint64_t{b & 0x7fU} << (7 * i);
        if ((b & 0x80) == 0) {
            if (i > 0 && b == 0) return std::nullopt;  // non-minimal
            return value;
        }
    }
    return std::nullopt;
}

void write_varint(Bytes& out, uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<uint8_t>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<uint8_t>(v));
}

Result<core::Hash32, CidError> read_multihash(ByteView data, size_t& pos) {
    const auto code = read_varint(data, pos);
    if (!code) return fail(CidError::bad_varint, "multihash code");
    if (*code != kSha256Code)
        return fail(CidError::unsupported_hash, "multihash code " + std::to_string(*code));
    const auto length = read_varint(data, pos);
    if (!length) return fail(CidError::bad_varint, "multihash length");
    if (*length != kSha256Length)
        return fail(CidError::bad_digest_length, std::to_string(*length) + " bytes");
    if (data.size() - pos < kSha256Length) return fail(CidError::bad_digest_length, "truncated");
    core::Hash32 digest{};
    std::copy_n(data.begin() + static_cast<std::ptrdiff_t>(pos), kSha256Length, digest.begin());
    pos += kSha256Length;
    if (pos != data.size()) return fail(CidError::trailing_bytes);
    return digest;
}

// Protobuf wire format, as much as dag-pb and UnixFS need.
struct ProtoReader {
    ByteView data;
    size_t pos = 0;

    [[nodiscard]] bool done() const { return pos >= data.size(); }
    std::optional<uint64_t> varint() {
        // Protobuf varints may be up to 10 bytes; the values here fit 63 bits.
        uint64_t value = 0;
        for (unsigned i = 0; i < 10; ++i) {
            if (pos >= data.size()) return std::nullopt;
            const uint8_t b = data[pos++];
            if (i == 9 && b > 1) return std::nullopt;
            value |= uint64_t{b & 0x7fU} << (7 * i);
            if ((b & 0x80) == 0) return value;
        }
        return std::nullopt;
    }
    std::optional<ByteView> bytes() {
        const auto len = varint();
        if (!len || *len > data.size() - pos) return std::nullopt;
        const ByteView out = data.subspan(pos, static_cast<size_t>(*len));
        pos += static_cast<size_t>(*len);
        return out;
    }
    // Skips a field of `wire_type`; false on a malformed or group field.
    bool skip(uint64_t wire_type) {
        switch (wire_type) {
            case 0:
                return varint().has_value();
            case 1:
                if (data.size() - pos < 8) return false;
                pos += 8;
                return true;
            case 2:
                return bytes().has_value();
            case 5:
                if (data.size() - pos < 4) return false;
                pos += 4;
                return true;
            default:
                return false;
        }
    }
};

// UnixFS Data message (unixfs.proto): Type=1, Data=2, filesize=3, blocksizes=4, hashType=5,
// fanout=6, mode=7, mtime=8.
struct UnixfsFile {
    Bytes data;
    std::vector<uint64_t> blocksizes;
};

Result<UnixfsFile, CidError> decode_unixfs(ByteView message) {
    ProtoReader r{message};
    std::optional<uint64_t> type;
    std::optional<uint64_t> filesize;
    ByteView content;
    std::vector<uint64_t> blocksizes;
    while (!r.done()) {
        const auto key = r.varint();
        if (!key) return fail(CidError::bad_unixfs, "field key");
        const uint64_t field = *key >> 3;
        const uint64_t wire = *key & 7;
        if (field == 1 && wire == 0) {
            type = r.varint();
            if (!type) return fail(CidError::bad_unixfs, "Type");
        } else if (field == 2 && wire == 2) {
            const auto b = r.bytes();
            if (!b) return fail(CidError::bad_unixfs, "Data");
            content = *b;
        } else if (field == 3 && wire == 0) {
            filesize = r.varint();
            if (!filesize) return fail(CidError::bad_unixfs, "filesize");
        } else if (field == 4 && wire == 0) {
            const auto size = r.varint();
            if (!size) return fail(CidError::bad_unixfs, "blocksizes");
            blocksizes.push_back(*size);
        } else if (field == 4 && wire == 2) {  // packed
            const auto packed = r.bytes();
            if (!packed) return fail(CidError::bad_unixfs, "blocksizes");
            ProtoReader p{*packed};
            while (!p.done()) {
                const auto size = p.varint();
                if (!size) return fail(CidError::bad_unixfs, "blocksizes");
                blocksizes.push_back(*size);
            }
        } else if (!r.skip(wire)) {
            return fail(CidError::bad_unixfs, "field " + std::to_string(field));
        }
    }
    if (!type) return fail(CidError::bad_unixfs, "no Type");
    constexpr uint64_t kRaw = 0;
    constexpr uint64_t kFile = 2;
    if (*type != kRaw && *type != kFile)
        return fail(CidError::unsupported_unixfs, "UnixFS type " + std::to_string(*type));
    // UnixFS spec §File: filesize is the Data's length plus every blocksize.
    uint64_t total = content.size();
    for (const uint64_t b : blocksizes) {
        if (b > (uint64_t{1} << 53) - total)
            return fail(CidError::bad_unixfs, "blocksizes overflow");
        total += b;
    }
    if (filesize && *filesize != total)
        return fail(CidError::bad_unixfs, "filesize does not match the data and blocksizes");
    return UnixfsFile{Bytes(content.begin(), content.end()), std::move(blocksizes)};
}

// A binary CIDv1: <version><codec><multihash> (CID spec §Decoding), the bytes of the text forms
// and of a PBLink's Hash alike.
Result<Cid, CidError> read_cid_v1(ByteView bytes) {
    size_t pos = 0;
    const auto version = read_varint(bytes, pos);
    if (!version) return fail(CidError::bad_varint, "version");
    if (*version != 1) return fail(CidError::unsupported_version, std::to_string(*version));
    const auto codec = read_varint(bytes, pos);
    if (!codec) return fail(CidError::bad_varint, "codec");
    if (*codec != static_cast<uint64_t>(CidCodec::raw) &&
        *codec != static_cast<uint64_t>(CidCodec::dag_pb))
        return fail(CidError::unsupported_codec, "codec " + std::to_string(*codec));
    auto digest = read_multihash(bytes, pos);
    if (!digest) return std::unexpected(digest.error());
    return Cid{1, static_cast<CidCodec>(*codec), *digest};
}

// A binary CID inside a PBLink's Hash: CIDv0 is a bare sha2-256 multihash, else CIDv1.
Result<Cid, CidError> read_binary_cid(ByteView bytes) {
    if (bytes.size() == 2 + kSha256Length && bytes[0] == kSha256Code) {
        size_t pos = 0;
        auto digest = read_multihash(bytes, pos);
        if (!digest) return std::unexpected(digest.error());
        return Cid{0, CidCodec::dag_pb, *digest};
    }
    return read_cid_v1(bytes);
}

// dag-pb PBNode (dag-pb spec): Links=2 (repeated PBLink: Hash=1, Name=2, Tsize=3), then Data=1
// (optional bytes); no other field is allowed.
Result<FileBlock, CidError> decode_dag_pb(ByteView block) {
    ProtoReader r{block};
    std::optional<ByteView> data;
    std::vector<Cid> links;
    while (!r.done()) {
        const auto key = r.varint();
        if (!key) return fail(CidError::bad_dag_pb, "field key");
        if (*key == ((2U << 3) | 2U) && !data) {
            const auto link = r.bytes();
            if (!link) return fail(CidError::bad_dag_pb, "Links");
            ProtoReader l{*link};
            std::optional<Cid> hash;
            while (!l.done()) {
                const auto k = l.varint();
                if (!k) return fail(CidError::bad_dag_pb, "PBLink field key");
                if (*k == ((1U << 3) | 2U) && !hash) {
                    const auto h = l.bytes();
                    if (!h) return fail(CidError::bad_dag_pb, "PBLink Hash");
                    auto cid = read_binary_cid(*h);
                    if (!cid) return std::unexpected(cid.error());
                    hash = *cid;
                } else if (!l.skip(*k & 7)) {
                    return fail(CidError::bad_dag_pb, "PBLink field");
                }
            }
            if (!hash) return fail(CidError::bad_dag_pb, "PBLink without Hash");
            links.push_back(*hash);
            continue;
        }
        if (*key != ((1U << 3) | 2U) || data) return fail(CidError::bad_dag_pb, "unexpected field");
        data = r.bytes();
        if (!data) return fail(CidError::bad_dag_pb, "Data");
    }
    if (!data) return fail(CidError::bad_unixfs, "dag-pb node without UnixFS Data");
    auto file = decode_unixfs(*data);
    if (!file) return std::unexpected(file.error());
    if (file->blocksizes.size() != links.size())
        return fail(CidError::bad_unixfs, "one blocksize per link expected");
    FileBlock out{std::move(file->data), std::move(links), 0};
    for (const uint64_t b : file->blocksizes) out.children_size += b;
    return out;
}

}  // namespace

Result<Cid, CidError> parse_cid(std::string_view text) {
    if (text.empty()) return fail(CidError::bad_multibase, "empty CID");
    if (text.size() > kMaxCidTextLength) return fail(CidError::bad_encoding, "CID too long");
    // CID spec §Decoding: 46 characters starting "Qm" is CIDv0.
    if (text.size() == 46 && text.starts_with("Qm")) {
        const auto bytes = base58_decode(text);
        if (!bytes) return fail(CidError::bad_encoding, "base58btc");
        size_t pos = 0;
        auto digest = read_multihash(*bytes, pos);
        if (!digest) return std::unexpected(digest.error());
        return Cid{0, CidCodec::dag_pb, *digest};
    }
    std::optional<Bytes> bytes;
    const std::string_view body = text.substr(1);
    switch (text.front()) {
        case 'b':
            bytes = base32_decode(body);
            break;
        case 'z':
            bytes = base58_decode(body);
            break;
        default:
            return fail(CidError::bad_multibase,
                        std::string("multibase prefix '") + text.front() + "'");
    }
    if (!bytes) return fail(CidError::bad_encoding, text.front() == 'b' ? "base32" : "base58btc");
    // A binary CIDv0 is a bare multihash (0x12 0x20 ...); in multibase text only v1 is valid.
    return read_cid_v1(*bytes);
}

std::string to_string(const Cid& cid) {
    Bytes multihash{static_cast<uint8_t>(kSha256Code), static_cast<uint8_t>(kSha256Length)};
    multihash.insert(multihash.end(), cid.sha256.begin(), cid.sha256.end());
    if (cid.version == 0) return base58_encode(multihash);
    Bytes bytes;
    write_varint(bytes, cid.version);
    write_varint(bytes, static_cast<uint64_t>(cid.codec));
    bytes.insert(bytes.end(), multihash.begin(), multihash.end());
    return "b" + base32_encode(bytes);
}

Result<FileBlock, CidError> read_file_block(const Cid& cid, ByteView block) {
    if (sha256(block) != cid.sha256)
        return fail(CidError::digest_mismatch, "the block does not hash to the CID");
    if (cid.codec == CidCodec::raw) return FileBlock{Bytes(block.begin(), block.end()), {}, 0};
    return decode_dag_pb(block);
}

Result<Bytes, CidError> extract_block_content(const Cid& cid, ByteView block) {
    auto file = read_file_block(cid, block);
    if (!file) return std::unexpected(file.error());
    if (!file->children.empty()) return fail(CidError::multi_block, "a multi-block file's root");
    return std::move(file->data);
}

}  // namespace credence::verify
