// The read models the API searches (index/schema.cpp migration 3): agent_profiles, what the
// latest agent check read from the registration file, and tool_profiles, what the latest tool
// check read from the ERC-8257 manifest. Written next to the verification record, so
// `credence verify pending` and the node's reverifier fill them; read by api/. Each list is
// stored twice: comma-wrapped in the profile row (what the API shows) and one entry per row in
// agent_profile_terms / tool_profile_terms (migration 6: what the API's exact-entry filters look
// up through an index).
//
// Invariants: a profile row exists only for a checked subject; lists are lowercase, each entry
// trimmed of commas, wrapped as ",a,b," ("" -> ","); the term rows of a subject are exactly the
// entries of its profile's lists, written in the same transaction as the row (the caller's, or
// one of their own when the caller has none); a check that could not read the document
// (unreachable, not JSON) keeps the last profile's contents and terms and only updates status and
// checked_at.
// Thread-safety: none beyond the Database's (one per thread). Nothing throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/index/database.hpp>
#include <credence/verify/store/verification_store.hpp>
#include <credence/verify/verifiers/registration_verifier.hpp>

namespace credence::verify {

struct AgentProfile {
    std::string name;
    std::string description;
    std::string image;
    std::optional<bool> active;
    std::optional<bool> x402_support;
    std::string services_json = "[]";  ///< the registration file's services[] as JSON
    std::vector<std::string> service_names;
    std::vector<std::string> skills;   ///< OASF service skills and A2A card skills
    std::vector<std::string> domains;  ///< verified domains only
    std::vector<std::string> trust_models;
    std::string status;  ///< verification_store.hpp VerificationStatus name
    int64_t checked_at = 0;
    bool has_document = false;  ///< false: the file was not read (keep the stored contents)
};

struct ToolProfile {
    std::string name;
    std::string description;
    std::string version;
    std::vector<std::string> tags;
    std::vector<std::string> pricing_protocols;
    std::vector<std::string> assets;
    std::vector<std::string> access_kinds;
    std::string status;
    std::string reason;  ///< ERC-8257 reason code, "" when canonical
    int64_t checked_at = 0;
    bool has_document = false;
};

/// The profile of an agent report in its JSON form (AgentVerification::to_json(), the stored
/// VerificationRecord::report_json); a first-draft report (DraftAgentVerification::to_json(),
/// "revision": "draft") gives the card's name, its trustModels and the verified AgentDomain.
[[nodiscard]] AgentProfile agent_profile_from_report(const nlohmann::json& report);
/// The profile of a tool report (ToolVerification::to_json(), with its "manifestSummary" from
/// rules/manifest_summary.hpp).
[[nodiscard]] ToolProfile tool_profile_from_report(const nlohmann::json& report);

/// ",a,b," of the lowercase entries (commas dropped, duplicates and empties removed).
[[nodiscard]] std::string wrap_list(const std::vector<std::string>& entries);

/// Writes the agent profile of `verification` and its terms (agent_id: 32 bytes big-endian).
[[nodiscard]] index::DbResult<void> save_agent_profile(index::Database& db, uint64_t chain_id,
                                                       const core::Address& registry,
                                                       const core::Bytes& agent_id,
                                                       const AgentVerification& verification,
                                                       int64_t checked_at);
[[nodiscard]] index::DbResult<void> save_agent_profile(index::Database& db, uint64_t chain_id,
                                                       const core::Address& registry,
                                                       const core::Bytes& agent_id,
                                                       const AgentProfile& profile);
[[nodiscard]] index::DbResult<void> save_tool_profile(index::Database& db, uint64_t chain_id,
                                                      const core::Address& registry,
                                                      const core::Bytes& tool_id,
                                                      const ToolProfile& profile);
/// The profile of a stored record (agent and tool records; other kinds are ignored).
[[nodiscard]] index::DbResult<void> save_profile(index::Database& db, uint64_t chain_id,
                                                 const VerificationRecord& record);

[[nodiscard]] index::DbResult<std::optional<AgentProfile>> load_agent_profile(
    index::Database& db, uint64_t chain_id, const core::Address& registry,
    const core::Bytes& agent_id);
[[nodiscard]] index::DbResult<std::optional<ToolProfile>> load_tool_profile(
    index::Database& db, uint64_t chain_id, const core::Address& registry,
    const core::Bytes& tool_id);

}  // namespace credence::verify
