// Arbitrary bytes as a first-draft ERC-8004 FeedbackDataURI file (ERC-8004 first draft §Feedback
// Data Structure: a list of objects with a mandatory CAIP-10 FeedbackAuthID). Nothing may crash.
// Properties: ok() agrees with the issues; every issue path is a JSON Pointer; every kept entry
// has a FeedbackAuthID whose chain parses; an entry with a 32-byte auth id on an eip155 chain is
// found by entries_for_auth.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include <credence/core/caip.hpp>
#include <credence/verify/rules/feedback_data.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace credence;
    auto parsed = verify::parse_draft_feedback_data(core::ByteView(data, size));
    if (!parsed) return 0;
    size_t errors = 0;
    for (const auto& i : parsed->issues) {
        if (!i.path.empty() && i.path.front() != '/') __builtin_trap();
        if (i.severity == core::IssueSeverity::error) ++errors;
    }
    if (parsed->ok() != (errors == 0)) __builtin_trap();
    for (size_t k = 0; k < parsed->entries.size(); ++k) {
        const auto& e = parsed->entries[k];
        if (e.feedback_auth_id.chain.chain_namespace.empty()) __builtin_trap();
        const auto chain = core::eip155_chain_id(e.feedback_auth_id.chain);
        if (!chain || !e.auth_id) continue;
        const auto found = verify::entries_for_auth(*parsed, *chain, *e.auth_id);
        if (std::find(found.begin(), found.end(), k) == found.end()) __builtin_trap();
    }
    return 0;
}
