// Loads the trust engine's graph (trust/score.hpp TrustInputs) from the index: the agents of one
// identity registry, every feedback of its reputation registry, the latest validation responses
// of its validation registry, and the verification flags (verify/verification_store.hpp) for
// verified payments and domains.
//
// Time: the index keeps block numbers, not block times, for old blocks, so a feedback's time is
// estimated as now - (head - block_num) x seconds_per_block. Decay is measured in days, so a
// block-time estimate is precise enough; the chain's real average is the right setting.
//
// Thread-safety: none (borrows one Database).
#pragma once

#include <cstdint>

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

}  // namespace credence::trust
