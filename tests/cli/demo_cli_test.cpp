// `credence demo` end to end (docs/agent.md): the demo seeds a fresh devnet and keeps serving its
// HTTPS origin; then `credence index --once`, `credence verify pending` (with the fetch flags the
// demo printed) and `credence trust score` run against it, and the index must show what the demo
// staged: >= 20 agents with domains verified and not verified for the staged reasons, >= 50
// distinct clients, the Sybil cluster's target discounted, >= 5 tools with the staged ERC-8257
// verdicts. A second run finds the chain seeded and seeds nothing.
#include <gtest/gtest.h>

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <credence/chain/bindings/score_reputation_registry.hpp>
#include <credence/core/bytes.hpp>
#include <credence/index/database.hpp>
#include <credence/trust/score.hpp>
#include <credence/trust/score_index.hpp>
#include <credence/verify/store/verification_store.hpp>

#include "support/child_process.hpp"
#include "support/devnet.hpp"
#include "support/scratch.hpp"

extern char** environ;

namespace {

using namespace credence;
using namespace credence::testing;
using Json = nlohmann::json;

/// `credence demo` running in the background; SIGTERM and reaped on destruction.
class DemoProcess {
public:
    DemoProcess(const std::vector<std::string>& args,
                const std::map<std::string, std::string>& env) {
        int fds[2];
        if (::pipe(fds) != 0) return;
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
        posix_spawn_file_actions_addclose(&actions, fds[0]);
        std::vector<std::string> argv_text = {CREDENCE_BIN};
        argv_text.insert(argv_text.end(), args.begin(), args.end());
        std::vector<char*> argv;
        for (auto& a : argv_text) argv.push_back(a.data());
        argv.push_back(nullptr);
        std::vector<std::string> env_text;
        for (char** e = environ; *e != nullptr; ++e) {
            const std::string entry(*e);
            const auto name = entry.substr(0, entry.find('='));
            if (!env.contains(name)) env_text.push_back(entry);
        }
        for (const auto& [k, v] : env) env_text.push_back(k + "=" + v);
        std::vector<char*> envp;
        for (auto& e : env_text) envp.push_back(e.data());
        envp.push_back(nullptr);
        if (posix_spawn(&pid_, CREDENCE_BIN, &actions, nullptr, argv.data(), envp.data()) != 0)
            pid_ = -1;
        posix_spawn_file_actions_destroy(&actions);
        ::close(fds[1]);
        out_ = fds[0];
    }
    ~DemoProcess() {
        if (pid_ > 0) {
            ::kill(pid_, SIGTERM);
            int status = 0;
            ::waitpid(pid_, &status, 0);
        }
        if (out_ >= 0) ::close(out_);
    }
    DemoProcess(const DemoProcess&) = delete;
    DemoProcess& operator=(const DemoProcess&) = delete;

    /// The first line of stdout, or "" when none came within `timeout`.
    std::string first_line(std::chrono::milliseconds timeout) {
        std::string line;
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        while (std::chrono::steady_clock::now() < deadline) {
            pollfd p{out_, POLLIN, 0};
            if (::poll(&p, 1, 100) <= 0) continue;
            char c = 0;
            if (::read(out_, &c, 1) != 1) break;
            if (c == '\n') return line;
            line.push_back(c);
        }
        return {};
    }

private:
    pid_t pid_ = -1;
    int out_ = -1;
};

// A devnet with every ERC-8004 revision, as `make run` starts: the demo seeds alpha's records in
// the earlier revisions too.
class DemoCli : public ::testing::Test {
protected:
    void SetUp() override {
        DevnetOptions options;
        options.revisions = chain::DeployRevisions::all;
        auto started = Devnet::start(options);
        ASSERT_TRUE(started) << started.error();
        devnet_ = std::move(*started);
    }
    Devnet& devnet() { return *devnet_; }
    std::unique_ptr<Devnet> devnet_;

    CommandResult run(const std::vector<std::string>& args) {
        return run_command(CREDENCE_BIN, args, devnet().env());
    }
    static core::Bytes id_bytes(uint64_t id) {
        core::Bytes b(32, 0);
        for (size_t i = 0; i < 8; ++i) b[31 - i] = static_cast<uint8_t>(id >> (8 * i));
        return b;
    }
};

TEST_F(DemoCli, demo_seeds_a_world_the_verifiers_and_trust_engine_see) {
    const auto state = scratch_dir() / ("demo-" + std::to_string(devnet().chain_id()) + "-" +
                                        std::to_string(::getpid()));
    const auto started = std::chrono::steady_clock::now();
    DemoProcess demo({"demo", "--json", "--state-dir", state.string()}, devnet().env());
    const std::string line = demo.first_line(std::chrono::seconds(60));
    ASSERT_FALSE(line.empty()) << "credence demo printed nothing within 60 s";
    const auto seeding = std::chrono::steady_clock::now() - started;
    EXPECT_LT(seeding, std::chrono::seconds(60));
    const Json summary = Json::parse(line);
    EXPECT_FALSE(summary["alreadySeeded"].get<bool>());
    ASSERT_GE(summary["agents"].size(), 20U);
    EXPECT_GE(summary["clients"].get<size_t>(), 50U);
    ASSERT_GE(summary["tools"].size(), 5U);
    // ERC-8004 validation: answered by the in-process validators, the tampered request refused.
    EXPECT_GE(summary["validationsAnswered"].get<size_t>(), 4U);
    EXPECT_EQ(summary["validationsRefused"].get<size_t>(), 1U);
    // The six ERC-8301 scenarios, completed by in-process task workers, evidence verified live.
    ASSERT_EQ(summary["runs"].size(), 6U);
    for (const auto& r : summary["runs"]) {
        EXPECT_TRUE(r["completed"].get<bool>()) << r.dump();
        EXPECT_TRUE(r["evidenceValid"].get<bool>()) << r.dump();
    }

    const std::string db = (state / "index.sqlite").string();
    const auto indexed = run({"index", "--once", "--database", db});
    ASSERT_EQ(indexed.exit_code, 0) << indexed.err;
    std::vector<std::string> verify = {"verify", "pending", "--database", db};
    for (const auto& f : summary["https"]["fetchFlags"]) verify.push_back(f.get<std::string>());
    const auto verified = run(verify);
    ASSERT_EQ(verified.exit_code, 0) << verified.err << verified.out;

    // The flags lift the SSRF guard for the demo's own names on its own server only
    // (verify/net/ssrf_guard.hpp, pinned entries): a URL on chain naming 127.0.0.1 or localhost, or
    // a demo name on another local port (here the devnet's JSON-RPC), stays refused.
    const std::string https_port = std::to_string(summary["https"]["port"].get<int>());
    const std::string rpc_port = devnet().rpc_url().substr(devnet().rpc_url().rfind(':') + 1);
    for (const std::string& url :
         {"https://127.0.0.1:" + https_port + "/", "https://localhost:" + https_port + "/",
          "http://127.0.0.1:" + rpc_port + "/", "https://alpha.demo.localhost:" + rpc_port + "/"}) {
        std::vector<std::string> fetch = {"verify", "fetch", url, "--allow-http"};
        for (const auto& f : summary["https"]["fetchFlags"]) fetch.push_back(f.get<std::string>());
        const auto refused = run(fetch);
        EXPECT_EQ(refused.exit_code, 1) << url << ": " << refused.out;
        EXPECT_NE(refused.err.find("blocked_address"), std::string::npos)
            << url << ": " << refused.err;
    }

    auto opened = index::open_database(db);
    ASSERT_TRUE(opened) << opened.error().message;
    index::Database& database = **opened;
    const uint64_t chain_id = devnet().chain_id();

    // Agents: each domain verified or not, for the reason the demo staged.
    std::map<std::string, size_t> domain_outcomes;
    for (const auto& a : summary["agents"]) {
        verify::Subject subject;
        subject.kind = verify::SubjectKind::agent;
        subject.contract = devnet().address("IdentityRegistry");
        subject.id = id_bytes(a["agentId"].get<uint64_t>());
        auto record = verify::load_verification(database, chain_id, subject);
        ASSERT_TRUE(record && *record) << "agent " << a["agentId"] << " was not checked";
        const std::string expected = a["expectedDomain"];
        const Json report = Json::parse((*record)->report_json);
        if (expected == "fetch_failed") {
            EXPECT_NE((*record)->status, verify::VerificationStatus::verified) << report.dump();
            EXPECT_EQ((*record)->reason, "fetch_failed") << report.dump();
            ++domain_outcomes[expected];
            continue;
        }
        std::string reason;
        for (const auto& d : report["domains"])
            if (d["domain"] == a["domain"]) reason = d["reason"];
        EXPECT_EQ(reason, expected) << a["name"] << ": " << report.dump();
        // The registration file matched (the staged failures are in the endpoint domains).
        EXPECT_EQ((*record)->status, verify::VerificationStatus::verified)
            << a["name"] << ": " << (*record)->reason << " " << (*record)->detail;
        ++domain_outcomes[reason];
    }
    EXPECT_GE(domain_outcomes["verified"], 5U);
    EXPECT_GE(domain_outcomes["not_found"], 1U);
    EXPECT_GE(domain_outcomes["wrong_agent_id"], 1U);
    EXPECT_GE(domain_outcomes["wrong_registry"], 1U);
    EXPECT_EQ(domain_outcomes["fetch_failed"], 1U);

    // Tools: the staged ERC-8257 §7 verdicts.
    std::set<std::string> tool_reasons;
    for (const auto& t : summary["tools"]) {
        verify::Subject subject;
        subject.kind = verify::SubjectKind::tool;
        subject.contract = devnet().address("ToolRegistry");
        subject.id = id_bytes(t["toolId"].get<uint64_t>());
        auto record = verify::load_verification(database, chain_id, subject);
        ASSERT_TRUE(record && *record) << "tool " << t["toolId"] << " was not checked";
        const std::string expected = t["expected"];
        if (expected == "canonical") {
            EXPECT_EQ((*record)->status, verify::VerificationStatus::verified)
                << t["slug"] << ": " << (*record)->reason << " " << (*record)->detail;
        } else {
            EXPECT_EQ((*record)->status, verify::VerificationStatus::unverified) << t["slug"];
            EXPECT_EQ((*record)->reason, expected) << t["slug"] << ": " << (*record)->detail;
        }
        tool_reasons.insert(expected);
    }
    EXPECT_GE(tool_reasons.size(), 5U);

    // Runs: `verify pending` checked each evidence chain again, offline from the index.
    for (const auto& r : summary["runs"]) {
        verify::Subject subject;
        subject.kind = verify::SubjectKind::run;
        subject.contract = devnet().address(r["workflow"].get<std::string>());
        const auto run_id = core::from_hex(r["runId"].get<std::string>());
        ASSERT_TRUE(run_id);
        subject.id = *run_id;
        auto record = verify::load_verification(database, chain_id, subject);
        ASSERT_TRUE(record && *record) << "run " << r.dump() << " was not checked";
        EXPECT_EQ((*record)->status, verify::VerificationStatus::verified)
            << r["workflow"] << ": " << (*record)->reason << " " << (*record)->detail;
    }

    // Clients: >= 50 distinct feedback authors in the index.
    auto clients = database.query("SELECT COUNT(DISTINCT client) FROM feedback");
    ASSERT_TRUE(clients) << clients.error().message;
    ASSERT_EQ(clients->size(), 1U);
    EXPECT_GE(std::get<int64_t>((*clients)[0][0]), 50);

    // The Sybil cluster: its target's trust score sits far below its unweighted mean rating.
    const std::string target = std::to_string(summary["sybilTarget"].get<uint64_t>());
    const auto mean = run({"feedback", "summary", target, "--json"});
    ASSERT_EQ(mean.exit_code, 0) << mean.err;
    const double unweighted = std::stod(Json::parse(mean.out)["summary"].get<std::string>());
    const auto score = run({"trust", "score", target, "--database", db, "--json"});
    ASSERT_EQ(score.exit_code, 0) << score.err;
    const double trusted = Json::parse(score.out)["score"].get<double>() * 100.0;
    EXPECT_GT(unweighted, 80.0) << mean.out;
    EXPECT_LT(trusted, unweighted - 30.0) << score.out;

    // `credence node` on the same world verifies the payments on the chain it follows over its own
    // RPC (ERC-8004 §Off-Chain Feedback File Structure, proofOfPayment): every paid feedback gets
    // the payment_verified flag the trust engine weighs, none is left payment_chain_unavailable.
    {
        const auto node_dir = scratch_dir() / ("demo-node-" + std::to_string(::getpid()));
        std::filesystem::create_directories(node_dir);
        std::vector<std::string> argv{CREDENCE_BIN,      "node",      "--port", "0", "--data-dir",
                                      node_dir.string(), "--poll-ms", "100"};
        for (const auto& f : summary["https"]["fetchFlags"]) argv.push_back(f.get<std::string>());
        credence::testing::ChildProcess node(argv, devnet().home(), node_dir / "node.out",
                                             node_dir / "node.err");
        const size_t paid = summary["paidFeedback"].get<size_t>();
        ASSERT_GT(paid, 0U);
        const std::string node_db = (node_dir / "index.sqlite").string();
        int64_t verified_payments = -1;
        // Well inside the verifier's 30-second rest: a pass follows the indexer's first commits
        // (docs/node.md §Threads), so the history is verified at once, not after the interval.
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(25);
        while (std::chrono::steady_clock::now() < until && !node.exited()) {
            if (auto opened_node_db = index::open_database(node_db)) {
                auto rows = (*opened_node_db)
                                ->query(
                                    "SELECT COUNT(*) FROM verifications WHERE subject_kind = "
                                    "'feedback' AND (flags & 1) = 1");
                if (rows && rows->size() == 1) verified_payments = std::get<int64_t>((*rows)[0][0]);
            }
            if (verified_payments == static_cast<int64_t>(paid)) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(250));
        }
        EXPECT_EQ(verified_payments, static_cast<int64_t>(paid)) << node.err();
        // The honest reviewers of the target paid, and the score computed from the node's index
        // counts their payments: none of them is flagged no_verified_payment.
        const auto explained = run({"trust", "score", target, "--explain", "--limit", "100",
                                    "--database", node_db, "--json"});
        ASSERT_EQ(explained.exit_code, 0) << explained.err;
        const Json explanation = Json::parse(explained.out);
        size_t paid_reviewers = 0;
        for (const auto& c : explanation["contributions"]) {
            bool unpaid = false;
            for (const auto& d : c["discounts"]) unpaid = unpaid || d == "no_verified_payment";
            if (!unpaid) ++paid_reviewers;
        }
        EXPECT_GE(paid_reviewers, 1U) << explained.out;

        // Funding (docs/trust.md §Funding): the node traces where every reviewer's funds came
        // from. The exchange that funds the honest clients among its customers is a hub; the
        // Sybils' operator is not, so the 36 Sybils are one voice and the target's score stays
        // within 5 points of its honest-only score.
        const size_t reviewers = summary["clients"].get<size_t>();
        int64_t traced = -1;
        const auto traced_by = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (std::chrono::steady_clock::now() < traced_by && !node.exited()) {
            if (auto opened_node_db = index::open_database(node_db)) {
                auto rows = (*opened_node_db)
                                ->query(
                                    "SELECT COUNT(*) FROM fundings WHERE depth = 0 AND source = "
                                    "'transfer'");
                if (rows && rows->size() == 1) traced = std::get<int64_t>((*rows)[0][0]);
            }
            if (traced >= static_cast<int64_t>(reviewers)) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(250));
        }
        ASSERT_GE(traced, static_cast<int64_t>(reviewers)) << node.err();
        auto scored_db = index::open_database(node_db);
        ASSERT_TRUE(scored_db) << scored_db.error().message;
        trust::TrustSources sources;
        sources.chain_id = chain_id;
        sources.identity_registry = devnet().address("IdentityRegistry");
        sources.reputation_registry = devnet().address("ReputationRegistry");
        sources.validation_registry = devnet().address("ValidationRegistry");
        auto head = devnet().rpc().block_number();
        ASSERT_TRUE(head);
        sources.head_block_num = *head;
        sources.now = static_cast<int64_t>(devnet().chain_time());
        sources.seconds_per_block = 1;
        auto inputs = trust::load_trust_inputs(**scored_db, sources);
        ASSERT_TRUE(inputs) << inputs.error().to_string();
        trust::TrustConfig tc;
        tc.now = sources.now;
        std::set<core::Address> sybils;
        for (const auto& a : summary["sybilAddresses"]) {
            auto address = core::Address::from_hex(a.get<std::string>());
            ASSERT_TRUE(address);
            sybils.insert(*address);
        }
        ASSERT_EQ(sybils.size(), summary["sybilClients"].get<size_t>());
        trust::TrustInputs honest_only = *inputs;
        std::erase_if(honest_only.reviews,
                      [&](const trust::Review& r) { return sybils.contains(r.client); });
        const core::Bytes target_id = id_bytes(summary["sybilTarget"].get<uint64_t>());
        size_t target_index = inputs->agents.size();
        for (size_t i = 0; i < inputs->agents.size(); ++i)
            if (inputs->agents[i].agent_id == target_id) target_index = i;
        ASSERT_LT(target_index, inputs->agents.size());
        const double with_sybils = trust::compute_trust(*inputs, tc).agents[target_index].score;
        const double without = trust::compute_trust(honest_only, tc).agents[target_index].score;
        EXPECT_LE(std::abs(with_sybils - without) * 100, 5.0)
            << "target " << with_sybils << " vs honest-only " << without;
        // What the explorer shows: the node's own stored score for the target (its trust engine
        // runs a full pass once the fundings are traced) reaches the honest-only score too.
        {
            static const std::regex serving(R"(credence node: serving (http://127\.0\.0\.1:\d+))");
            std::smatch m;
            const std::string printed = node.out();
            ASSERT_TRUE(std::regex_search(printed, m, serving)) << printed;
            httplib::Client api(m[1].str());
            api.set_read_timeout(std::chrono::seconds(3));
            double shown = -1;
            const auto shown_by = std::chrono::steady_clock::now() + std::chrono::seconds(30);
            while (std::chrono::steady_clock::now() < shown_by && !node.exited()) {
                if (auto res = api.Get("/api/v1/agents/" + target); res && res->status == 200) {
                    const Json body = Json::parse(res->body, nullptr, false);
                    if (body.is_object() && body["score"].is_object() &&
                        body["score"]["score"].is_number())
                        shown = body["score"]["score"].get<double>();
                }
                if (shown >= 0 && std::abs(shown - without) * 100 <= 5.0) break;
                std::this_thread::sleep_for(std::chrono::milliseconds(250));
            }
            EXPECT_LE(std::abs(shown - without) * 100, 5.0)
                << "the node shows " << shown << ", honest-only " << without;
        }
        // Alpha moved across revisions (agent/demo_seed_revisions.hpp): the node shows its
        // records in the intermediate revision and the first draft, each linked to the current
        // one (docs/api.md §Earlier ERC-8004 revisions), with the scores the contract sums.
        {
            static const std::regex serving(R"(credence node: serving (http://127\.0\.0\.1:\d+))");
            std::smatch m;
            const std::string printed = node.out();
            ASSERT_TRUE(std::regex_search(printed, m, serving)) << printed;
            httplib::Client api(m[1].str());
            api.set_read_timeout(std::chrono::seconds(3));
            const std::string alpha =
                std::to_string(summary["agents"][0]["agentId"].get<uint64_t>());
            ASSERT_EQ(summary["earlierRevisions"].size(), 4U) << summary.dump();
            std::map<std::string, std::string> moved;  // revision -> agentId of alpha's record
            for (const auto& e : summary["earlierRevisions"]) {
                if (e["role"] == "server")
                    moved[e["revision"].get<std::string>()] =
                        std::to_string(e["agentId"].get<uint64_t>());
            }
            ASSERT_EQ(moved.size(), 2U);
            Json history;
            const auto linked_by = std::chrono::steady_clock::now() + std::chrono::seconds(30);
            while (std::chrono::steady_clock::now() < linked_by && !node.exited()) {
                if (auto res = api.Get("/api/v1/agents/" + alpha); res && res->status == 200) {
                    history = Json::parse(res->body, nullptr, false)["history"];
                    if (history.is_array() && history.size() == 2) break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(250));
            }
            ASSERT_TRUE(history.is_array() && history.size() == 2) << history.dump();
            std::map<std::string, std::string> shown;
            for (const auto& h : history)
                shown[h["revision"].get<std::string>()] = h["agent_id"].get<std::string>();
            EXPECT_EQ(shown, moved);
            auto rep = api.Get("/api/v1/agents/" + moved["score"] + "/reputation?revision=score");
            ASSERT_TRUE(rep);
            ASSERT_EQ(rep->status, 200) << rep->body;
            const Json summary_json = Json::parse(rep->body)["summary"];
            namespace srep = credence::chain::bindings::score_reputation_registry;
            const auto score_id = core::Uint256{std::stoull(moved["score"])};
            auto onchain = devnet().rpc().call({{},
                                                devnet().address("ScoreReputationRegistry"),
                                                srep::get_summary(score_id, {}, "", "").value(),
                                                {},
                                                {}});
            ASSERT_TRUE(onchain) << onchain.error().message;
            const auto expected = srep::decode_get_summary_result(*onchain);
            ASSERT_TRUE(expected);
            EXPECT_EQ(summary_json["count"], expected->count);
            EXPECT_EQ(summary_json["average_score"], expected->average_score);
            EXPECT_EQ(summary_json["count"], 2) << rep->body;           // three given, one revoked
            EXPECT_EQ(summary_json["average_score"], 86) << rep->body;  // (92 + 81) / 2
            // Its first-draft card, served at its AgentDomain, names it: the node verifies it.
            std::string draft_status;
            const auto verified_by = std::chrono::steady_clock::now() + std::chrono::seconds(30);
            while (std::chrono::steady_clock::now() < verified_by && !node.exited()) {
                if (auto res = api.Get("/api/v1/agents/" + moved["draft"] + "?revision=draft");
                    res && res->status == 200) {
                    const Json v = Json::parse(res->body, nullptr, false)["verification"];
                    if (v.is_object()) draft_status = v["status"].get<std::string>();
                    if (draft_status == "verified") break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(250));
            }
            EXPECT_EQ(draft_status, "verified");
            auto auths = api.Get("/api/v1/agents/" + moved["draft"] + "/feedback?revision=draft");
            ASSERT_TRUE(auths);
            ASSERT_EQ(auths->status, 200) << auths->body;
            EXPECT_EQ(Json::parse(auths->body)["items"].size(), 2U) << auths->body;
        }
        // The explanation names the cluster and the path that proved it.
        const auto clustered =
            run({"trust", "score", target, "--explain", "--database", node_db, "--json"});
        ASSERT_EQ(clustered.exit_code, 0) << clustered.err;
        const Json clusters = Json::parse(clustered.out)["clusters"];
        ASSERT_EQ(clusters.size(), 1U) << clustered.out;
        EXPECT_EQ(clusters[0]["reason"], "clustered");
        EXPECT_EQ(clusters[0]["members"].size(), sybils.size());
        EXPECT_GE(clusters[0]["fundingPath"].size(), 1U);
        EXPECT_EQ(node.stop(SIGINT, std::chrono::seconds(20)), 0) << node.err();
    }

    // Idempotent: a second run on the same chain finds it seeded and only serves again.
    const auto again = run({"demo", "--json", "--once", "--state-dir", state.string()});
    ASSERT_EQ(again.exit_code, 0) << again.err;
    const Json second = Json::parse(again.out);
    EXPECT_TRUE(second["alreadySeeded"].get<bool>());
    EXPECT_EQ(second["agents"], summary["agents"]);
}

}  // namespace
