// Arbitrary bytes as an EIP-712 typed-data document: parsing and hashing must never crash, hang
// or throw, whatever the types (recursive, unknown, malformed) and values (deep, huge, wrong kind).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <credence/core/eip712.hpp>
#include <credence/core/keccak.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace credence::core;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto td = parse_typed_data(text);
    if (!td) return 0;
    auto digest = typed_data_digest(*td);
    // The separate steps must agree with the one-shot digest.
    auto ds = domain_separator(*td);
    if (digest && td->primary_type != "EIP712Domain") {
        auto hs = hash_struct(td->types, td->primary_type, td->message);
        if (!ds || !hs || eip712_digest(*ds, *hs) != *digest) __builtin_trap();
        auto enc = encode_data(td->types, td->primary_type, td->message);
        if (!enc || keccak256(*enc) != *hs) __builtin_trap();
    }
    for (const auto& [name, fields] : td->types) (void)encode_type(td->types, name);
    return 0;
}
