// Loads the trust engine's graph (trust/score.hpp TrustInputs) from the index: the agents of one
// identity registry, every feedback of its reputation registry (index/feedback_table.hpp), the
// latest validation responses of its validation registry, and the verification flags
// (index/verification_table.hpp, schema.hpp VerificationFlag) for verified payments and domains.
//
// Time: the index keeps block numbers, not block times, for old blocks, so a feedback's time is
// estimated as now - (head - block_num) x seconds_per_block. Decay is measured in days, so a
// block-time estimate is precise enough; the chain's real average is the right setting.
//
// Thread-safety: none (borrows one Database).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <credence/core/address.hpp>
#include <credence/index/database.hpp>
#include <credence/trust/score.hpp>

namespace credence::trust {

struct TrustSources {
    uint64_t chain_id = 0;
    core::Address identity_registry{};
    core::Address reputation_registry{};
    core::Address validation_registry{};
    uint64_t head_block_num = 0;
    int64_t now = 0;                ///< unix seconds at head_block_num
    double seconds_per_block = 12;  ///< Ethereum mainnet
};

/// The graph of one ERC-8004 deployment. agents[i] matches every review with agent == i.
[[nodiscard]] index::DbResult<TrustInputs> load_trust_inputs(index::Database& db,
                                                             const TrustSources& sources);

/// What changed in the index since a cursor, as trust/score_incremental.hpp applies it. Rows are
/// the current state (upserts), so reading one twice is harmless.
struct TrustChanges {
    struct Agent {
        core::Bytes agent_id;
        core::Address owner{};
        std::optional<core::Address> wallet;
    };
    struct Feedback {
        core::Bytes agent_id;
        Review review;  ///< review.agent is not set
    };
    struct Validation {
        core::Bytes agent_id;
        core::Bytes request_hash;
        core::Address validator{};
        uint8_t response = 0;
    };
    struct Flag {
        core::Bytes agent_id;
        core::Address client{};  ///< payments only
        uint64_t feedback_index = 0;
        bool set = false;
    };
    std::vector<Agent> agents;
    std::vector<Feedback> feedback;  ///< in chain order, with their payment flags
    std::vector<Validation> validations;
    std::vector<Flag> payments;  ///< feedback checks at or after the check cursor
    std::vector<Flag> domains;   ///< agent checks at or after the check cursor
    int64_t checked_at = -1;     ///< the latest checked_at read (the next check cursor)
};

/// The rows changed by the blocks after `block_num` (found through raw_logs, whose key starts
/// with the block: the new blocks' logs name the entities they touched, and each entity is read
/// by its key): agents, feedback given or revoked after the block, latest validation responses;
/// plus the verifier's payment and domain flags of checks at or after `checked_since` (unix
/// seconds). Feedback times use `sources` as load_trust_inputs does.
[[nodiscard]] index::DbResult<TrustChanges> load_trust_changes(index::Database& db,
                                                               const TrustSources& sources,
                                                               uint64_t block_num,
                                                               int64_t checked_since);

/// Every row of `agent_ids` (feedback, validations, domain flags), whatever its block: for agents
/// new to an incremental engine whose earlier feedback a full load would have read.
[[nodiscard]] index::DbResult<TrustChanges> load_agent_evidence(
    index::Database& db, const TrustSources& sources, std::span<const core::Bytes> agent_ids);

/// The latest checked_at of the feedback and agent checks (-1 when none): the check cursor to
/// take before a full load. The verifier writes checks with non-decreasing checked_at (one thread,
/// one clock reading per pass), so a cursor read before a load misses none written after it.
[[nodiscard]] index::DbResult<int64_t> latest_check(index::Database& db,
                                                    const TrustSources& sources);

}  // namespace credence::trust
