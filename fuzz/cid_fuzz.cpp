// Arbitrary bytes as CID text and as an IPFS block: parsing must never crash; a parsed CID's
// canonical text must parse back to the same CID (and be canonical itself); block decoding must
// never crash, and with the block's own digest it only fails on its dag-pb/UnixFS content; a
// multi-block node's read agrees with the single-block one.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <credence/verify/net/cid.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace credence::verify;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto cid = parse_cid(text)) {
        const std::string canonical = to_string(*cid);
        auto back = parse_cid(canonical);
        if (!back || *back != *cid || to_string(*back) != canonical) __builtin_trap();
    }
    // The block under a CID that names it: the digest check passes, so the dag-pb and UnixFS
    // decoders see every input.
    const credence::core::ByteView block(data, size);
    for (CidCodec codec : {CidCodec::dag_pb, CidCodec::raw}) {
        const Cid cid{1, codec, sha256(block)};
        auto content = extract_block_content(cid, block);
        if (!content && content.error().code == CidError::digest_mismatch) __builtin_trap();
        if (content && content->size() > size) __builtin_trap();
        if (codec == CidCodec::raw && (!content || content->size() != size)) __builtin_trap();
        // A multi-block file's node: its links are at least two bytes each, and a single-block
        // read refuses exactly the nodes that have them.
        auto file = read_file_block(cid, block);
        if (file && (file->data.size() > size || 2 * file->children.size() > size))
            __builtin_trap();
        if (file.has_value() !=
            (content.has_value() || (content.error().code == CidError::multi_block)))
            __builtin_trap();
    }
    return 0;
}
