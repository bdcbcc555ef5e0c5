// The trust engine kept in memory between passes (docs/architecture.md §trust/: "updates are
// incremental as events arrive"): the review graph, the reviewer statistics and the personalized
// PageRank vector stay here, changes are applied as the index reports them, and refresh() returns
// only the agents whose score may have changed.
//
// A refresh:
//   1. rebuilds the statistics and out-edges of the reviewers whose reviews changed, and the
//      owner / wallet edges of the agents that changed;
//   2. recomputes the PageRank vector by power iteration warm-started from the previous one, to
//      the same stopping rule as a full computation (TrustConfig::tolerance, at most
//      TrustConfig::iterations steps): near the old fixed point it takes a few steps;
//   3. recomputes every reviewer's weight (O(reviewers), no review is read), and marks dirty the
//      agents reviewed by a reviewer whose weight moved by more than
//      TrustConfig::rescore_tolerance since those agents were last scored, or whose discounts
//      changed (standing crossing the no-standing line, first review, spread);
//   4. returns the dirty agents: those with a changed review, validation, domain flag or facts,
//      and those of step 3.
// Invariant (tested against compute_trust): scoring every agent with the current weights gives
// compute_trust's result for the same inputs and clock up to the PageRank tolerance, and an agent
// not returned keeps a score computed with weights within 2 x rescore_tolerance of the current
// ones. The clock (TrustConfig::now) is fixed at construction: decay and reviewer ages are
// measured at that time until the next full load (a new IncrementalTrust).
//
// Thread-safety: none; one owner thread. Ownership: owns its copy of the graph.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/trust/review_graph.hpp>
#include <credence/trust/score.hpp>

namespace credence::trust {

class IncrementalTrust {
public:
    /// `config.now` is the clock of every refresh of this engine.
    explicit IncrementalTrust(TrustConfig config) : config_(std::move(config)) {}

    /// Replaces the whole graph (a full load); the next refresh scores every agent.
    void reset(TrustInputs inputs);

    /// A new agent, or a new owner / wallet (ERC-8004 Registered, Transfer, agentWallet).
    void upsert_agent(const core::Bytes& agent_id, const core::Address& owner,
                      const std::optional<core::Address>& wallet);
    /// A new feedback, or a known one again (FeedbackRevoked, a payment verified). The key is
    /// (agent_id, review.client, review.feedback_index); review.agent is ignored. Returns false
    /// (and ignores it) when the agent is unknown, as a full load does.
    bool upsert_review(const core::Bytes& agent_id, Review review);
    /// The verifier's payment flag of one feedback (index/schema.hpp VerificationFlag).
    void set_payment_verified(const core::Bytes& agent_id, const core::Address& client,
                              uint64_t feedback_index, bool verified);
    /// The latest response of one validation request (ERC-8004 §Validation Registry).
    void set_validation(const core::Bytes& agent_id, const core::Bytes& request_hash,
                        const core::Address& validator, uint8_t response);
    void set_domain_verified(const core::Bytes& agent_id, bool verified);
    [[nodiscard]] bool has_agent(const core::Bytes& agent_id) const;
    /// Whether a change (or the first load) waits for refresh().
    [[nodiscard]] bool pending() const noexcept {
        return all_dirty_ || !dirty_agents_.empty() || !dirty_nodes_.empty();
    }

    struct Refresh {
        std::vector<uint32_t> agents;  ///< to rescore, ascending
        unsigned iterations = 0;       ///< PageRank steps run
        size_t reviewers_moved = 0;    ///< reviewers whose agents were marked for step 3
    };
    /// Brings the reviewer weights up to date and returns the agents to rescore (see above).
    [[nodiscard]] Refresh refresh();

    /// One agent's score with the current weights.
    [[nodiscard]] AgentScore score(uint32_t agent) const;

    [[nodiscard]] const AgentFacts& agent(uint32_t agent) const { return in_.agents.at(agent); }
    [[nodiscard]] size_t agent_count() const noexcept { return in_.agents.size(); }
    [[nodiscard]] size_t review_count() const noexcept { return in_.reviews.size(); }
    [[nodiscard]] const std::map<core::Address, ReviewerWeight>& weights() const noexcept {
        return weights_;
    }
    [[nodiscard]] const TrustConfig& config() const noexcept { return config_; }

private:
    uint32_t node_of(const core::Address& a);
    void mark_agent(uint32_t agent);
    void mark_node(uint32_t node);
    void link_agent(uint32_t agent, int delta);  // owner / wallet references and out-edges
    void rebuild_node(uint32_t node);
    void drop_validation(uint32_t agent, const core::Bytes& request_hash);
    Review* find_review(const core::Bytes& agent_id, const core::Address& client,
                        uint64_t feedback_index);

    TrustConfig config_;
    TrustInputs in_;
    FundingClusters clusters_;                                 // from the last reset()
    std::unordered_map<std::string, uint32_t> agent_index_;    // agent_id bytes
    std::unordered_map<std::string, uint32_t> review_index_;   // agent_id, client, index
    std::unordered_map<std::string, uint32_t> request_agent_;  // validation request -> agent
    std::vector<std::vector<uint32_t>> by_agent_;              // review indexes, in order
    detail::AddressMap<uint32_t> node_index_;
    std::vector<core::Address> addresses_;
    std::vector<std::vector<uint32_t>> by_client_;  // per address: review indexes, in order
    std::vector<uint32_t> owner_refs_;              // per address: agents it owns or is wallet of
    std::vector<detail::ReviewerStats> stats_;      // per address
    detail::ReviewGraph graph_;
    detail::PageRankVector rank_;
    std::map<core::Address, ReviewerWeight> weights_;
    // Per address: its entry in weights_ when has_weight_ is set (map nodes are stable, also
    // across a move of the engine; end() is not, hence the flag).
    std::vector<std::map<core::Address, ReviewerWeight>::iterator> weight_at_;
    std::vector<char> has_weight_;
    // Per address: its weight as of its agents' last rescoring (valid when scored_ is set).
    std::vector<ReviewerWeight> scored_with_;
    std::vector<char> scored_;
    std::vector<char> agent_dirty_, node_dirty_;
    std::vector<uint32_t> dirty_agents_, dirty_nodes_;
    bool all_dirty_ = true;
};

}  // namespace credence::trust
