// Tests of the ERC-8004 off-chain feedback file. The reference document is the spec's own example
// (§Off-Chain Feedback File Structure), extracted from erc-8004.md at run time: jsonc comments and
// the illustrative `" ... ": { " ... " }` line are dropped, {identityRegistry} becomes the deployed
// mainnet IdentityRegistry (vectors/erc8004.json) and {clientAddress} the first ethers account
// (vectors/ethers/accounts.json). Expected field values are read from that same text with an
// independent parser (nlohmann), never from our code.
#include <credence/core/feedback_file.hpp>

#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include <credence/core/address.hpp>
#include <credence/core/jcs.hpp>
#include <credence/core/keccak.hpp>

#include "support/erc_examples.hpp"
#include "support/vectors.hpp"

namespace {

using namespace credence::core;
using credence::testing::drop_trailing_commas;
using credence::testing::read_erc_example;
using credence::testing::replace_all;
using credence::testing::strip_jsonc_comments;

std::string identity() {
    return credence::testing::read_vector_json("erc8004.json")["deployed"]["mainnets"]["identity"]
        .get<std::string>();
}

std::string client() {
    return credence::testing::read_vector_json("ethers/accounts.json")[0]["address"]
        .get<std::string>();
}

std::string example_text() {
    std::string doc = strip_jsonc_comments(read_erc_example("erc8004-feedback-file.jsonc"));
    std::string kept;
    std::istringstream lines(doc);
    for (std::string line; std::getline(lines, line);) {
        if (line.find("\" ... \"") == std::string::npos) kept += line + "\n";
    }
    kept = drop_trailing_commas(kept);
    replace_all(kept, "{identityRegistry}", identity());
    replace_all(kept, "{clientAddress}", client());
    return kept;
}

EvmAddress addr(const std::string& hex) { return Address::from_hex(hex)->bytes; }

std::string dump(const FeedbackReport& r) {
    std::string s;
    for (const auto& i : r.issues) {
        s += std::string(to_string(i.severity)) + " " + std::string(to_string(i.reason)) + " " +
             i.path + ": " + i.message + "\n";
    }
    return s;
}

bool has(const FeedbackReport& r, FeedbackReason reason, const std::string& path,
         IssueSeverity sev = IssueSeverity::error) {
    for (const auto& i : r.issues)
        if (i.reason == reason && i.path == path && i.severity == sev) return true;
    return false;
}

OnchainFeedback chain_of(const nlohmann::json& j) {
    OnchainFeedback c;
    c.agent_registry = *parse_agent_registry(j["agentRegistry"].get<std::string>());
    c.agent_id = Uint256{j["agentId"].get<uint64_t>()};
    c.client_address = addr(client());
    c.value = DecimalValue{Int256(j["value"].get<int64_t>()),
                           static_cast<uint8_t>(j["valueDecimals"].get<int>())};
    return c;
}

TEST(core_feedback_file, spec_example_validates) {
    const std::string text = example_text();
    const auto j = nlohmann::json::parse(text);
    auto r = validate_feedback_file(text);
    ASSERT_TRUE(r) << text;
    EXPECT_TRUE(r->ok()) << dump(*r);
    EXPECT_TRUE(r->issues.empty()) << dump(*r);
    const FeedbackFile& f = r->file;
    EXPECT_EQ(to_string(f.agent_registry), j["agentRegistry"].get<std::string>());
    EXPECT_EQ(f.agent_id, Uint256{j["agentId"].get<uint64_t>()});
    EXPECT_EQ(f.client_address, addr(client()));
    EXPECT_EQ(f.client_chain_id, f.agent_registry.chain_id);
    EXPECT_EQ(f.created_at, j["createdAt"].get<std::string>());
    EXPECT_EQ(f.value.value, Int256(j["value"].get<int64_t>()));
    EXPECT_EQ(f.value.decimals, j["valueDecimals"].get<int>());
    EXPECT_EQ(f.tag1, j["tag1"].get<std::string>());
    EXPECT_EQ(f.tag2, j["tag2"].get<std::string>());
    EXPECT_EQ(f.endpoint, j["endpoint"].get<std::string>());
    ASSERT_TRUE(f.mcp);
    EXPECT_EQ(f.mcp->kind, McpContext::Kind::tool);
    EXPECT_EQ(f.mcp->name, j["mcp"]["tool"].get<std::string>());
    ASSERT_TRUE(f.a2a);
    EXPECT_EQ(f.a2a->skills, j["a2a"]["skills"].get<std::vector<std::string>>());
    EXPECT_EQ(f.a2a->context_id, j["a2a"]["contextId"].get<std::string>());
    EXPECT_EQ(f.a2a->task_id, j["a2a"]["taskId"].get<std::string>());
    ASSERT_TRUE(f.oasf);
    EXPECT_EQ(f.oasf->domains, j["oasf"]["domains"].get<std::vector<std::string>>());
    ASSERT_TRUE(f.proof_of_payment);
    EXPECT_EQ(f.proof_of_payment->chain_id, j["proofOfPayment"]["chainId"].get<std::string>());
    EXPECT_EQ(f.proof_of_payment->tx_hash, j["proofOfPayment"]["txHash"].get<std::string>());
    EXPECT_TRUE(check_feedback_file(f, chain_of(j)).empty());
}

TEST(core_feedback_file, each_must_field_mismatch_detected) {
    const std::string text = example_text();
    const auto j = nlohmann::json::parse(text);
    const FeedbackFile f = validate_feedback_file(text)->file;
    const OnchainFeedback good = chain_of(j);
    auto only = [&](const OnchainFeedback& c, FeedbackField field) {
        const auto m = check_feedback_file(f, c);
        ASSERT_EQ(m.size(), 1U) << to_string(field);
        EXPECT_EQ(m[0].field, field);
        EXPECT_NE(m[0].expected, m[0].found);
    };
    OnchainFeedback c = good;
    c.agent_registry.chain_id = 8453;
    {
        // Another chain also changes the chain the clientAddress must name.
        const auto m = check_feedback_file(f, c);
        ASSERT_EQ(m.size(), 2U);
        EXPECT_EQ(m[0].field, FeedbackField::agent_registry);
        EXPECT_EQ(m[1].field, FeedbackField::client_address);
    }
    c = good;
    c.agent_registry.identity_registry[0] ^= 1;
    only(c, FeedbackField::agent_registry);
    c = good;
    c.agent_id = c.agent_id + Uint256{1};
    only(c, FeedbackField::agent_id);
    c = good;
    c.client_address[19] ^= 1;
    only(c, FeedbackField::client_address);
    c = good;
    c.value.value = Int256(-100);
    only(c, FeedbackField::value);
    c = good;
    c.value.decimals = 1;
    only(c, FeedbackField::value_decimals);
    // 100 / 0 vs 1000 / 1: the same number, but not the same on-chain pair.
    c = good;
    c.value = DecimalValue{Int256(1000), 1};
    EXPECT_EQ(check_feedback_file(f, c).size(), 2U);
}

TEST(core_feedback_file, build_parse_round_trip) {
    const FeedbackFile f = validate_feedback_file(example_text())->file;
    auto built = build_feedback_file(f);
    ASSERT_TRUE(built) << built.error().detail;
    // Deterministic JCS bytes: canonicalizing them again changes nothing, and the hash is theirs.
    auto again = canonicalize(std::string_view(built->bytes));
    ASSERT_TRUE(again);
    EXPECT_EQ(*again, built->bytes);
    EXPECT_EQ(built->feedback_hash,
              keccak256(ByteView(reinterpret_cast<const uint8_t*>(built->bytes.data()),
                                 built->bytes.size())));
    auto parsed = validate_feedback_file(built->bytes);
    ASSERT_TRUE(parsed);
    EXPECT_TRUE(parsed->ok()) << dump(*parsed);
    EXPECT_TRUE(parsed->file == f);
    // Building the same struct twice gives the same bytes.
    EXPECT_EQ(build_feedback_file(f)->bytes, built->bytes);
    // The spec example re-canonicalized equals what we build from its fields.
    EXPECT_EQ(*canonicalize(std::string_view(example_text())), built->bytes);
}

TEST(core_feedback_file, large_values_round_trip_as_strings) {
    FeedbackFile f = validate_feedback_file(example_text())->file;
    const std::string e38 = "1" + std::string(38, '0');
    f.value = *parse_decimal_value("-" + e38);
    f.agent_id = *Uint256::from_dec("9007199254740993");  // 2^53 + 1: not exact in double
    auto built = build_feedback_file(f);
    ASSERT_TRUE(built);
    const auto j = nlohmann::json::parse(built->bytes);
    EXPECT_EQ(j["value"], "-" + e38);
    EXPECT_EQ(j["agentId"], "9007199254740993");
    auto parsed = validate_feedback_file(built->bytes);
    ASSERT_TRUE(parsed);
    EXPECT_TRUE(parsed->ok()) << dump(*parsed);
    EXPECT_TRUE(parsed->file == f);
    // 2^53 - 1 is still a number.
    f.agent_id = Uint256{9007199254740991ULL};
    EXPECT_TRUE(nlohmann::json::parse(build_feedback_file(f)->bytes)["agentId"].is_number());
}

TEST(core_feedback_file, extra_fields_merge_but_never_override) {
    const FeedbackFile f = validate_feedback_file(example_text())->file;
    auto extra = parse_json(std::string_view(R"({"comment":"fast","rating":{"stars":5}})"));
    auto built = build_feedback_file(f, &*extra);
    ASSERT_TRUE(built);
    const auto j = nlohmann::json::parse(built->bytes);
    EXPECT_EQ(j["comment"], "fast");
    EXPECT_EQ(j["rating"]["stars"], 5);
    for (const char* key :
         {"agentRegistry", "agentId", "clientAddress", "createdAt", "value", "valueDecimals"}) {
        JsonValue::Object o;
        o.push_back({key, JsonValue(1.0)});
        const JsonValue x(std::move(o));
        auto r = build_feedback_file(f, &x);
        ASSERT_FALSE(r) << key;
        EXPECT_EQ(r.error().code, FeedbackError::extra_conflict) << key;
    }
    // tag1 is set in the struct: replacing it is a conflict too; unset tag2 may come from extra.
    FeedbackFile g = f;
    g.tag2.reset();
    auto t1 = parse_json(std::string_view(R"({"tag1":"x"})"));
    EXPECT_EQ(build_feedback_file(g, &*t1).error().code, FeedbackError::extra_conflict);
    auto t2 = parse_json(std::string_view(R"({"tag2":"x"})"));
    EXPECT_TRUE(build_feedback_file(g, &*t2));
    const JsonValue arr(JsonValue::Array{});
    EXPECT_EQ(build_feedback_file(f, &arr).error().code, FeedbackError::extra_not_object);
}

TEST(core_feedback_file, build_rejects_bad_fields) {
    FeedbackFile f = validate_feedback_file(example_text())->file;
    for (const char* t : {"", "2025-09-23", "2025-09-23 12:00:00Z", "2025-13-01T00:00:00Z",
                          "2023-02-29T00:00:00Z", "2025-09-23T24:00:00Z", "2025-09-23T12:00:00",
                          "2025-09-23T12:00:00+0100", "2025-09-23T12:00:00.Z"}) {
        f.created_at = t;
        auto r = build_feedback_file(f);
        ASSERT_FALSE(r) << t;
        EXPECT_EQ(r.error().code, FeedbackError::bad_input) << t;
    }
    for (const char* t :
         {"2025-09-23T12:00:00Z", "2024-02-29T23:59:60.123+05:30", "2025-09-23t12:00:00z"}) {
        EXPECT_TRUE(is_rfc3339_date_time(t)) << t;
    }
    f.created_at = "2025-09-23T12:00:00Z";
    f.value.decimals = 19;
    EXPECT_EQ(build_feedback_file(f).error().code, FeedbackError::bad_input);
}

struct Edit {
    const char* name;
    const char* key;
    const char* json;  // nullptr: remove
    FeedbackReason reason;
    const char* path;
    IssueSeverity severity;
};

const Edit kEdits[] = {
    {"missing agentRegistry", "agentRegistry", nullptr, FeedbackReason::missing_field,
     "/agentRegistry", IssueSeverity::error},
    {"missing agentId", "agentId", nullptr, FeedbackReason::missing_field, "/agentId",
     IssueSeverity::error},
    {"missing clientAddress", "clientAddress", nullptr, FeedbackReason::missing_field,
     "/clientAddress", IssueSeverity::error},
    {"missing createdAt", "createdAt", nullptr, FeedbackReason::missing_field, "/createdAt",
     IssueSeverity::error},
    {"missing value", "value", nullptr, FeedbackReason::missing_field, "/value",
     IssueSeverity::error},
    {"missing valueDecimals", "valueDecimals", nullptr, FeedbackReason::missing_field,
     "/valueDecimals", IssueSeverity::error},
    {"agentRegistry placeholder", "agentRegistry", R"("eip155:1:{identityRegistry}")",
     FeedbackReason::bad_agent_registry, "/agentRegistry", IssueSeverity::error},
    {"agentRegistry number", "agentRegistry", "1", FeedbackReason::bad_agent_registry,
     "/agentRegistry", IssueSeverity::error},
    {"negative agentId", "agentId", "-22", FeedbackReason::bad_agent_id, "/agentId",
     IssueSeverity::error},
    {"fractional agentId", "agentId", "22.5", FeedbackReason::bad_agent_id, "/agentId",
     IssueSeverity::error},
    {"clientAddress bare", "clientAddress", R"("0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf")",
     FeedbackReason::bad_client_address, "/clientAddress", IssueSeverity::error},
    {"clientAddress not eip155", "clientAddress",
     R"("cosmos:cosmoshub-3:cosmos1t2uflqwqe0fsj0shcfkrvpukewcw40yjj6hdc0")",
     FeedbackReason::bad_client_address, "/clientAddress", IssueSeverity::error},
    {"createdAt number", "createdAt", "1727092800", FeedbackReason::wrong_json_type, "/createdAt",
     IssueSeverity::error},
    {"createdAt not RFC 3339", "createdAt", R"("23/09/2025")", FeedbackReason::bad_created_at,
     "/createdAt", IssueSeverity::warning},
    {"value fractional", "value", "99.77", FeedbackReason::bad_value, "/value",
     IssueSeverity::error},
    {"value exponent", "value", "1e2", FeedbackReason::bad_value, "/value", IssueSeverity::error},
    {"value beyond 1e38", "value", "100000000000000000000000000000000000001",
     FeedbackReason::bad_value, "/value", IssueSeverity::error},
    {"value bool", "value", "true", FeedbackReason::bad_value, "/value", IssueSeverity::error},
    {"valueDecimals 19", "valueDecimals", "19", FeedbackReason::bad_value_decimals,
     "/valueDecimals", IssueSeverity::error},
    {"valueDecimals negative", "valueDecimals", "-1", FeedbackReason::bad_value_decimals,
     "/valueDecimals", IssueSeverity::error},
    {"valueDecimals string", "valueDecimals", R"("2")", FeedbackReason::bad_value_decimals,
     "/valueDecimals", IssueSeverity::error},
    {"tag1 number", "tag1", "1", FeedbackReason::wrong_json_type, "/tag1", IssueSeverity::error},
    {"mcp string", "mcp", R"("ToolName")", FeedbackReason::wrong_json_type, "/mcp",
     IssueSeverity::error},
    {"mcp unknown kind", "mcp", R"({"function":"f"})", FeedbackReason::bad_optional_field, "/mcp",
     IssueSeverity::warning},
    {"a2a skills not array", "a2a", R"({"skills":"s"})", FeedbackReason::bad_optional_field,
     "/a2a/skills", IssueSeverity::warning},
    {"proofOfPayment without txHash", "proofOfPayment",
     R"({"fromAddress":"0x00","toAddress":"0x00","chainId":"1"})",
     FeedbackReason::bad_optional_field, "/proofOfPayment/txHash", IssueSeverity::warning},
};

TEST(core_feedback_file, each_rule_detected_on_edited_spec_example) {
    for (const Edit& e : kEdits) {
        auto doc = parse_json(example_text());
        ASSERT_TRUE(doc);
        auto& obj = doc->as_object();
        std::erase_if(obj, [&](const JsonMember& m) { return m.key == e.key; });
        if (e.json != nullptr) {
            auto v = parse_json(std::string_view(e.json));
            ASSERT_TRUE(v) << e.json;
            obj.push_back({e.key, *v});
        }
        const FeedbackReport r = validate_feedback_file(*doc);
        EXPECT_TRUE(has(r, e.reason, e.path, e.severity)) << e.name << "\n" << dump(r);
        EXPECT_EQ(r.ok(), e.severity == IssueSeverity::warning) << e.name << "\n" << dump(r);
    }
}

TEST(core_feedback_file, value_as_string_accepted) {
    auto doc = parse_json(example_text());
    ASSERT_TRUE(doc);
    for (auto& m : doc->as_object())
        if (m.key == "value") m.value = JsonValue("-32");
    const auto r = validate_feedback_file(*doc);
    EXPECT_TRUE(r.ok()) << dump(r);
    EXPECT_EQ(r.file.value.value, Int256(-32));
    auto not_object = validate_feedback_file(std::string_view("[1]"));
    ASSERT_TRUE(not_object);
    EXPECT_TRUE(has(*not_object, FeedbackReason::not_an_object, ""));
    EXPECT_FALSE(validate_feedback_file(std::string_view("{")));
}

}  // namespace
