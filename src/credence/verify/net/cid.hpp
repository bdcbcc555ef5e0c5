// IPFS content identifiers, and checking that a block's bytes are what its CID names
// (docs/architecture.md §verify/: "ipfs:// through configured gateways, with content
// verification").
//
// Supported, and nothing else (anything else is CidError, so a fetch fails as bad_cid):
//   - CIDv0: 46 base58btc characters "Qm...", meaning dag-pb + sha2-256 (CID spec §CIDv0);
//   - CIDv1: multibase 'b' (base32, lowercase, no padding) or 'z' (base58btc), then the varints
//     <version=1><codec><multihash-code><digest-length> and the digest (CID spec §CIDv1);
//     codecs raw (0x55) and dag-pb (0x70); multihash sha2-256 (0x12) with a 32-byte digest.
// Varints are unsigned LEB128 and must be minimal (multiformats unsigned-varint spec). Base32 and
// base58 input must be canonical (zero pad bits), so each CID has exactly one text form per base.
//
// read_file_block() is the trustless-gateway check: sha256(block) must equal the CID's digest; a
// raw block is the content itself; a dag-pb block is decoded (PBNode) and its UnixFS Data (type
// File or Raw) gives its own bytes and, with Links, the children whose content follows (a
// multi-block file; the fetcher fetches them). extract_block_content() is the single-block case.
// Pure functions, thread-safe, no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/bytes.hpp>
#include <credence/core/error.hpp>

namespace credence::verify {

enum class CidError {
    bad_multibase,        ///< empty, or a multibase prefix other than 'b' / 'z' (or CIDv0 "Qm")
    bad_encoding,         ///< a character outside the base's alphabet, or non-canonical padding
    bad_varint,           ///< truncated, over-long or non-minimal varint
    unsupported_version,  ///< CID version other than 0 or 1
    unsupported_codec,    ///< codec other than raw (0x55) or dag-pb (0x70)
    unsupported_hash,     ///< multihash other than sha2-256 (0x12)
    bad_digest_length,    ///< sha2-256 digest not 32 bytes
    trailing_bytes,       ///< bytes after the digest
    digest_mismatch,      ///< the block does not hash to the CID
    bad_dag_pb,           ///< not a valid dag-pb PBNode
    multi_block,          ///< extract_block_content() of a node with links (read_file_block())
    bad_unixfs,           ///< the PBNode's Data is not a valid UnixFS message
    unsupported_unixfs,   ///< UnixFS type other than File or Raw (directory, symlink, ...)
};
[[nodiscard]] std::string_view to_string(CidError e) noexcept;

enum class CidCodec : uint64_t {
    raw = 0x55,
    dag_pb = 0x70,
};

struct Cid {
    unsigned version = 1;
    CidCodec codec = CidCodec::raw;
    core::Hash32 sha256{};  ///< the sha2-256 digest of the block

    friend bool operator==(const Cid&, const Cid&) = default;
};

/// Longest CID text accepted (a sha2-256 CIDv1 is 59 characters in base32).
inline constexpr size_t kMaxCidTextLength = 128;

/// Parses CIDv0 or CIDv1 text (see the header comment for what is supported).
[[nodiscard]] core::Result<Cid, CidError> parse_cid(std::string_view text);

/// Canonical text: CIDv0 in base58btc, CIDv1 in base32 ('b' prefix).
[[nodiscard]] std::string to_string(const Cid& cid);

/// Checks sha256(block) against the CID and returns the content the block carries.
[[nodiscard]] core::Result<core::Bytes, CidError> extract_block_content(const Cid& cid,
                                                                        core::ByteView block);

/// One block of a UnixFS file: its own bytes and, for a dag-pb node with Links (a multi-block
/// file, UnixFS spec §File), the blocks whose content follows them, in order.
struct FileBlock {
    core::Bytes data;
    std::vector<Cid> children;
    uint64_t children_size = 0;  ///< the sum of the node's blocksizes: what the children hold
};

/// Checks sha256(block) against the CID and reads it as one block of a UnixFS file (raw leaf,
/// or dag-pb File/Raw node, with or without Links). A node with Links must give one blocksize per
/// link (UnixFS spec: blocksizes[i] is the size of link i's content).
[[nodiscard]] core::Result<FileBlock, CidError> read_file_block(const Cid& cid,
                                                                core::ByteView block);

/// sha2-256 (OpenSSL EVP).
[[nodiscard]] core::Hash32 sha256(core::ByteView data);

}  // namespace credence::verify
