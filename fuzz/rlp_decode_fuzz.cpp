// Fuzzes strict RLP decoding: any accepted input must be canonical, so re-encoding the decoded
// tree must give back exactly the input; the reader API must agree with the tree decoder.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <credence/core/rlp.hpp>

using namespace credence::core;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const ByteView in(data, size);
    auto value = rlp_decode_value(in);
    auto item = rlp_decode(in);
    if (value.has_value() != item.has_value()) std::abort();
    if (!value) return 0;
    const Bytes again = rlp_encode(*value);
    if (again.size() != size || (size != 0 && std::memcmp(again.data(), data, size) != 0)) {
        std::abort();
    }
    // Walk a top-level list with the reader as well; every item must parse.
    if (item->list) {
        auto reader = RlpReader::open_list(in);
        if (!reader) std::abort();
        size_t count = 0;
        while (!reader->at_end()) {
            auto h = rlp_decode_header(reader->rest());
            if (!h) std::abort();
            if (h->list) {
                if (!reader->next_list()) std::abort();
            } else {
                auto s = reader->next_string();
                if (!s) std::abort();
                // The two scalar readers must agree wherever the narrower one succeeds.
                auto wide = rlp_scalar_to_uint256(*s);
                auto narrow = rlp_scalar_to_u64(*s);
                if (narrow && (!wide || *wide != Uint256(*narrow))) std::abort();
            }
            ++count;
        }
        if (count != item->items.size()) std::abort();
    }
    return 0;
}
