// `credence verify pending` end to end (docs/architecture.md §verify/): agents registered with cast
// on a devnet, indexed with `credence index --once`, checked into the index's `verifications`
// table; nothing is re-checked until a URIUpdated arrives, and then only that agent.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/core/data_uri.hpp>
#include <credence/index/database.hpp>
#include <credence/index/funding_table.hpp>

#include "cli/erc8004_cli_helpers.hpp"
#include "support/devnet.hpp"
#include "support/scratch.hpp"

namespace {

using namespace credence;
using namespace credence::testing;
using namespace credence::testing::erc8004;

class VerifyPendingCli : public DevnetFixture {
protected:
    /// A data: URI registration file (no network needed) whose one registration entry names
    /// `named_id` on this devnet's IdentityRegistry, and no service endpoints to check.
    std::string data_uri(const std::string& named_id) {
        const std::string file =
            nlohmann::ordered_json{
                {"type", "https://eips.ethereum.org/EIPS/eip-8004#registration-v1"},
                {"name", "pending-" + named_id},
                {"description", "verify pending test agent"},
                {"image", "https://example.com/agent.png"},
                {"services", nlohmann::ordered_json::array()},
                {"registrations",
                 {{{"agentId", std::stoull(named_id)},
                   {"agentRegistry", "eip155:" + std::to_string(devnet().chain_id()) + ":" +
                                         devnet().address("IdentityRegistry").to_checksum_hex()}}}}}
                .dump();
        return "data:application/json;base64," +
               core::base64_encode(
                   core::ByteView(reinterpret_cast<const uint8_t*>(file.data()), file.size()));
    }
    std::string next_agent_id() {
        return first_word(
            cast_call(devnet(), devnet().address("IdentityRegistry"), "nextAgentId()(uint256)"));
    }
    void index(const std::string& db) {
        const auto r = run_cli(devnet(), {"index", "--once", "--database", db});
        ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    nlohmann::json pending(const std::string& db) {
        return credence_json(
            devnet(), {"verify", "pending", "--database", db, "--kind", "agent", "--max-age", "0"});
    }
};

TEST_F(VerifyPendingCli, checks_due_agents_once_and_again_after_uri_updated) {
    const std::string good = next_agent_id();
    ASSERT_EQ(cast_register(devnet(), 0, data_uri(good)), good);
    const std::string bad = next_agent_id();
    ASSERT_EQ(cast_register(devnet(), 0, data_uri(std::to_string(std::stoull(bad) + 5))), bad);
    const std::string db = (scratch_dir() / "verify_pending.sqlite").string();
    index(db);

    auto first = pending(db);
    EXPECT_EQ(first["checked"], 2);
    EXPECT_EQ(first["verified"], 1);
    EXPECT_EQ(first["unverified"], 1);
    EXPECT_EQ(pending(db)["checked"], 0);  // nothing changed on chain: nothing is due

    auto open = index::open_database(db);
    ASSERT_TRUE(open) << open.error().to_string();
    auto statuses = [&] {
        auto rows = (*open)->query(
            "SELECT status, reason FROM verifications WHERE subject_kind = 'agent' ORDER BY "
            "subject_id");
        EXPECT_TRUE(rows) << rows.error().to_string();
        std::vector<std::string> out;
        for (const auto& row : rows.value_or(std::vector<index::DbRow>{})) {
            out.push_back(std::get<std::string>(row[0]) + "/" + std::get<std::string>(row[1]));
        }
        return out;
    };
    EXPECT_EQ(statuses(), (std::vector<std::string>{"verified/", "unverified/wrong_agent_id"}));

    // ERC-8004 URIUpdated: the bad agent now points at a file that names it.
    cast(devnet(),
         {"send", devnet().address("IdentityRegistry").to_checksum_hex(),
          "setAgentURI(uint256,string)", bad, data_uri(bad), "--private-key", devnet().dev_key(0)});
    index(db);
    auto again = pending(db);
    EXPECT_EQ(again["checked"], 1);
    EXPECT_EQ(again["verified"], 1);
    EXPECT_EQ(statuses(), (std::vector<std::string>{"verified/", "verified/"}));
}

// With feedback among the kinds, the pass traces where each reviewer's funds came from
// (docs/trust.md §Funding): a fresh address funded by dev account 3 is found with its funder.
TEST_F(VerifyPendingCli, feedback_pass_traces_the_reviewers_funding) {
    const std::string agent = next_agent_id();
    ASSERT_EQ(cast_register(devnet(), 0, data_uri(agent)), agent);
    const std::string fresh_key =
        "0x" + std::string(62, '0') + "2a";  // a key nobody funded at genesis
    const std::string fresh = first_word(cast_offline({"wallet", "address", fresh_key}));
    cast(devnet(), {"send", fresh, "--value", "1ether", "--private-key", devnet().dev_key(3)});
    cast(devnet(),
         {"send", devnet().address("ReputationRegistry").to_checksum_hex(),
          "giveFeedback(uint256,int128,uint8,string,string,string,string,bytes32)", agent, "90",
          "0", "starred", "", "", "", "0x" + std::string(64, '0'), "--private-key", fresh_key});
    const std::string db = (scratch_dir() / "verify_pending_funding.sqlite").string();
    index(db);
    const auto traced = credence_json(
        devnet(), {"verify", "pending", "--database", db, "--kind", "feedback", "--max-age", "0"});
    EXPECT_GE(traced["fundingsTraced"].get<int>(), 2) << traced.dump();  // the reviewer, its funder
    auto open = index::open_database(db);
    ASSERT_TRUE(open) << open.error().to_string();
    auto row = index::load_funding(**open, devnet().chain_id(),
                                   *core::Address::from_hex(fresh, core::ChecksumMode::ignore));
    ASSERT_TRUE(row && *row);
    EXPECT_EQ((*row)->source, "transfer");
    EXPECT_EQ((*row)->funder, devnet().dev_address(3));
    EXPECT_EQ((*row)->depth, 0U);
    auto funder = index::load_funding(**open, devnet().chain_id(), devnet().dev_address(3));
    ASSERT_TRUE(funder && *funder);
    EXPECT_EQ((*funder)->source, "genesis");
}

TEST_F(VerifyPendingCli, unknown_kind_is_a_one_line_error) {
    const std::string db = (scratch_dir() / "verify_pending_kind.sqlite").string();
    const auto r = run_cli(devnet(), {"verify", "pending", "--database", db, "--kind", "agents"});
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find("unknown kind 'agents'"), std::string::npos) << r.err;
}

}  // namespace
