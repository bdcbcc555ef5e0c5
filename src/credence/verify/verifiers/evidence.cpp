// ERC-8301 evidence-chain verification (evidence.hpp).
#include <credence/verify/verifiers/evidence.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <set>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/core.h>

#include <credence/core/keccak.hpp>

namespace credence::verify {
namespace {

namespace iw = chain::bindings::i_agent_workflow;
using Json = nlohmann::ordered_json;
using core::Hash32;

struct HashHasher {
    size_t operator()(const Hash32& h) const noexcept {
        size_t v = 0;
        std::memcpy(&v, h.data(), sizeof v);  // keccak output: any 8 bytes are uniform
        return v;
    }
};
using HashSet = std::unordered_set<Hash32, HashHasher>;
template <typename V>
using HashMap = std::unordered_map<Hash32, V, HashHasher>;

// keccak256(abi.encodePacked(bytes32[])): the words back to back, no length (ERC-8301 §Data
// Envelopes; keccak256("") for an empty list, never bytes32(0)).
Hash32 packed_hash(const std::vector<Hash32>& hashes) {
    core::Bytes buf(hashes.size() * 32);
    for (size_t i = 0; i < hashes.size(); ++i) {
        std::memcpy(buf.data() + i * 32, hashes[i].data(), 32);
    }
    return core::keccak256(buf);
}

// abi.encode of static words is the words back to back.
template <size_t N>
Hash32 hash_words(const std::array<Hash32, N>& words) {
    std::array<uint8_t, N * 32> buf{};
    for (size_t i = 0; i < N; ++i) std::memcpy(buf.data() + i * 32, words[i].data(), 32);
    return core::keccak256(core::ByteView(buf.data(), buf.size()));
}

Hash32 word_of(uint64_t v) { return core::Uint256{v}.to_word(); }

Hash32 word_of(const core::Address& a) {
    Hash32 w{};
    std::memcpy(w.data() + 12, a.bytes.data(), 20);
    return w;
}

bool has_duplicate(const std::vector<Hash32>& hashes) {
    if (hashes.size() < 2) return false;
    HashSet seen;
    for (const auto& h : hashes) {
        if (!seen.insert(h).second) return true;
    }
    return false;
}

// Timestamps are uint256 in the structs; clamp for comparisons (a chain time never nears 2^64).
uint64_t u64(const core::Uint256& v) {
    return v.fits_u64() ? v.limbs[0] : std::numeric_limits<uint64_t>::max();
}

class Verifier {
public:
    Verifier(EvidenceSource& source, const Hash32& run_id, const EvidenceOptions& options)
        : source_(source), run_id_(run_id), options_(options) {}

    std::expected<EvidenceReport, EvidenceError> run() {
        report_.run_id = run_id_;
        report_.workflow = source_.workflow();
        report_.source = source_.describe();
        auto result = source_.result(run_id_);
        if (!result) return fail(result.error());
        report_.result = *result;
        auto proofs = source_.proofs(run_id_);
        if (!proofs) return fail(proofs.error());
        proofs_ = std::move(*proofs);
        // ERC-8301 §result(): finalTaskHash is non-zero iff status is Success.
        if (result->status != kRunSuccess || result->final_task_hash == Hash32{}) {
            add(EvidenceReason::run_not_completed, NodeKind::task, Hash32{},
                fmt::format("result() status {} finalTaskHash {}", result->status,
                            core::to_hex(result->final_task_hash)));
            return std::move(report_);
        }
        if (auto ok = traverse(result->final_task_hash); !ok) return fail(ok.error());
        check_all();
        check_cycles();
        report_.valid = report_.failures.empty();
        // Every node proven, none missing (a task's flag covers only its own prevReplyHashes).
        report_.fully_proven = report_.valid &&
                               std::all_of(report_.tasks.begin(), report_.tasks.end(),
                                           [](const TaskNode& t) { return t.proven; }) &&
                               std::all_of(report_.replies.begin(), report_.replies.end(),
                                           [](const ReplyNode& r) { return r.proven; });
        return std::move(report_);
    }

private:
    std::unexpected<EvidenceError> fail(SourceError e) {
        return std::unexpected(EvidenceError{EvidenceErrorKind::source, std::move(e)});
    }

    void add(EvidenceReason reason, NodeKind kind, const Hash32& hash, std::string detail) {
        report_.failures.push_back({reason, kind, hash, std::move(detail)});
    }

    // Breadth-first from the final task, one source call per level (ERC-8301 §Evidence Chain:
    // alternate getAgentTask -> prevReplyHashes and getAgentReply -> prevTaskHashes).
    std::expected<void, SourceError> traverse(const Hash32& final_task) {
        std::vector<Hash32> task_level{final_task};
        std::vector<Hash32> reply_level;
        task_index_.emplace(final_task, 0);
        size_t depth = 0;
        while (!task_level.empty() || !reply_level.empty()) {
            if (depth >= options_.max_depth) {
                add(EvidenceReason::too_large, NodeKind::task, Hash32{},
                    fmt::format("traversal stopped at depth {}", depth));
                break;
            }
            if (!task_level.empty()) {
                auto records = source_.tasks(task_level);
                ++report_.source_calls;
                if (!records) return std::unexpected(records.error());
                reply_level.clear();
                if (auto ok = find_wrong_kind(task_level, *records); !ok) {
                    return std::unexpected(ok.error());
                }
                for (size_t i = 0; i < task_level.size(); ++i) {
                    TaskNode node;
                    node.hash = task_level[i];
                    node.final_task = report_.tasks.empty();
                    node.depth = depth;
                    node.record = std::move((*records)[i]);
                    if (node.record) {
                        for (const auto& rh : node.record->task.prev_reply_hashes) {
                            if (task_index_.contains(rh) || reply_index_.contains(rh)) continue;
                            if (!admit()) break;
                            reply_index_.emplace(rh, kPending);
                            reply_level.push_back(rh);
                        }
                    }
                    visit_order_.emplace_back(NodeKind::task, report_.tasks.size());
                    task_index_[node.hash] = report_.tasks.size();
                    report_.tasks.push_back(std::move(node));
                }
                task_level.clear();
                ++depth;
                continue;
            }
            auto records = source_.replies(reply_level);
            ++report_.source_calls;
            if (!records) return std::unexpected(records.error());
            if (auto ok = find_wrong_kind(reply_level, *records); !ok) {
                return std::unexpected(ok.error());
            }
            for (size_t i = 0; i < reply_level.size(); ++i) {
                ReplyNode node;
                node.hash = reply_level[i];
                node.depth = depth;
                node.record = std::move((*records)[i]);
                if (node.record) {
                    for (const auto& th : node.record->reply.prev_task_hashes) {
                        if (task_index_.contains(th) || reply_index_.contains(th)) continue;
                        if (!admit()) break;
                        task_index_.emplace(th, kPending);
                        task_level.push_back(th);
                    }
                }
                visit_order_.emplace_back(NodeKind::reply, report_.replies.size());
                reply_index_[node.hash] = report_.replies.size();
                report_.replies.push_back(std::move(node));
            }
            reply_level.clear();
            ++depth;
        }
        report_.depth = depth;
        return {};
    }

    // A hash that is not a task may still be a reply (or the reverse): a link of the wrong kind
    // is a broken link, not a missing node. One extra source call per level with misses.
    template <typename Record>
    std::expected<void, SourceError> find_wrong_kind(
        const std::vector<Hash32>& level, const std::vector<std::optional<Record>>& records) {
        std::vector<Hash32> misses;
        for (size_t i = 0; i < level.size(); ++i) {
            if (!records[i]) misses.push_back(level[i]);
        }
        if (misses.empty()) return {};
        ++report_.source_calls;
        if constexpr (std::is_same_v<Record, TaskRecord>) {
            auto other = source_.replies(misses);
            if (!other) return std::unexpected(other.error());
            for (size_t i = 0; i < misses.size(); ++i) {
                if ((*other)[i]) wrong_kind_.insert(misses[i]);
            }
        } else {
            auto other = source_.tasks(misses);
            if (!other) return std::unexpected(other.error());
            for (size_t i = 0; i < misses.size(); ++i) {
                if ((*other)[i]) wrong_kind_.insert(misses[i]);
            }
        }
        return {};
    }

    bool admit() {
        if (task_index_.size() + reply_index_.size() < options_.max_nodes) return true;
        if (!too_large_reported_) {
            too_large_reported_ = true;
            add(EvidenceReason::too_large, NodeKind::task, Hash32{},
                fmt::format("traversal stopped at {} nodes", options_.max_nodes));
        }
        return false;
    }

    const TaskNode* task_at(const Hash32& h) const {
        auto it = task_index_.find(h);
        if (it == task_index_.end() || it->second == kPending) return nullptr;
        return &report_.tasks[it->second];
    }
    const ReplyNode* reply_at(const Hash32& h) const {
        auto it = reply_index_.find(h);
        if (it == reply_index_.end() || it->second == kPending) return nullptr;
        return &report_.replies[it->second];
    }

    void check_all() {
        // Downstream tasks of each reply (the tasks naming it): the upper time bound of a reply.
        HashMap<std::vector<size_t>> downstream;
        for (size_t i = 0; i < report_.tasks.size(); ++i) {
            const auto& n = report_.tasks[i];
            if (!n.record) continue;
            for (const auto& rh : n.record->task.prev_reply_hashes) downstream[rh].push_back(i);
        }
        // Replies first (their provenness feeds the tasks'), but failures are reported in visit
        // order, so collect per node and emit in order.
        std::vector<std::vector<EvidenceFailure>> reply_failures(report_.replies.size());
        for (size_t i = 0; i < report_.replies.size(); ++i) {
            check_reply(report_.replies[i], downstream, reply_failures[i]);
            if (!reply_failures[i].empty()) failing_replies_.insert(report_.replies[i].hash);
        }
        std::vector<std::vector<EvidenceFailure>> task_failures(report_.tasks.size());
        for (size_t i = 0; i < report_.tasks.size(); ++i) {
            check_task(report_.tasks[i], task_failures[i]);
        }
        for (const auto& [kind, i] : visit_order_) {
            auto& f = kind == NodeKind::task ? task_failures[i] : reply_failures[i];
            for (auto& e : f) report_.failures.push_back(std::move(e));
        }
    }

    void check_task(TaskNode& n, std::vector<EvidenceFailure>& out) {
        auto fail = [&](EvidenceReason r, std::string d) {
            out.push_back({r, NodeKind::task, n.hash, std::move(d)});
        };
        if (!n.record) {
            // ERC-8301 §onAgentReply step 2: every prevTaskHash is a known task of the run.
            if (wrong_kind_.contains(n.hash)) {
                fail(EvidenceReason::broken_link, "named as a task, but it is a reply");
            } else {
                fail(EvidenceReason::missing_task, "getAgentTask does not know this taskHash");
            }
            return;
        }
        const auto& t = n.record->task;
        // ERC-8301 §Data Envelopes: the stored struct must hash to its key.
        if (const Hash32 h = task_hash(t); h != n.hash) {
            fail(EvidenceReason::hash_mismatch,
                 fmt::format("stored task hashes to {}", core::to_hex(h)));
        }
        // ERC-8301 §run(): inputHash = keccak256(input) when the input is carried on-chain.
        if (!t.input.empty() && core::keccak256(t.input) != t.input_hash) {
            fail(EvidenceReason::content_mismatch, "keccak256(input) != inputHash");
        }
        if (t.workflow_run_id != run_id_) {
            fail(EvidenceReason::wrong_run,
                 fmt::format("workflowRunId {}", core::to_hex(t.workflow_run_id)));
        }
        if (!n.record->anchor) {
            fail(EvidenceReason::broken_link,
                 n.final_task ? "no WorkflowCompleted log anchors the final task"
                              : "no NewAgentTask log anchors this task");
        }
        if (has_duplicate(t.prev_reply_hashes)) {
            fail(EvidenceReason::duplicate_link, "prevReplyHashes lists a reply twice");
        }
        if (n.final_task) {
            // ERC-8301 §Gate Logic (terminal): the final task names the terminal replies and is
            // stored at completion (timestamp = completedAt).
            if (t.prev_reply_hashes.empty()) {
                fail(EvidenceReason::broken_link, "the final task names no terminal reply");
            }
            if (u64(t.timestamp) != report_.result.completed_at) {
                fail(EvidenceReason::timestamp_order,
                     fmt::format("final task timestamp {} != result().completedAt {}",
                                 t.timestamp.to_dec(), report_.result.completed_at));
            }
        }
        // ERC-8301 §AgentTask: taskSeq is a per-run monotonic counter.
        if (auto [it, fresh] = seqs_.emplace(u64(t.task_seq), n.hash); !fresh) {
            fail(EvidenceReason::sequence_order,
                 fmt::format("taskSeq {} also used by task {}", t.task_seq.to_dec(),
                             core::to_hex(it->second)));
        }
        bool proven = true;
        // Whether an unproven prevReply is this task's own problem: not when the reply is
        // missing, failed its own checks, or itself claims proven (then the failure is the
        // reply's), so the first failure names the node at fault.
        bool claim_unbacked = false;
        for (const auto& rh : t.prev_reply_hashes) {
            const ReplyNode* r = reply_at(rh);
            if (r != nullptr && r->record && !r->proven && !r->record->proven &&
                !failing_replies_.contains(rh) && !r->record->reply.prev_task_hashes.empty()) {
                // ... nor when its primary task (the proof's inputHash) is missing.
                const TaskNode* primary = task_at(r->record->reply.prev_task_hashes.front());
                if (primary != nullptr && primary->record) claim_unbacked = true;
            }
            if (r == nullptr) {
                proven = false;
                if (task_at(rh) != nullptr) {
                    fail(EvidenceReason::broken_link,
                         fmt::format("prevReplyHashes names task {}", core::to_hex(rh)));
                }
                continue;
            }
            proven = proven && r->proven;
            if (!r->record) continue;
            for (const auto& th : r->record->reply.prev_task_hashes) {
                const TaskNode* up = task_at(th);
                if (up == nullptr || !up->record) continue;
                if (up->record->task.task_seq >= t.task_seq) {
                    fail(EvidenceReason::sequence_order,
                         fmt::format("taskSeq {} not after upstream task {} (taskSeq {})",
                                     t.task_seq.to_dec(), core::to_hex(th),
                                     up->record->task.task_seq.to_dec()));
                }
            }
        }
        // ERC-8301 §Evidence Chain, Proven state: a task is proven when it has no prevReplyHashes
        // or all of them are proven.
        n.proven = proven;
        if (n.record->proven && claim_unbacked) {
            fail(EvidenceReason::unproven_claim,
                 "getAgentTask claims proven, but not every prevReplyHash is proven");
        }
    }

    void check_reply(ReplyNode& n, const HashMap<std::vector<size_t>>& downstream,
                     std::vector<EvidenceFailure>& out) {
        auto fail = [&](EvidenceReason r, std::string d) {
            out.push_back({r, NodeKind::reply, n.hash, std::move(d)});
        };
        if (!n.record) {
            if (wrong_kind_.contains(n.hash)) {
                fail(EvidenceReason::broken_link, "named as a reply, but it is a task");
            } else {
                fail(EvidenceReason::missing_reply, "getAgentReply does not know this replyHash");
            }
            return;
        }
        const auto& r = n.record->reply;
        if (const Hash32 h = reply_hash(r); h != n.hash) {
            fail(EvidenceReason::hash_mismatch,
                 fmt::format("stored reply hashes to {}", core::to_hex(h)));
        }
        // ERC-8301 §AgentReply: outputHash = keccak256(output) when the output is on-chain.
        if (!r.output.empty() && core::keccak256(r.output) != r.output_hash) {
            fail(EvidenceReason::content_mismatch, "keccak256(output) != outputHash");
        }
        if (r.workflow_run_id != run_id_) {
            fail(EvidenceReason::wrong_run,
                 fmt::format("workflowRunId {}", core::to_hex(r.workflow_run_id)));
        }
        if (!n.record->anchor) {
            fail(EvidenceReason::broken_link, "no AgentReplyAnchored log anchors this reply");
        }
        // ERC-8301 §AgentReply: prevTaskHashes MUST be non-empty.
        if (r.prev_task_hashes.empty()) {
            fail(EvidenceReason::broken_link, "prevTaskHashes is empty");
        }
        if (has_duplicate(r.prev_task_hashes)) {
            fail(EvidenceReason::duplicate_link, "prevTaskHashes lists a task twice");
        }
        // ERC-8301 §onAgentReply step 4: max(anchor_time(h)) < reply.timestamp <= block.timestamp
        // at anchoring. anchor_time(h) is the task's timestamp (block.timestamp at emission); the
        // reply's own anchor time is at most that of every task that names it.
        const uint64_t ts = u64(r.timestamp);
        for (const auto& th : r.prev_task_hashes) {
            const TaskNode* up = task_at(th);
            if (up == nullptr) {
                if (reply_at(th) != nullptr) {
                    fail(EvidenceReason::broken_link,
                         fmt::format("prevTaskHashes names reply {}", core::to_hex(th)));
                }
                continue;
            }
            if (!up->record) continue;
            if (ts <= u64(up->record->task.timestamp)) {
                fail(EvidenceReason::timestamp_order,
                     fmt::format("reply timestamp {} not after the anchor time {} of task {}", ts,
                                 up->record->task.timestamp.to_dec(), core::to_hex(th)));
            }
            if (up->record->anchor && n.record->anchor &&
                up->record->anchor->block_num > n.record->anchor->block_num) {
                fail(EvidenceReason::timestamp_order,
                     fmt::format("anchored in block {} before its task {} (block {})",
                                 n.record->anchor->block_num, core::to_hex(th),
                                 up->record->anchor->block_num));
            }
        }
        if (auto it = downstream.find(n.hash); it != downstream.end()) {
            for (size_t i : it->second) {
                const TaskNode& down = report_.tasks[i];
                if (!down.record || !n.record) continue;  // missing nodes are reported elsewhere
                const uint64_t anchor = u64(down.record->task.timestamp);
                if (ts > anchor) {
                    fail(EvidenceReason::timestamp_order,
                         fmt::format("reply timestamp {} after the anchor time {} of task {} that "
                                     "follows it",
                                     ts, anchor, core::to_hex(down.hash)));
                }
                if (down.record->anchor && n.record->anchor &&
                    down.record->anchor->block_num < n.record->anchor->block_num) {
                    fail(EvidenceReason::timestamp_order,
                         fmt::format("anchored in block {} after task {} (block {}) that follows "
                                     "it",
                                     n.record->anchor->block_num, core::to_hex(down.hash),
                                     down.record->anchor->block_num));
                }
            }
        }
        // ERC-8301 §onAgentProve Option A / ERC-8274: a proof leaves a VerificationCompleted with
        // taskId = workflowRunId, agentId = bytes32(uint160(replier)), the primary task's
        // inputHash and the reply's outputHash.
        const TaskNode* primary =
            r.prev_task_hashes.empty() ? nullptr : task_at(r.prev_task_hashes.front());
        // ERC-8301 §onAgentProve: proven per replyHash. The record's transaction must have proven
        // this reply (a successful onAgentProve proves every hash it lists); a record whose call
        // is unknown counts only when the source claims this reply proven.
        if (primary != nullptr && primary->record) {
            const Hash32 agent_id = word_of(r.replier);
            const bool claims_digest = n.record->verification_digest != Hash32{};
            const ProofRecord* by_claim = nullptr;
            for (const auto& p : proofs_) {
                if (!p.valid || p.task_id != run_id_ || p.agent_id != agent_id ||
                    p.input_hash != primary->record->task.input_hash ||
                    p.output_hash != r.output_hash) {
                    continue;
                }
                if (claims_digest && (p.verification_digest != n.record->verification_digest ||
                                      p.verifier != n.record->verifier)) {
                    continue;
                }
                if (!p.prove_workflow) {
                    if (by_claim == nullptr && n.record->proven) by_claim = &p;
                    continue;
                }
                if (*p.prove_workflow == report_.workflow &&
                    std::find(p.proved_reply_hashes.begin(), p.proved_reply_hashes.end(), n.hash) !=
                        p.proved_reply_hashes.end()) {
                    n.proven = true;
                    n.proof = p;
                    break;
                }
            }
            if (!n.proven && by_claim != nullptr) {
                n.proven = true;
                n.proof = *by_claim;
            }
        }
        if (n.record->proven && !n.proven) {
            fail(EvidenceReason::unproven_claim,
                 "getAgentReply claims proven, but no valid VerificationCompleted (ERC-8274) of "
                 "a proof of this reply exists");
        }
    }

    // Iterative three-colour DFS over task -> prevReplyHashes -> prevTaskHashes edges.
    void check_cycles() {
        enum : uint8_t { white, grey, black };
        HashMap<uint8_t> colour;
        struct Frame {
            Hash32 hash;
            NodeKind kind;
            size_t next;
        };
        auto edges = [&](const Frame& f) -> const std::vector<Hash32>* {
            if (f.kind == NodeKind::task) {
                const TaskNode* t = task_at(f.hash);
                return t != nullptr && t->record ? &t->record->task.prev_reply_hashes : nullptr;
            }
            const ReplyNode* r = reply_at(f.hash);
            return r != nullptr && r->record ? &r->record->reply.prev_task_hashes : nullptr;
        };
        if (report_.tasks.empty()) return;
        std::vector<Frame> stack{{report_.tasks.front().hash, NodeKind::task, 0}};
        colour[stack.back().hash] = grey;
        while (!stack.empty()) {
            Frame& f = stack.back();
            const auto* out = edges(f);
            if (out == nullptr || f.next >= out->size()) {
                colour[f.hash] = black;
                stack.pop_back();
                continue;
            }
            const Hash32 next = (*out)[f.next++];
            const NodeKind next_kind = f.kind == NodeKind::task ? NodeKind::reply : NodeKind::task;
            const bool known =
                next_kind == NodeKind::task ? task_at(next) != nullptr : reply_at(next) != nullptr;
            if (!known) continue;
            auto& c = colour[next];
            if (c == grey) {
                add(EvidenceReason::cycle, next_kind, next,
                    fmt::format("{} {} is its own ancestor",
                                next_kind == NodeKind::task ? "task" : "reply",
                                core::to_hex(next)));
                continue;
            }
            if (c == black) continue;
            c = grey;
            stack.push_back({next, next_kind, 0});
        }
    }

    static constexpr size_t kPending = static_cast<size_t>(-1);
    EvidenceSource& source_;
    Hash32 run_id_;
    EvidenceOptions options_;
    EvidenceReport report_;
    HashMap<size_t> task_index_;
    HashMap<size_t> reply_index_;
    std::vector<std::pair<NodeKind, size_t>> visit_order_;
    std::map<uint64_t, Hash32> seqs_;
    HashSet wrong_kind_;
    HashSet failing_replies_;
    std::vector<ProofRecord> proofs_;
    bool too_large_reported_ = false;
};

}  // namespace

std::string_view to_string(EvidenceReason reason) noexcept {
    switch (reason) {
        case EvidenceReason::run_not_completed:
            return "run_not_completed";
        case EvidenceReason::missing_task:
            return "missing_task";
        case EvidenceReason::missing_reply:
            return "missing_reply";
        case EvidenceReason::hash_mismatch:
            return "hash_mismatch";
        case EvidenceReason::content_mismatch:
            return "content_mismatch";
        case EvidenceReason::broken_link:
            return "broken_link";
        case EvidenceReason::wrong_run:
            return "wrong_run";
        case EvidenceReason::timestamp_order:
            return "timestamp_order";
        case EvidenceReason::sequence_order:
            return "sequence_order";
        case EvidenceReason::duplicate_link:
            return "duplicate_link";
        case EvidenceReason::unproven_claim:
            return "unproven_claim";
        case EvidenceReason::cycle:
            return "cycle";
        case EvidenceReason::too_large:
            return "too_large";
    }
    return "unknown";
}

std::string_view to_string(SourceErrorKind kind) noexcept {
    switch (kind) {
        case SourceErrorKind::rpc:
            return "rpc";
        case SourceErrorKind::database:
            return "database";
        case SourceErrorKind::decode:
            return "decode";
        case SourceErrorKind::not_found:
            return "not_found";
        case SourceErrorKind::ambiguous:
            return "ambiguous";
    }
    return "unknown";
}

std::string EvidenceError::to_string() const {
    return fmt::format("{}: {}", verify::to_string(source.kind), source.message);
}

Hash32 task_hash(const iw::AgentTask& task) {
    return hash_words(std::array<Hash32, 7>{
        word_of(task.stage), task.task_seq.to_word(), task.input_hash, task.timestamp.to_word(),
        task.expires_at.to_word(), packed_hash(task.prev_reply_hashes), task.workflow_run_id});
}

Hash32 reply_hash(const iw::AgentReply& reply) {
    return hash_words(std::array<Hash32, 6>{
        reply.operation_id, reply.output_hash, reply.timestamp.to_word(), word_of(reply.replier),
        packed_hash(reply.prev_task_hashes), reply.workflow_run_id});
}

std::expected<EvidenceReport, EvidenceError> verify_run(EvidenceSource& source,
                                                        const Hash32& run_id,
                                                        const EvidenceOptions& options) {
    Verifier v(source, run_id, options);
    return v.run();
}

}  // namespace credence::verify
