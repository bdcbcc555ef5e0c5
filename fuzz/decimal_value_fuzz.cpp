// Arbitrary bytes as ERC-8004 decimal feedback values. Properties: whatever parses formats back to
// the same text (minus the sign of a negative zero), re-parses to the same (value, decimals),
// obeys the bounds (make_decimal_value accepts it), and scales to 18 decimals consistently.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <credence/core/decimal_value.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace credence::core;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto v = parse_decimal_value(text);
    if (!v) return 0;
    const std::string out = format_decimal_value(*v);
    std::string_view expect = text;
    if (v->value == Int256(0) && !expect.empty() && expect.front() == '-') expect.remove_prefix(1);
    if (out != expect) __builtin_trap();
    auto again = parse_decimal_value(out);
    if (!again || !(*again == *v)) __builtin_trap();
    auto made = make_decimal_value(v->value, v->decimals);
    if (!made || !(*made == *v)) __builtin_trap();
    // Scaling to 18 decimals preserves the sign and, for 18-decimal inputs, the value.
    const Int256 wad = to_wad(*v);
    if (wad.is_negative() != v->value.is_negative()) __builtin_trap();
    if (v->decimals == 18 && !(wad == v->value)) __builtin_trap();
    return 0;
}
