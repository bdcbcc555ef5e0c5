// Arbitrary bytes as a first-draft ERC-8004 Agent Card (https://{AgentDomain}/.well-known/
// agent-card.json, ERC-8004 first draft §Agent Card Structure), and as an AgentDomain. Nothing may
// crash. Properties: every kept registration has a CAIP-10 agentAddress and is unique; ok() agrees
// with the issues; every issue path is a JSON Pointer ("" or starting with '/'); an eip155 entry
// matches the agent it names; a card URL built from a domain starts with https:// and ends with
// the well-known path.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <credence/core/caip.hpp>
#include <credence/verify/rules/draft_agent_card.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace credence;
    const core::ByteView bytes(data, size);
    if (auto card = verify::parse_draft_agent_card(bytes)) {
        size_t errors = 0;
        for (const auto& i : card->issues) {
            if (!i.path.empty() && i.path.front() != '/') __builtin_trap();
            if (i.severity == core::IssueSeverity::error) ++errors;
        }
        if (card->ok() != (errors == 0)) __builtin_trap();
        for (size_t k = 0; k < card->registrations.size(); ++k) {
            const auto& r = card->registrations[k];
            if (r.agent_address.address.empty()) __builtin_trap();
            for (size_t j = 0; j < k; ++j) {
                const auto& o = card->registrations[j];
                if (o.agent_id == r.agent_id && o.agent_address == r.agent_address)
                    __builtin_trap();
            }
            const auto chain = core::eip155_chain_id(r.agent_address.chain);
            const auto addr = core::eip155_address(r.agent_address);
            if (!chain || !addr) continue;
            const auto b = verify::match_draft_card(*card, *chain, r.agent_id, *addr);
            if (b.match != verify::DraftCardMatch::matches || !b.index) __builtin_trap();
        }
    }
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto url = verify::draft_agent_card_url(text)) {
        if (!url->starts_with("https://") || !url->ends_with(verify::kAgentCardPath))
            __builtin_trap();
    }
    return 0;
}
