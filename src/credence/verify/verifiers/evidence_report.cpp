// EvidenceReport as JSON and as a text tree (evidence.hpp). Only what both sources agree on is
// printed (hashes, stored fields, anchors, the verifier's own proven conclusions and the proof
// records), so a run verified live and from the index prints the same trace; the source's claims
// appear only through `unproven_claim` failures.
#include <credence/verify/verifiers/evidence.hpp>

#include <string>
#include <unordered_set>

#include <fmt/core.h>

namespace credence::verify {
namespace {

using Json = nlohmann::ordered_json;
using core::Hash32;

Json failure_json(const EvidenceFailure& f) {
    return Json{{"reason", std::string(to_string(f.reason))},
                {"kind", f.kind == NodeKind::task ? "task" : "reply"},
                {"hash", core::to_hex(f.hash)},
                {"detail", f.detail}};
}

Json hashes_json(const std::vector<Hash32>& hs) {
    Json out = Json::array();
    for (const auto& h : hs) out.push_back(core::to_hex(h));
    return out;
}

void anchor_json(Json& j, const std::optional<Anchor>& a) {
    if (!a) {
        j["blockNum"] = nullptr;
        return;
    }
    j["blockNum"] = a->block_num;
    j["txnHash"] = core::to_hex(a->txn_hash);
}

Json task_json(const TaskNode& n) {
    Json j{{"type", n.final_task ? "finalTask" : "task"},
           {"taskHash", core::to_hex(n.hash)},
           {"depth", n.depth}};
    if (!n.record) {
        j["missing"] = true;
        return j;
    }
    const auto& t = n.record->task;
    j["stage"] = t.stage;
    j["taskSeq"] = t.task_seq.to_dec();
    j["inputHash"] = core::to_hex(t.input_hash);
    j["timestamp"] = t.timestamp.to_dec();
    j["expiresAt"] = t.expires_at.to_dec();
    j["prevReplyHashes"] = hashes_json(t.prev_reply_hashes);
    j["proven"] = n.proven;
    anchor_json(j, n.record->anchor);
    return j;
}

Json reply_json(const ReplyNode& n) {
    Json j{{"type", "reply"}, {"replyHash", core::to_hex(n.hash)}, {"depth", n.depth}};
    if (!n.record) {
        j["missing"] = true;
        return j;
    }
    const auto& r = n.record->reply;
    j["replier"] = r.replier.to_checksum_hex();
    j["operationId"] = core::to_hex(r.operation_id);
    j["outputHash"] = core::to_hex(r.output_hash);
    j["timestamp"] = r.timestamp.to_dec();
    j["prevTaskHashes"] = hashes_json(r.prev_task_hashes);
    j["proven"] = n.proven;
    if (n.proof) {
        j["proof"] = Json{{"verifier", n.proof->verifier.to_checksum_hex()},
                          {"verificationDigest", core::to_hex(n.proof->verification_digest)},
                          {"timestamp", n.proof->timestamp},
                          {"blockNum", n.proof->block_num}};
    } else {
        j["proof"] = nullptr;
    }
    anchor_json(j, n.record->anchor);
    return j;
}

// The text tree from the final task backwards: task -> the replies it names -> the tasks they
// name. Iterative (a 10,000-step chain is 20,000 levels deep); indentation stops growing past
// kMaxIndent levels so long chains stay readable.
constexpr size_t kMaxIndent = 32;

std::string task_line(const TaskNode& n) {
    if (!n.record) return fmt::format("task {} MISSING", core::to_hex(n.hash));
    const auto& t = n.record->task;
    return fmt::format("{} {} stage {} seq {} input {} at {} {}",
                       n.final_task ? "final task" : "task", core::to_hex(n.hash), t.stage,
                       t.task_seq.to_dec(), core::to_hex(t.input_hash), t.timestamp.to_dec(),
                       n.proven ? "proven" : "unproven");
}

std::string reply_line(const ReplyNode& n) {
    if (!n.record) return fmt::format("reply {} MISSING", core::to_hex(n.hash));
    const auto& r = n.record->reply;
    return fmt::format("reply {} by {} op {} output {} at {} {}", core::to_hex(n.hash),
                       r.replier.to_checksum_hex(), core::to_hex(r.operation_id),
                       core::to_hex(r.output_hash), r.timestamp.to_dec(),
                       n.proven ? "proven" : "unproven");
}

}  // namespace

std::string run_status_name(uint64_t status) {
    switch (status) {
        case 0:
            return "Pending";
        case 1:
            return "Success";
        case 2:
            return "Failed";
        default:
            return fmt::format("RunStatus({})", status);
    }
}

nlohmann::ordered_json to_json(const EvidenceReport& report) {
    Json doc{{"runId", core::to_hex(report.run_id)},
             {"workflow", report.workflow.to_checksum_hex()},
             {"source", report.source},
             {"status", run_status_name(report.result.status)},
             {"finalTaskHash", core::to_hex(report.result.final_task_hash)},
             {"completedAt", report.result.completed_at},
             {"verdict", report.valid ? "valid" : "invalid"},
             {"fullyProven", report.fully_proven},
             {"taskCount", report.tasks.size()},
             {"replyCount", report.replies.size()},
             {"depth", report.depth}};
    doc["firstFailure"] =
        report.failures.empty() ? Json(nullptr) : failure_json(report.failures.front());
    Json failures = Json::array();
    for (const auto& f : report.failures) failures.push_back(failure_json(f));
    doc["failures"] = std::move(failures);
    Json tasks = Json::array();
    for (const auto& t : report.tasks) tasks.push_back(task_json(t));
    doc["tasks"] = std::move(tasks);
    Json replies = Json::array();
    for (const auto& r : report.replies) replies.push_back(reply_json(r));
    doc["replies"] = std::move(replies);
    return doc;
}

std::string to_text(const EvidenceReport& report) {
    std::string out = fmt::format(
        "run {} on {} ({}): {}, evidence {}{}\n", core::to_hex(report.run_id),
        report.workflow.to_checksum_hex(), report.source, run_status_name(report.result.status),
        report.valid ? "VALID" : "INVALID",
        report.valid ? (report.fully_proven ? ", fully proven" : ", not fully proven") : "");
    std::unordered_map<std::string, const TaskNode*> tasks;
    std::unordered_map<std::string, const ReplyNode*> replies;
    for (const auto& t : report.tasks) tasks.emplace(core::to_hex(t.hash), &t);
    for (const auto& r : report.replies) replies.emplace(core::to_hex(r.hash), &r);
    std::unordered_set<std::string> printed;

    struct Item {
        std::string hash;
        bool task;
        std::string prefix;
        bool last;
        size_t level;
    };
    std::vector<Item> stack;
    if (!report.tasks.empty())
        stack.push_back({core::to_hex(report.tasks.front().hash), true, "", true, 0});
    while (!stack.empty()) {
        Item it = std::move(stack.back());
        stack.pop_back();
        const std::string branch = it.last ? "└── " : "├── ";
        std::vector<Hash32> children;
        std::string line;
        if (it.task) {
            auto f = tasks.find(it.hash);
            if (f == tasks.end()) continue;  // beyond max_nodes
            if (!printed.insert(it.hash).second) {
                out += fmt::format("{}{}task {} (see above)\n", it.prefix, branch, it.hash);
                continue;
            }
            line = task_line(*f->second);
            if (const auto& rec = f->second->record; rec) children = rec->task.prev_reply_hashes;
        } else {
            auto f = replies.find(it.hash);
            if (f == replies.end()) continue;
            if (!printed.insert(it.hash).second) {
                out += fmt::format("{}{}reply {} (see above)\n", it.prefix, branch, it.hash);
                continue;
            }
            line = reply_line(*f->second);
            if (const auto& rec = f->second->record; rec) children = rec->reply.prev_task_hashes;
        }
        out += fmt::format("{}{}{}\n", it.prefix, branch, line);
        const std::string child_prefix =
            it.level >= kMaxIndent ? it.prefix : it.prefix + (it.last ? "    " : "│   ");
        for (size_t i = children.size(); i-- > 0;) {
            stack.push_back({core::to_hex(children[i]), !it.task, child_prefix,
                             i + 1 == children.size(), it.level + 1});
        }
    }
    if (report.result.status == 1) {
        out += fmt::format("completed at {}, final task {}\n", report.result.completed_at,
                           core::to_hex(report.result.final_task_hash));
    }
    for (const auto& f : report.failures) {
        out += fmt::format("FAIL {} {} {}: {}\n", to_string(f.reason),
                           f.kind == NodeKind::task ? "task" : "reply", core::to_hex(f.hash),
                           f.detail);
    }
    return out;
}

}  // namespace credence::verify
