// Arbitrary bytes as the documents ERC-8004 agents publish off-chain besides their registration
// file: an A2A agent card (/.well-known/agent-card.json) and an endpoint-domain file
// (/.well-known/agent-registration.json), plus the same bytes as an endpoint URL. Nothing may
// crash. Properties: every extracted skill has an id; every card registration carries an address
// or a registry, and an eip155 agentAddress binds the card to an owner at that address; a domain
// file that verifies for an agent fails for the next agentId only with a reason; a parsed
// endpoint's domain parses back to itself.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <credence/core/caip.hpp>
#include <credence/verify/rules/agent_card.hpp>
#include <credence/verify/rules/domain_check.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace credence;
    const core::ByteView bytes(data, size);
    if (auto card = verify::parse_agent_card(bytes)) {
        for (const auto& s : card->skills) {
            if (s.id.empty()) __builtin_trap();
        }
        for (const auto& r : card->registrations) {
            if (!r.agent_address && !r.agent_registry) __builtin_trap();
            if (!r.agent_address) continue;
            const auto chain = core::eip155_chain_id(r.agent_address->chain);
            const auto addr = core::eip155_address(*r.agent_address);
            if (!chain || !addr) continue;
            core::Address owner;
            owner.bytes = *addr;
            if (verify::card_entry_binding(*card, *chain, core::EvmAddress{}, r.agent_id, owner,
                                           std::nullopt) == verify::CardBinding::none) {
                __builtin_trap();
            }
        }
    }
    const core::EvmAddress registry{0x80, 0x04};
    if (verify::check_domain_file(bytes, 1, registry, core::Uint256{22})) {
        auto other = verify::check_domain_file(bytes, 1, registry, core::Uint256{23});
        (void)other;  // may verify too (a file can list both); must not crash
    }
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto url = verify::parse_endpoint_url(text)) {
        auto again = verify::endpoint_domain("https://" + url->host + "/");
        if (!again || *again != url->host) __builtin_trap();
    }
    return 0;
}
