// The agent0 subgraph's reading of URIs and off-chain files (github.com/agent0lab/subgraph:
// src/utils/ipfs.ts, src/utils/registration-parser.ts, src/utils/feedback-parser.ts), applied
// to the documents Credence's verifiers fetched and stored in their reports.
//
// Where the subgraph leaves a field unfilled that the agent0 SDK filters on (mcpTools,
// mcpPrompts, mcpResources and a2aSkills: "not implemented yet"), the fields are read from the
// service entries where the SDK writes them (docs/graphql.md §Choices).
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include <credence/subgraph/snapshot.hpp>

namespace credence::subgraph {

/// "data", "ipfs" (ipfs://, a bare CID or a known gateway URL), "https", "http" or "unknown"
/// (ipfs.ts determineUriType).
[[nodiscard]] std::string uri_type(std::string_view uri);

/// The CID an IPFS URI names, or "" (ipfs.ts extractIpfsHash).
[[nodiscard]] std::string ipfs_cid(std::string_view uri);

/// Fills a registration file record from the registration document (registration-parser.ts
/// populateRegistrationFromJsonBytes, plus the SDK's capability lists). A non-object leaves the
/// defaults.
void read_registration_document(const nlohmann::json& doc, RegistrationFileRecord& out);

/// Fills a feedback file record from the feedback document (feedback-parser.ts parseFeedbackJSON
/// and the ERC-8004 envelope fields of the schema); the file's tags are kept only when the
/// chain's are empty.
void read_feedback_document(const nlohmann::json& doc, const FeedbackRecord& onchain,
                            FeedbackFileRecord& out);

/// value / 10^decimals as the shortest decimal text ("-1.25", "85", "0"): The Graph's BigDecimal.
[[nodiscard]] std::string decimal_text(std::string_view integer, int64_t decimals);

}  // namespace credence::subgraph
