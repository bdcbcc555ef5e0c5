// Arbitrary bytes as ERC-8004 JSON documents: the registration-file validator and the
// feedback-file validator (the two documents ERC-8004 puts off-chain) must never crash. Properties:
// every registration entry the validator extracts is found again by find_registration(); a
// feedback file that validates without errors and has an RFC 3339 createdAt rebuilds to canonical
// bytes that validate back to the same FeedbackFile.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <credence/core/feedback_file.hpp>
#include <credence/core/registration_file.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace credence::core;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto r = validate_registration_file(text)) {
        for (const auto& e : r->file.registrations) {
            if (!find_registration(r->file, e.agent_registry.chain_id,
                                   e.agent_registry.identity_registry, e.agent_id)) {
                __builtin_trap();
            }
        }
        if (r->ok() != (r->error_count() == 0)) __builtin_trap();
    }
    if (auto f = validate_feedback_file(text); f && f->ok()) {
        auto built = build_feedback_file(f->file);
        if (!built) {
            if (built.error().code != FeedbackError::bad_input ||
                is_rfc3339_date_time(f->file.created_at)) {
                __builtin_trap();
            }
            return 0;
        }
        auto again = validate_feedback_file(std::string_view(built->bytes));
        if (!again || !again->ok() || !(again->file == f->file)) __builtin_trap();
    }
    return 0;
}
