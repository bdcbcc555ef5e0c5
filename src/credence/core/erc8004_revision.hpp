// The three revisions of ERC-8004 that Credence reads and writes (docs/compatibility.md
// §Earlier ERC-8004 revisions): the current text, the intermediate revision whose feedback is a
// score 0..100, and the first draft (AgentDomain / AgentAddress identities, AcceptFeedback,
// validation by DataHash). Each revision has its own registries (contracts/src/erc8004 and
// contracts/src/erc8004-legacy); deployment files, index rows and CLI flags name the revision
// with the words below. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace credence::core {

enum class Erc8004Revision : uint8_t {
    current = 0,  ///< erc-8004.md: value/valueDecimals feedback, agentWallet, responseHash
    score = 1,    ///< the intermediate revision: feedback is a score 0..100
    draft = 2,    ///< the first draft: (AgentID, AgentDomain, AgentAddress), AuthFeedback, DataHash
};

/// "current", "score" or "draft" (the words of deployment files, the index's `revision` columns
/// and `--revision`); "unknown" for a value outside the enum.
[[nodiscard]] std::string_view to_string(Erc8004Revision revision) noexcept;
/// The inverse of to_string (exact, lower case); nullopt for any other text.
[[nodiscard]] std::optional<Erc8004Revision> parse_erc8004_revision(std::string_view text) noexcept;

/// The three registries of one revision.
enum class Erc8004Registry : uint8_t { identity, reputation, validation };

/// The name of a revision's registry in deployment files: "IdentityRegistry",
/// "ScoreReputationRegistry", "DraftValidationRegistry", ...
[[nodiscard]] std::string_view registry_contract_name(Erc8004Revision revision,
                                                      Erc8004Registry registry) noexcept;

}  // namespace credence::core
