// The synthetic chain of the indexer benchmark, checked through a real HTTP server on 127.0.0.1
// and the project's own RPC client: every served log decodes with the generated bindings (zero
// failures), the history is causally consistent, getAgentTask / getAgentReply agree with the
// events, and eth_getLogs refuses more than 10,000 results the way providers do.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <map>
#include <set>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/reputation_registry.hpp>
#include <credence/chain/bindings/single_stage_workflow.hpp>
#include <credence/chain/bindings/tool_registry.hpp>
#include <credence/chain/bindings/validation_registry.hpp>
#include <credence/chain/rpc_client.hpp>
#include <credence/core/abi.hpp>
#include <credence/core/keccak.hpp>

#include "synthetic_chain.hpp"
#include "synthetic_rpc.hpp"

namespace {

using namespace credence;
using bench::EventKind;
using bench::Registry;
using bench::SyntheticChain;
namespace identity = chain::bindings::identity_registry;
namespace reputation = chain::bindings::reputation_registry;
namespace validation = chain::bindings::validation_registry;
namespace tools = chain::bindings::tool_registry;
namespace workflow = chain::bindings::single_stage_workflow;

constexpr uint64_t kEvents = 60'000;

const SyntheticChain& test_chain() {
    static const SyntheticChain kChain = SyntheticChain::generate({.events = kEvents, .seed = 7});
    return kChain;
}

/// The SyntheticRpc behind a real cpp-httplib server on a free loopback port, stopped on exit.
class Server {
public:
    explicit Server(const SyntheticChain& chain) : rpc_(chain) {
        // Without it, Nagle's algorithm and delayed ACKs add 40 ms to each small answer.
        server_.set_tcp_nodelay(true);
        server_.Post("/", [this](const httplib::Request& req, httplib::Response& res) {
            res.body = rpc_.handle(req.body);
            res.set_header("Content-Type", "application/json; charset=utf-8");
        });
        port_ = server_.bind_to_any_port("127.0.0.1");
        thread_ = std::thread([this] { server_.listen_after_bind(); });
        // Bound means listening already; wait for the accept loop so stop() cannot miss it.
        while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ~Server() {
        server_.stop();
        thread_.join();
    }
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

private:
    bench::SyntheticRpc rpc_;
    httplib::Server server_;
    int port_ = 0;
    std::thread thread_;
};

uint64_t u64(const core::Uint256& v) {
    EXPECT_TRUE(v.fits_u64());
    return v.limbs[0];
}

chain::LogFilter filter(uint64_t from, uint64_t to) {
    chain::LogFilter f;
    f.from_block = from;
    f.to_block = to;
    for (size_t i = 0; i < bench::kRegistryCount; ++i)
        f.addresses.push_back(bench::registry_address(static_cast<Registry>(i)));
    return f;
}

chain::CallRequest call_to(const core::Address& to, core::Bytes data) {
    chain::CallRequest req;
    req.to = to;
    req.data = std::move(data);
    return req;
}

/// AgentWorkflow.taskHashOf, recomputed from a getAgentTask answer.
core::Hash32 expected_task_hash(const workflow::AgentTask& t) {
    core::Keccak256 packed;
    for (const auto& h : t.prev_reply_hashes) packed.update(h);
    auto types = core::parse_type_list("(uint8,uint256,bytes32,uint256,uint256,bytes32,bytes32)");
    EXPECT_TRUE(types.has_value());
    const std::vector<core::AbiValue> values{core::Uint256(t.stage),
                                             t.task_seq,
                                             core::FixedBytes(t.input_hash),
                                             t.timestamp,
                                             t.expires_at,
                                             core::FixedBytes(packed.finalize()),
                                             core::FixedBytes(t.workflow_run_id)};
    auto enc = core::encode(*types, values);
    EXPECT_TRUE(enc.has_value());
    return core::keccak256(*enc);
}

TEST(synthetic_chain, generation_is_deterministic_exact_and_well_formed) {
    const SyntheticChain& a = test_chain();
    const SyntheticChain b = SyntheticChain::generate({.events = kEvents, .seed = 7});
    const SyntheticChain c = SyntheticChain::generate({.events = kEvents, .seed = 8});
    ASSERT_EQ(a.logs().size(), kEvents);
    ASSERT_EQ(b.logs().size(), kEvents);
    EXPECT_EQ(a.head(), b.head());
    EXPECT_EQ(a.block(a.head()).hash, b.block(b.head()).hash);
    EXPECT_TRUE(std::equal(
        a.logs().begin(), a.logs().end(), b.logs().begin(), [&](const auto& x, const auto& y) {
            return x.txn_hash == y.txn_hash && std::ranges::equal(a.data(x), b.data(y));
        }));
    EXPECT_NE(a.block(1).hash, c.block(1).hash);

    // Blocks chain by parent hash, logs are contiguous per block with log indexes 0.., the
    // genesis and the trailing blocks are empty, and about a tenth of the blocks are empty.
    EXPECT_TRUE(a.logs_in(0, 0).empty());
    EXPECT_TRUE(a.logs_in(a.head() - bench::kTrailingEmptyBlocks + 1, a.head()).empty());
    EXPECT_FALSE(a.logs_in(a.head() - bench::kTrailingEmptyBlocks, a.head()).empty());
    uint64_t empty = 0;
    size_t seen = 0;
    for (uint64_t n = 1; n <= a.head(); ++n) {
        EXPECT_EQ(a.parent_hash(n), a.block(n - 1).hash);
        EXPECT_EQ(a.block(n).timestamp, a.block(n - 1).timestamp + 12);
        const auto logs = a.logs_in(n, n);
        if (logs.empty()) ++empty;
        EXPECT_LE(logs.size(), 40U + 3U);  // a transaction never splits across blocks
        for (size_t i = 0; i < logs.size(); ++i) {
            EXPECT_EQ(logs[i].block_num, n);
            EXPECT_EQ(logs[i].log_index, i);
            if (i > 0) {
                EXPECT_GE(logs[i].txn_index, logs[i - 1].txn_index);
            }
        }
        seen += logs.size();
    }
    EXPECT_EQ(seen, kEvents);
    const uint64_t with_logs_range = a.head() - bench::kTrailingEmptyBlocks;
    EXPECT_GT(empty, with_logs_range / 20 + bench::kTrailingEmptyBlocks);
    EXPECT_LT(empty, with_logs_range / 5 + bench::kTrailingEmptyBlocks);

    // The mix: NewFeedback about half, every kind present.
    const auto& counts = a.counts();
    const double feedback =
        static_cast<double>(counts[static_cast<size_t>(EventKind::new_feedback)]) / kEvents;
    EXPECT_GT(feedback, 0.40);
    EXPECT_LT(feedback, 0.60);
    for (size_t k = 0; k < bench::kEventKindCount; ++k)
        EXPECT_GT(counts[k], 0U) << to_string(static_cast<EventKind>(k));
}

TEST(synthetic_chain, every_served_log_decodes_with_the_bindings_and_is_causal) {
    const SyntheticChain& chain = test_chain();
    Server server(chain);
    auto client = chain::RpcClient::make_http(server.url());

    auto chain_id = client.chain_id();
    ASSERT_TRUE(chain_id.has_value()) << chain_id.error().to_string();
    EXPECT_EQ(*chain_id, chain.params().chain_id);
    auto head = client.block_number();
    ASSERT_TRUE(head.has_value());
    EXPECT_EQ(*head, chain.head());

    std::array<uint64_t, bench::kEventKindCount> decoded{};
    uint64_t failures = 0;
    // The contracts' state, replayed from the decoded events.
    std::map<uint64_t, core::Address> owner;                      // agent id -> owner
    std::map<std::pair<uint64_t, core::Address>, uint64_t> last;  // (agent, client) -> index
    std::set<std::tuple<uint64_t, core::Address, uint64_t>> revoked;
    std::map<core::Hash32, core::Address> requests;  // request hash -> validator
    std::map<uint64_t, bool> tool_live;
    std::map<core::Hash32, core::Hash32> open_task;  // run id -> task hash
    std::set<core::Hash32> completed_runs;
    std::vector<core::Hash32> task_hashes;
    std::vector<core::Hash32> reply_hashes;
    uint64_t causal_errors = 0;
    const auto check = [&](bool ok, const char* what) {
        if (!ok && causal_errors++ < 5) ADD_FAILURE() << what;
    };

    uint64_t logs_seen = 0;
    for (uint64_t from = 0; from <= chain.head(); from += 200) {
        auto logs = client.get_logs(filter(from, std::min(from + 199, chain.head())));
        ASSERT_TRUE(logs.has_value()) << logs.error().to_string();
        for (const auto& log : *logs) {
            ++logs_seen;
            const auto& t0 = log.topics.at(0);
            const auto fail = [&](const auto& r) {
                if (!r.has_value() && failures++ < 5) ADD_FAILURE() << r.error().detail;
                return !r.has_value();
            };
            const auto count = [&](EventKind k) { ++decoded[static_cast<size_t>(k)]; };
            if (log.address == bench::registry_address(Registry::identity)) {
                if (t0 == identity::kTransferTopic) {
                    auto e = identity::decode_transfer_event(log.topics, log.data);
                    if (fail(e)) continue;
                    count(EventKind::transfer);
                    const uint64_t id = u64(e->token_id);
                    if (e->from.is_zero()) {
                        check(!owner.contains(id), "minted twice");
                    } else {
                        check(owner.contains(id) && owner[id] == e->from, "transfer by non-owner");
                    }
                    owner[id] = e->to;
                } else if (t0 == identity::kRegisteredTopic) {
                    auto e = identity::decode_registered_event(log.topics, log.data);
                    if (fail(e)) continue;
                    count(EventKind::registered);
                    check(owner.contains(u64(e->agent_id)) && owner[u64(e->agent_id)] == e->owner,
                          "Registered without its mint");
                } else if (t0 == identity::kMetadataSetTopic) {
                    auto e = identity::decode_metadata_set_event(log.topics, log.data);
                    if (fail(e)) continue;
                    count(EventKind::metadata_set);
                    check(owner.contains(u64(e->agent_id)), "metadata of an unknown agent");
                    check(e->indexed_metadata_key == core::keccak256(e->metadata_key),
                          "indexed key is not keccak256(key)");
                } else if (t0 == identity::kUriUpdatedTopic) {
                    auto e = identity::decode_uri_updated_event(log.topics, log.data);
                    if (fail(e)) continue;
                    count(EventKind::uri_updated);
                    check(owner[u64(e->agent_id)] == e->updated_by, "URI set by non-owner");
                } else if (t0 == identity::kApprovalTopic) {
                    auto e = identity::decode_approval_event(log.topics, log.data);
                    if (fail(e)) continue;
                    count(EventKind::approval);
                    check(owner[u64(e->token_id)] == e->owner, "approval by non-owner");
                } else if (t0 == identity::kApprovalForAllTopic) {
                    if (fail(identity::decode_approval_for_all_event(log.topics, log.data)))
                        continue;
                    count(EventKind::approval_for_all);
                } else {
                    ++failures;
                }
            } else if (log.address == bench::registry_address(Registry::reputation)) {
                if (t0 == reputation::kNewFeedbackTopic) {
                    auto e = reputation::decode_new_feedback_event(log.topics, log.data);
                    if (fail(e)) continue;
                    count(EventKind::new_feedback);
                    const uint64_t id = u64(e->agent_id);
                    check(owner.contains(id), "feedback for an unregistered agent");
                    check(owner[id] != e->client_address, "self-feedback");
                    auto& l = last[{id, e->client_address}];
                    check(e->feedback_index == l + 1, "feedback index not lastIndex + 1");
                    l = e->feedback_index;
                    check(e->indexed_tag1 == core::keccak256(e->tag1), "indexedTag1");
                    check(e->value_decimals <= 18, "decimals");
                } else if (t0 == reputation::kFeedbackRevokedTopic) {
                    auto e = reputation::decode_feedback_revoked_event(log.topics, log.data);
                    if (fail(e)) continue;
                    count(EventKind::feedback_revoked);
                    const uint64_t id = u64(e->agent_id);
                    check(e->feedback_index >= 1 &&
                              e->feedback_index <= last[{id, e->client_address}],
                          "revocation of missing feedback");
                    check(revoked.insert({id, e->client_address, e->feedback_index}).second,
                          "revoked twice");
                } else if (t0 == reputation::kResponseAppendedTopic) {
                    auto e = reputation::decode_response_appended_event(log.topics, log.data);
                    if (fail(e)) continue;
                    count(EventKind::response_appended);
                    check(e->feedback_index >= 1 &&
                              e->feedback_index <= last[{u64(e->agent_id), e->client_address}],
                          "response to missing feedback");
                    check(!e->response_uri.empty(), "empty response URI");
                } else {
                    ++failures;
                }
            } else if (log.address == bench::registry_address(Registry::validation)) {
                if (t0 == validation::kValidationRequestTopic) {
                    auto e = validation::decode_validation_request_event(log.topics, log.data);
                    if (fail(e)) continue;
                    count(EventKind::validation_request);
                    check(owner.contains(u64(e->agent_id)), "validation of an unknown agent");
                    check(requests.emplace(e->request_hash, e->validator_address).second,
                          "request hash reused");
                } else if (t0 == validation::kValidationResponseTopic) {
                    auto e = validation::decode_validation_response_event(log.topics, log.data);
                    if (fail(e)) continue;
                    count(EventKind::validation_response);
                    const auto it = requests.find(e->request_hash);
                    check(it != requests.end() && it->second == e->validator_address,
                          "response from a validator not requested");
                    check(e->response <= 100, "response > 100");
                } else {
                    ++failures;
                }
            } else if (log.address == bench::registry_address(Registry::tool)) {
                if (t0 == tools::kToolRegisteredTopic) {
                    auto e = tools::decode_tool_registered_event(log.topics, log.data);
                    if (fail(e)) continue;
                    count(EventKind::tool_registered);
                    check(u64(e->tool_id) == tool_live.size() + 1, "tool ids not sequential");
                    tool_live[u64(e->tool_id)] = true;
                } else if (t0 == tools::kToolMetadataUpdatedTopic) {
                    auto e = tools::decode_tool_metadata_updated_event(log.topics, log.data);
                    if (fail(e)) continue;
                    count(EventKind::tool_metadata_updated);
                    check(tool_live[u64(e->tool_id)], "update of a dead tool");
                } else if (t0 == tools::kAccessPredicateUpdatedTopic) {
                    auto e = tools::decode_access_predicate_updated_event(log.topics, log.data);
                    if (fail(e)) continue;
                    count(EventKind::access_predicate_updated);
                    check(tool_live[u64(e->tool_id)], "predicate of a dead tool");
                } else if (t0 == tools::kToolDeregisteredTopic) {
                    auto e = tools::decode_tool_deregistered_event(log.topics, log.data);
                    if (fail(e)) continue;
                    count(EventKind::tool_deregistered);
                    check(tool_live[u64(e->tool_id)], "double deregistration");
                    tool_live[u64(e->tool_id)] = false;
                } else {
                    ++failures;
                }
            } else if (log.address == bench::registry_address(Registry::workflow)) {
                if (t0 == workflow::kNewAgentTaskTopic) {
                    auto e = workflow::decode_new_agent_task_event(log.topics, log.data);
                    if (fail(e)) continue;
                    count(EventKind::new_agent_task);
                    check(open_task.emplace(e->workflow_run_id, e->task_hash).second,
                          "run started twice");
                    task_hashes.push_back(e->task_hash);
                } else if (t0 == workflow::kAgentReplyAnchoredTopic) {
                    auto e = workflow::decode_agent_reply_anchored_event(log.topics, log.data);
                    if (fail(e)) continue;
                    count(EventKind::agent_reply_anchored);
                    check(open_task.contains(e->workflow_run_id) &&
                              !completed_runs.contains(e->workflow_run_id),
                          "reply without an open task");
                    reply_hashes.push_back(e->reply_hash);
                } else if (t0 == workflow::kWorkflowCompletedTopic) {
                    auto e = workflow::decode_workflow_completed_event(log.topics, log.data);
                    if (fail(e)) continue;
                    count(EventKind::workflow_completed);
                    check(open_task.contains(e->workflow_run_id), "completion of an unknown run");
                    check(completed_runs.insert(e->workflow_run_id).second, "completed twice");
                    check(e->status == 1 || e->status == 2, "status");
                    if (e->status == 1) task_hashes.push_back(e->final_task_hash);
                } else {
                    ++failures;
                }
            } else {
                ++failures;
            }
        }
    }
    EXPECT_EQ(logs_seen, kEvents);
    EXPECT_EQ(failures, 0U);
    EXPECT_EQ(causal_errors, 0U);
    EXPECT_EQ(decoded, chain.counts());

    // getAgentTask / getAgentReply through eth_call: the structs hash to the events' hashes.
    const auto workflow_address = bench::registry_address(Registry::workflow);
    for (size_t i = 0; i < task_hashes.size(); i += 7) {
        auto calldata = workflow::get_agent_task(task_hashes[i]);
        ASSERT_TRUE(calldata.has_value());
        auto ret = client.call(call_to(workflow_address, *calldata));
        ASSERT_TRUE(ret.has_value()) << ret.error().to_string();
        auto task = workflow::decode_get_agent_task_result(*ret);
        ASSERT_TRUE(task.has_value()) << task.error().detail;
        EXPECT_EQ(expected_task_hash(task->task), task_hashes[i]);
        if (!task->task.input.empty()) {
            EXPECT_EQ(core::keccak256(task->task.input), task->task.input_hash);
        }
    }
    for (size_t i = 0; i < reply_hashes.size(); i += 7) {
        auto calldata = workflow::get_agent_reply(reply_hashes[i]);
        ASSERT_TRUE(calldata.has_value());
        auto ret = client.call(call_to(workflow_address, *calldata));
        ASSERT_TRUE(ret.has_value()) << ret.error().to_string();
        auto reply = workflow::decode_get_agent_reply_result(*ret);
        ASSERT_TRUE(reply.has_value()) << reply.error().detail;
        EXPECT_EQ(core::keccak256(reply->reply.output), reply->reply.output_hash);
        ASSERT_EQ(reply->reply.prev_task_hashes.size(), 1U);
        EXPECT_TRUE(std::find(task_hashes.begin(), task_hashes.end(),
                              reply->reply.prev_task_hashes[0]) != task_hashes.end());
    }
    ASSERT_FALSE(task_hashes.empty());
    ASSERT_FALSE(reply_hashes.empty());

    // An unknown task reverts with UnknownTask(bytes32), like the contract.
    auto unknown =
        client.call(call_to(workflow_address, *workflow::get_agent_task(core::keccak256("nope"))));
    ASSERT_FALSE(unknown.has_value());
    EXPECT_TRUE(chain::is_revert(unknown.error()));
    ASSERT_GE(unknown.error().data.size(), 4U);
    const auto selector = core::selector_of("UnknownTask(bytes32)");
    EXPECT_TRUE(std::equal(selector.begin(), selector.end(), unknown.error().data.begin()));
}

TEST(synthetic_chain, get_logs_refuses_more_than_10000_results) {
    const SyntheticChain& chain = test_chain();
    Server server(chain);
    auto client = chain::RpcClient::make_http(server.url());
    auto all = client.get_logs(filter(0, chain.head()));
    ASSERT_FALSE(all.has_value());
    EXPECT_EQ(all.error().code, -32005);
    EXPECT_NE(all.error().message.find("query returned more than 10000 results"),
              std::string::npos);

    // Filtering by address and topic0 narrows the count below the cap: only ToolRegistered.
    chain::LogFilter tools_only = filter(0, chain.head());
    tools_only.addresses = {bench::registry_address(Registry::tool)};
    tools_only.topics = {std::vector<core::Hash32>{tools::kToolRegisteredTopic}};
    auto registered = client.get_logs(tools_only);
    ASSERT_TRUE(registered.has_value()) << registered.error().to_string();
    EXPECT_EQ(registered->size(), chain.counts()[static_cast<size_t>(EventKind::tool_registered)]);
}

TEST(synthetic_chain, blocks_and_batches_answer_like_a_node) {
    const SyntheticChain& chain = test_chain();
    Server server(chain);
    auto client = chain::RpcClient::make_http(server.url());
    for (const uint64_t n : {uint64_t{0}, uint64_t{1}, chain.head() / 2, chain.head()}) {
        auto block = client.get_block_by_number(n);
        ASSERT_TRUE(block.has_value()) << block.error().to_string();
        ASSERT_TRUE(block->has_value());
        EXPECT_EQ((*block)->hash, chain.block(n).hash);
        EXPECT_EQ((*block)->parent_hash, chain.parent_hash(n));
        EXPECT_EQ((*block)->timestamp, chain.block(n).timestamp);
        const auto logs = chain.logs_in(n, n);
        std::set<core::Hash32> txns;
        for (const auto& l : logs) txns.insert(l.txn_hash);
        EXPECT_EQ((*block)->txn_hashes.size(), txns.size());
        auto by_hash = client.get_block_by_hash(chain.block(n).hash);
        ASSERT_TRUE(by_hash.has_value() && by_hash->has_value());
        EXPECT_EQ((*by_hash)->number, n);
    }
    auto beyond = client.get_block_by_number(chain.head() + 1);
    ASSERT_TRUE(beyond.has_value());
    EXPECT_FALSE(beyond->has_value());

    auto code = client.get_code(bench::registry_address(Registry::identity));
    ASSERT_TRUE(code.has_value());
    EXPECT_GT(code->size(), 32U);
    auto no_code = client.get_code(core::Address{});
    ASSERT_TRUE(no_code.has_value());
    EXPECT_TRUE(no_code->empty());

    // A raw batch, as the indexer sends for headers: answers in order, ids echoed.
    httplib::Client http("127.0.0.1", std::stoi(server.url().substr(server.url().rfind(':') + 1)));
    const auto res = http.Post(
        "/",
        R"([{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["0x1",false]},)"
        R"({"jsonrpc":"2.0","id":"b","method":"eth_blockNumber","params":[]},)"
        R"({"jsonrpc":"2.0","id":3,"method":"eth_nope","params":[]}])",
        "application/json");
    ASSERT_TRUE(res);
    const auto body = nlohmann::json::parse(res->body);
    ASSERT_TRUE(body.is_array());
    ASSERT_EQ(body.size(), 3U);
    EXPECT_EQ(body[0]["id"], 1);
    EXPECT_EQ(body[0]["result"]["hash"], core::to_hex(chain.block(1).hash));
    EXPECT_EQ(body[1]["id"], "b");
    EXPECT_EQ(body[1]["result"], core::Uint256(chain.head()).to_hex());
    EXPECT_EQ(body[2]["error"]["code"], -32601);
    const auto garbage = http.Post("/", "{not json", "application/json");
    ASSERT_TRUE(garbage);
    EXPECT_EQ(nlohmann::json::parse(garbage->body)["error"]["code"], -32700);
}

}  // namespace
