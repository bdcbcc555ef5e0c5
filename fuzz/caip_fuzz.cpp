// Arbitrary bytes as CAIP-2/10/19 identifiers, ERC-8004 agentRegistry strings and ERC-8257 tool
// references: parsing must never crash, and whatever parses must format back to the same text
// (the generic forms and the canonical tool reference) or to an equal value (agentRegistry).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <credence/core/caip.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace credence::core;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto id = parse_chain_id(text); id && to_string(*id) != text) __builtin_trap();
    if (auto id = parse_account_id(text)) {
        if (to_string(*id) != text) __builtin_trap();
        (void)eip155_address(*id);
    }
    if (auto id = parse_asset_id(text); id && to_string(*id) != text) __builtin_trap();
    if (auto reg = parse_agent_registry(text)) {
        auto again = parse_agent_registry(to_string(*reg));
        if (!again || *again != *reg) __builtin_trap();
    }
    if (auto ref = parse_tool_reference(text); ref && to_string(*ref) != text) __builtin_trap();
    return 0;
}
