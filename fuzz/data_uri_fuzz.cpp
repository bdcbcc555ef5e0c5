// Arbitrary bytes as a data: URI: parsing must never crash; whatever parses must re-encode to a URI
// that parses to the same value, in both the base64 and the percent-encoded form.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <credence/core/data_uri.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace credence::core;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto uri = parse_data_uri(text, 4096);
    if (!uri) return 0;
    for (bool b64 : {uri->base64, !uri->base64}) {
        DataUri copy = *uri;
        copy.base64 = b64;
        auto encoded = encode_data_uri(copy);
        if (!encoded) __builtin_trap();
        auto back = parse_data_uri(*encoded, 4096);
        if (!back || *back != copy) __builtin_trap();
    }
    return 0;
}
