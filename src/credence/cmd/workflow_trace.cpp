// `credence workflow trace <runId>`: the run's evidence chain (ERC-8301 §Evidence Chain) rebuilt
// from the workflow's events (eth_getLogs: NewAgentTask, AgentReplyAnchored, WorkflowCompleted,
// all indexed by workflowRunId) and the stored structs (getAgentTask / getAgentReply), printed as
// a tree: task -> replies that name it in prevTaskHashes -> tasks that name those replies in
// prevReplyHashes -> ... -> the final task of WorkflowCompleted (which has no NewAgentTask).
// The chain is a DAG (a Qualify task follows three audit replies); each node is printed in full
// under its first parent and as a reference ("see above") under the others.
// The structs are read through verify/verifiers/evidence_source.hpp's live source (batched
// eth_calls), the same reader `credence verify run` uses; this command shows every anchored node
// (including replies a gate discarded), while `verify run` walks back from result() and checks the
// chain.
#include <credence/cmd/workflow.hpp>

#include <map>
#include <optional>
#include <set>
#include <string>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <credence/chain/bindings/i_agent_workflow.hpp>
#include <credence/cmd/util.hpp>
#include <credence/verify/verifiers/evidence_source.hpp>

namespace credence::cmd::workflow_detail {
namespace {

namespace iw = chain::bindings::i_agent_workflow;
using Json = nlohmann::ordered_json;

struct TraceArgs {
    CommonArgs common;
    std::string run_id;
    uint64_t from_block = 0;
};

struct TaskNode {
    iw::GetAgentTaskResult stored;
    std::optional<chain::Log> log;  // nullopt for the final task (no NewAgentTask)
    bool final_task = false;
};

struct ReplyNode {
    iw::GetAgentReplyResult stored;
    chain::Log log;
};

class TraceBuilder {
public:
    std::map<core::Hash32, TaskNode> tasks;
    std::map<core::Hash32, ReplyNode> replies;
    std::vector<core::Hash32> task_order;   // event order
    std::vector<core::Hash32> reply_order;  // event order

    /// Children, in event order.
    [[nodiscard]] std::vector<core::Hash32> replies_of(const core::Hash32& task) const {
        std::vector<core::Hash32> out;
        for (const auto& rh : reply_order) {
            const auto& prev = replies.at(rh).stored.reply.prev_task_hashes;
            if (std::find(prev.begin(), prev.end(), task) != prev.end()) out.push_back(rh);
        }
        return out;
    }
    [[nodiscard]] std::vector<core::Hash32> tasks_of(const core::Hash32& reply) const {
        std::vector<core::Hash32> out;
        for (const auto& th : task_order) {
            const auto& prev = tasks.at(th).stored.task.prev_reply_hashes;
            if (std::find(prev.begin(), prev.end(), reply) != prev.end()) out.push_back(th);
        }
        return out;
    }

    Json task_json(const core::Hash32& th) {
        if (!printed_.insert(th).second) return Json{{"type", "task"}, {"ref", core::to_hex(th)}};
        const auto& n = tasks.at(th);
        const auto& t = n.stored.task;
        Json j{{"type", n.final_task ? "finalTask" : "task"},
               {"taskHash", core::to_hex(th)},
               {"stage", t.stage},
               {"taskSeq", t.task_seq.to_dec()},
               {"inputHash", core::to_hex(t.input_hash)},
               {"timestamp", t.timestamp.to_dec()},
               {"expiresAt", t.expires_at.to_dec()},
               {"prevReplyHashes", Json::array()},
               {"proven", n.stored.proven}};
        for (const auto& r : t.prev_reply_hashes) j["prevReplyHashes"].push_back(core::to_hex(r));
        if (n.log) {
            j["blockNum"] = n.log->block_num;
            j["txnHash"] = core::to_hex(n.log->txn_hash);
        }
        Json children = Json::array();
        for (const auto& rh : replies_of(th)) children.push_back(reply_json(rh));
        j["replies"] = std::move(children);
        return j;
    }

    Json reply_json(const core::Hash32& rh) {
        if (!printed_.insert(rh).second) return Json{{"type", "reply"}, {"ref", core::to_hex(rh)}};
        const auto& n = replies.at(rh);
        const auto& r = n.stored.reply;
        Json j{{"type", "reply"},
               {"replyHash", core::to_hex(rh)},
               {"replier", r.replier.to_checksum_hex()},
               {"operationId", core::to_hex(r.operation_id)},
               {"outputHash", core::to_hex(r.output_hash)},
               {"timestamp", r.timestamp.to_dec()},
               {"prevTaskHashes", Json::array()},
               {"proven", n.stored.proven},
               {"verifier", n.stored.verifier.to_checksum_hex()},
               {"verificationDigest", core::to_hex(n.stored.verification_digest)},
               {"blockNum", n.log.block_num},
               {"txnHash", core::to_hex(n.log.txn_hash)}};
        for (const auto& t : r.prev_task_hashes) j["prevTaskHashes"].push_back(core::to_hex(t));
        Json children = Json::array();
        for (const auto& th : tasks_of(rh)) children.push_back(task_json(th));
        j["tasks"] = std::move(children);
        return j;
    }

    /// Roots: tasks without prevReplyHashes (ERC-8301: the initial task(s) of run()), then any
    /// node not reached from them (never for a conformant workflow, but shown rather than lost).
    Json roots() {
        Json out = Json::array();
        for (const auto& th : task_order) {
            if (tasks.at(th).stored.task.prev_reply_hashes.empty()) out.push_back(task_json(th));
        }
        for (const auto& th : task_order) {
            if (!printed_.contains(th)) out.push_back(task_json(th));
        }
        for (const auto& rh : reply_order) {
            if (!printed_.contains(rh)) out.push_back(reply_json(rh));
        }
        return out;
    }

private:
    std::set<core::Hash32> printed_;
};

void print_tree(const Json& node, const std::string& prefix, bool last) {
    const std::string branch = last ? "└── " : "├── ";
    const std::string type = node["type"];
    if (node.contains("ref")) {
        fmt::print("{}{}{} {} (see above)\n", prefix, branch, type, node["ref"].get<std::string>());
        return;
    }
    const char* proven = node["proven"].get<bool>() ? "proven" : "unproven";
    if (type == "reply") {
        fmt::print("{}{}reply {} by {} op {} output {} {}\n", prefix, branch,
                   node["replyHash"].get<std::string>(), node["replier"].get<std::string>(),
                   node["operationId"].get<std::string>(), node["outputHash"].get<std::string>(),
                   proven);
    } else {
        fmt::print("{}{}{} {} stage {} seq {} input {} {}\n", prefix, branch,
                   type == "finalTask" ? "final task" : "task", node["taskHash"].get<std::string>(),
                   node["stage"].get<uint64_t>(), node["taskSeq"].get<std::string>(),
                   node["inputHash"].get<std::string>(), proven);
    }
    const Json& children = type == "reply" ? node["tasks"] : node["replies"];
    const std::string child_prefix = prefix + (last ? "    " : "│   ");
    for (size_t i = 0; i < children.size(); ++i) {
        print_tree(children[i], child_prefix, i + 1 == children.size());
    }
}

void run_trace(TraceArgs& a) {
    const core::Hash32 run_id = parse_hash_arg("run id", a.run_id);
    ChainContext ctx(a.common.chain);
    const core::Address wf = resolve_workflow(ctx, a.common.workflow);

    chain::LogFilter filter;
    filter.from_block = chain::BlockId(a.from_block);
    filter.to_block = chain::BlockId::latest();
    filter.addresses = {wf};
    filter.topics = {std::vector<core::Hash32>{iw::kNewAgentTaskTopic, iw::kAgentReplyAnchoredTopic,
                                               iw::kWorkflowCompletedTopic},
                     std::vector<core::Hash32>{run_id}};
    const auto logs = must_rpc(ctx.rpc().get_logs(filter), "eth_getLogs");

    TraceBuilder b;
    struct Completion {
        iw::WorkflowCompletedEvent event;
        chain::Log log;
    };
    std::optional<Completion> completed;
    std::map<core::Hash32, chain::Log> task_logs;
    std::map<core::Hash32, chain::Log> reply_logs;
    for (const auto& log : logs) {
        if (log.removed) continue;
        if (auto t = iw::decode_new_agent_task_event(log.topics, log.data)) {
            if (task_logs.emplace(t->task_hash, log).second) b.task_order.push_back(t->task_hash);
        } else if (auto r = iw::decode_agent_reply_anchored_event(log.topics, log.data)) {
            if (reply_logs.emplace(r->reply_hash, log).second) {
                b.reply_order.push_back(r->reply_hash);
            }
        } else if (auto c = iw::decode_workflow_completed_event(log.topics, log.data)) {
            completed = Completion{*c, log};
        }
    }
    if (b.task_order.empty()) {
        throw CliError(fmt::format("no NewAgentTask for run {} on {} since block {}",
                                   core::to_hex(run_id), wf.to_checksum_hex(), a.from_block));
    }
    // ERC-8301 §Terminal stage: the final task is stored but announced only by WorkflowCompleted.
    std::optional<core::Hash32> final_hash;
    if (completed && completed->event.final_task_hash != core::Hash32{} &&
        !task_logs.contains(completed->event.final_task_hash)) {
        final_hash = completed->event.final_task_hash;
        b.task_order.push_back(*final_hash);
    }
    // The stored structs, read through the evidence source (verify/verifiers/evidence_source.hpp):
    // one batched request of getAgentTask calls and one of getAgentReply calls.
    auto source = verify::make_rpc_evidence_source(ctx.rpc(), wf, a.from_block);
    auto tasks = source->tasks(b.task_order);
    if (!tasks) throw CliError(fmt::format("getAgentTask: {}", tasks.error().message));
    auto replies = source->replies(b.reply_order);
    if (!replies) throw CliError(fmt::format("getAgentReply: {}", replies.error().message));
    for (size_t i = 0; i < b.task_order.size(); ++i) {
        const auto& th = b.task_order[i];
        auto& rec = (*tasks)[i];
        if (!rec) throw CliError(fmt::format("getAgentTask({}) reverted", core::to_hex(th)));
        const bool is_final = final_hash && th == *final_hash;
        std::optional<chain::Log> log;
        if (!is_final) log = task_logs.at(th);
        b.tasks.emplace(th, TaskNode{{std::move(rec->task), rec->proven}, log, is_final});
    }
    for (size_t i = 0; i < b.reply_order.size(); ++i) {
        const auto& rh = b.reply_order[i];
        auto& rec = (*replies)[i];
        if (!rec) throw CliError(fmt::format("getAgentReply({}) reverted", core::to_hex(rh)));
        b.replies.emplace(rh, ReplyNode{{std::move(rec->reply), rec->verifier, rec->proven,
                                         rec->verification_digest},
                                        reply_logs.at(rh)});
    }
    const auto result = ctx.call(iw::call::result, wf, run_id);

    Json doc{{"runId", core::to_hex(run_id)},
             {"workflow", wf.to_checksum_hex()},
             {"status", run_status_name(result.status)},
             {"finalTaskHash", core::to_hex(result.final_task_hash)},
             {"completedAt", result.completed_at.to_dec()},
             {"taskCount", b.tasks.size()},
             {"replyCount", b.replies.size()}};
    if (completed) {
        const auto& [event, log] = *completed;
        doc["completed"] = Json{{"status", run_status_name(event.status)},
                                {"finalTaskHash", core::to_hex(event.final_task_hash)},
                                {"timestamp", event.timestamp.to_dec()},
                                {"blockNum", log.block_num},
                                {"txnHash", core::to_hex(log.txn_hash)}};
    }
    doc["tree"] = b.roots();

    if (a.common.chain.json) {
        fmt::print("{}\n", doc.dump(2));
        return;
    }
    fmt::print("run {} on {} ({}): {}\n", core::to_hex(run_id), a.common.workflow,
               wf.to_checksum_hex(), doc["status"].get<std::string>());
    const Json& tree = doc["tree"];
    for (size_t i = 0; i < tree.size(); ++i) print_tree(tree[i], "", i + 1 == tree.size());
    if (completed) {
        const auto& [event, log] = *completed;
        fmt::print("completed {} at {} (block {}), final task {}\n", run_status_name(event.status),
                   event.timestamp.to_dec(), log.block_num, core::to_hex(event.final_task_hash));
    }
}

}  // namespace

void add_trace_command(CLI::App& group) {
    static TraceArgs args;
    auto* cmd = add_command(group, "trace", "The run's task/reply chain as a tree (eth_getLogs)",
                            args.common, false);
    cmd->add_option("run-id", args.run_id, "workflowRunId")->required();
    cmd->add_option("--from-block", args.from_block, "First block to search (default 0)");
    cmd->callback([] { run_trace(args); });
}

}  // namespace credence::cmd::workflow_detail
