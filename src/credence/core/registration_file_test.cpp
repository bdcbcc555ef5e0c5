// Tests of the ERC-8004 registration-file validator. The valid document is the spec's own example,
// extracted at run time from erc-8004.md (§Agent URI and Agent Registration File): its jsonc
// comments are stripped and its agentRegistry placeholder is filled with the deployed mainnet
// IdentityRegistry from vectors/erc8004.json. Each rule is then tested by mutating that document.
#include <credence/core/registration_file.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <credence/core/address.hpp>
#include <credence/core/json.hpp>

#include "support/erc_examples.hpp"
#include "support/vectors.hpp"

namespace {

using namespace credence::core;
using credence::testing::drop_trailing_commas;
using credence::testing::read_erc_example;
using credence::testing::replace_all;
using credence::testing::strip_jsonc_comments;

std::string mainnet_identity() {
    return credence::testing::read_vector_json("erc8004.json")["deployed"]["mainnets"]["identity"]
        .get<std::string>();
}

std::string raw_example() {
    return drop_trailing_commas(
        strip_jsonc_comments(read_erc_example("erc8004-registration-file.jsonc")));
}

std::string filled_example() {
    std::string doc = raw_example();
    replace_all(doc, "{namespace}:{chainId}:{identityRegistry}", "eip155:1:" + mainnet_identity());
    return doc;
}

JsonValue example_dom() {
    auto doc = parse_json(filled_example());
    EXPECT_TRUE(doc) << filled_example();
    return doc ? *doc : JsonValue();
}

JsonValue& member(JsonValue& obj, std::string_view key) {
    for (auto& m : obj.as_object())
        if (m.key == key) return m.value;
    obj.as_object().push_back({std::string(key), JsonValue()});
    return obj.as_object().back().value;
}

void erase(JsonValue& obj, std::string_view key) {
    auto& o = obj.as_object();
    std::erase_if(o, [&](const JsonMember& m) { return m.key == key; });
}

bool has(const RegistrationReport& r, RegistrationReason reason, const std::string& path,
         IssueSeverity sev) {
    for (const auto& i : r.issues)
        if (i.reason == reason && i.path == path && i.severity == sev) return true;
    return false;
}

std::string dump(const RegistrationReport& r) {
    std::string s;
    for (const auto& i : r.issues) {
        s += std::string(to_string(i.severity)) + " " + std::string(to_string(i.reason)) + " " +
             i.path + ": " + i.message + "\n";
    }
    return s;
}

// A file written to the intermediate revision's shape: its list is "endpoints", read as the
// services with one warning, not a missing "services" error.
TEST(core_registration_file, intermediate_revision_example_reads_endpoints_as_services) {
    std::string doc = drop_trailing_commas(
        strip_jsonc_comments(read_erc_example("erc8004-intermediate-registration-file.jsonc")));
    replace_all(doc, "{namespace}:{chainId}:{identityRegistry}", "eip155:1:" + mainnet_identity());
    auto report = validate_registration_file(doc);
    ASSERT_TRUE(report);
    EXPECT_TRUE(report->ok()) << dump(*report);
    const RegistrationFile& f = report->file;
    EXPECT_EQ(f.services_member, "endpoints");
    ASSERT_EQ(f.services.size(), 7U);
    EXPECT_EQ(f.services[1].name, "A2A");
    EXPECT_EQ(f.services[1].endpoint, "https://agent.example/.well-known/agent-card.json");
    EXPECT_TRUE(
        has(*report, RegistrationReason::earlier_revision, "/endpoints", IssueSeverity::warning))
        << dump(*report);
    EXPECT_FALSE(
        has(*report, RegistrationReason::missing_field, "/services", IssueSeverity::error));
    EXPECT_FALSE(
        has(*report, RegistrationReason::unknown_field, "/endpoints", IssueSeverity::warning));
    // Entries are judged by that revision's structure: its MCP entry's "capabilities" is OPTIONAL.
    EXPECT_FALSE(has(*report, RegistrationReason::unknown_field, "/endpoints/2/capabilities",
                     IssueSeverity::warning))
        << dump(*report);
}

// With both members, "services" is the list and "endpoints" an unknown member.
TEST(core_registration_file, services_win_over_endpoints) {
    JsonValue doc = example_dom();
    member(doc, "endpoints") = JsonValue(JsonValue::Array{});
    auto report = validate_registration_file(doc);
    EXPECT_EQ(report.file.services_member, "services");
    EXPECT_EQ(report.file.services.size(), 7U);
    EXPECT_TRUE(
        has(report, RegistrationReason::unknown_field, "/endpoints", IssueSeverity::warning))
        << dump(report);
}

TEST(core_registration_file, spec_example_validates) {
    auto report = validate_registration_file(filled_example());
    ASSERT_TRUE(report);
    EXPECT_TRUE(report->ok()) << dump(*report);
    const RegistrationFile& f = report->file;
    EXPECT_EQ(f.type, kRegistrationTypeV1);
    EXPECT_EQ(f.name, "myAgentName");
    EXPECT_EQ(f.services.size(), 7U);
    EXPECT_EQ(f.services[0].name, "web");
    EXPECT_FALSE(f.services[0].version.has_value());
    EXPECT_EQ(f.services[1].version, "0.3.0");
    EXPECT_EQ(f.x402_support, false);
    EXPECT_EQ(f.active, true);
    ASSERT_EQ(f.registrations.size(), 1U);
    EXPECT_EQ(f.registrations[0].agent_id, Uint256{22});
    EXPECT_EQ(f.supported_trust.size(), 3U);
    // The example's "web" and "email" services have no version: SHOULD -> warnings only.
    EXPECT_TRUE(has(*report, RegistrationReason::missing_recommended, "/services/0/version",
                    IssueSeverity::warning));
    EXPECT_TRUE(has(*report, RegistrationReason::missing_recommended, "/services/6/version",
                    IssueSeverity::warning));
}

TEST(core_registration_file, spec_placeholder_agent_registry_is_rejected) {
    auto report = validate_registration_file(raw_example());
    ASSERT_TRUE(report);
    EXPECT_FALSE(report->ok());
    EXPECT_TRUE(has(*report, RegistrationReason::bad_agent_registry,
                    "/registrations/0/agentRegistry", IssueSeverity::error))
        << dump(*report);
}

TEST(core_registration_file, matches_on_chain_agent) {
    auto report = validate_registration_file(filled_example());
    ASSERT_TRUE(report);
    const auto addr = Address::from_hex(mainnet_identity());
    ASSERT_TRUE(addr);
    EXPECT_EQ(find_registration(report->file, 1, addr->bytes, Uint256{22}), 0U);
    EXPECT_FALSE(find_registration(report->file, 1, addr->bytes, Uint256{23}));
    EXPECT_FALSE(find_registration(report->file, 8453, addr->bytes, Uint256{22}));
    auto other = addr->bytes;
    other[19] ^= 1;
    EXPECT_FALSE(find_registration(report->file, 1, other, Uint256{22}));
    EXPECT_TRUE(registration_matches(report->file.registrations[0], 1, addr->bytes, Uint256{22}));
}

struct Mutation {
    const char* name;
    void (*apply)(JsonValue&);
    RegistrationReason reason;
    const char* path;
    IssueSeverity severity;
};

const Mutation kMutations[] = {
    {"missing type", [](JsonValue& d) { erase(d, "type"); }, RegistrationReason::missing_field,
     "/type", IssueSeverity::error},
    {"wrong type uri",
     [](JsonValue& d) {
         member(d, "type") = JsonValue("https://eips.ethereum.org/EIPS/eip-8004#registration-v2");
     },
     RegistrationReason::wrong_type_uri, "/type", IssueSeverity::error},
    {"type not a string", [](JsonValue& d) { member(d, "type") = JsonValue(1.0); },
     RegistrationReason::wrong_json_type, "/type", IssueSeverity::error},
    {"missing name", [](JsonValue& d) { erase(d, "name"); }, RegistrationReason::missing_field,
     "/name", IssueSeverity::error},
    {"empty name", [](JsonValue& d) { member(d, "name") = JsonValue(""); },
     RegistrationReason::empty_string, "/name", IssueSeverity::error},
    {"name not a string", [](JsonValue& d) { member(d, "name") = JsonValue(true); },
     RegistrationReason::wrong_json_type, "/name", IssueSeverity::error},
    {"missing description", [](JsonValue& d) { erase(d, "description"); },
     RegistrationReason::missing_field, "/description", IssueSeverity::error},
    {"missing image", [](JsonValue& d) { erase(d, "image"); }, RegistrationReason::missing_field,
     "/image", IssueSeverity::error},
    {"missing services", [](JsonValue& d) { erase(d, "services"); },
     RegistrationReason::missing_field, "/services", IssueSeverity::error},
    {"services not an array", [](JsonValue& d) { member(d, "services") = JsonValue("web"); },
     RegistrationReason::wrong_json_type, "/services", IssueSeverity::error},
    {"service not an object",
     [](JsonValue& d) { member(d, "services").as_array()[2] = JsonValue("mcp"); },
     RegistrationReason::not_an_object, "/services/2", IssueSeverity::error},
    {"service without endpoint",
     [](JsonValue& d) { erase(member(d, "services").as_array()[1], "endpoint"); },
     RegistrationReason::missing_field, "/services/1/endpoint", IssueSeverity::error},
    {"service without name",
     [](JsonValue& d) { erase(member(d, "services").as_array()[1], "name"); },
     RegistrationReason::missing_field, "/services/1/name", IssueSeverity::error},
    {"service version not a string",
     [](JsonValue& d) { member(member(d, "services").as_array()[1], "version") = JsonValue(3.0); },
     RegistrationReason::wrong_json_type, "/services/1/version", IssueSeverity::error},
    {"OASF skills not an array",
     [](JsonValue& d) { member(member(d, "services").as_array()[3], "skills") = JsonValue("x"); },
     RegistrationReason::wrong_json_type, "/services/3/skills", IssueSeverity::error},
    {"OASF domain not a string",
     [](JsonValue& d) {
         member(member(d, "services").as_array()[3], "domains")
             .as_array()
             .push_back(JsonValue(1.0));
     },
     RegistrationReason::wrong_json_type, "/services/3/domains/0", IssueSeverity::error},
    {"x402Support not a bool", [](JsonValue& d) { member(d, "x402Support") = JsonValue("no"); },
     RegistrationReason::wrong_json_type, "/x402Support", IssueSeverity::error},
    {"active missing", [](JsonValue& d) { erase(d, "active"); },
     RegistrationReason::missing_recommended, "/active", IssueSeverity::warning},
    {"registrations not an array",
     [](JsonValue& d) { member(d, "registrations") = JsonValue(JsonValue::Object{}); },
     RegistrationReason::wrong_json_type, "/registrations", IssueSeverity::error},
    {"registrations missing", [](JsonValue& d) { erase(d, "registrations"); },
     RegistrationReason::no_registrations, "/registrations", IssueSeverity::warning},
    {"registrations empty",
     [](JsonValue& d) { member(d, "registrations") = JsonValue(JsonValue::Array{}); },
     RegistrationReason::no_registrations, "/registrations", IssueSeverity::warning},
    {"registration not an object",
     [](JsonValue& d) { member(d, "registrations").as_array()[0] = JsonValue(22.0); },
     RegistrationReason::not_an_object, "/registrations/0", IssueSeverity::error},
    {"negative agentId",
     [](JsonValue& d) {
         member(member(d, "registrations").as_array()[0], "agentId") =
             JsonValue(JsonNumber{-22, "-22"});
     },
     RegistrationReason::bad_agent_id, "/registrations/0/agentId", IssueSeverity::error},
    {"fractional agentId",
     [](JsonValue& d) {
         member(member(d, "registrations").as_array()[0], "agentId") =
             JsonValue(JsonNumber{22.5, "22.5"});
     },
     RegistrationReason::bad_agent_id, "/registrations/0/agentId", IssueSeverity::error},
    {"exponent agentId",
     [](JsonValue& d) {
         member(member(d, "registrations").as_array()[0], "agentId") =
             JsonValue(JsonNumber{22, "2.2e1"});
     },
     RegistrationReason::bad_agent_id, "/registrations/0/agentId", IssueSeverity::error},
    {"string agentId",
     [](JsonValue& d) {
         member(member(d, "registrations").as_array()[0], "agentId") = JsonValue("22");
     },
     RegistrationReason::bad_agent_id, "/registrations/0/agentId", IssueSeverity::error},
    {"agentId >= 2^256",
     [](JsonValue& d) {
         member(member(d, "registrations").as_array()[0], "agentId") = JsonValue(JsonNumber{
             1.2e77,
             "115792089237316195423570985008687907853269984665640564039457584007913129639936"});
     },
     RegistrationReason::bad_agent_id, "/registrations/0/agentId", IssueSeverity::error},
    {"missing agentId",
     [](JsonValue& d) { erase(member(d, "registrations").as_array()[0], "agentId"); },
     RegistrationReason::missing_field, "/registrations/0/agentId", IssueSeverity::error},
    {"missing agentRegistry",
     [](JsonValue& d) { erase(member(d, "registrations").as_array()[0], "agentRegistry"); },
     RegistrationReason::missing_field, "/registrations/0/agentRegistry", IssueSeverity::error},
    {"agentRegistry without chain",
     [](JsonValue& d) {
         member(member(d, "registrations").as_array()[0], "agentRegistry") =
             JsonValue("eip155:0x8004A169FB4a3325136EB29fA0ceB6D2e539a432");
     },
     RegistrationReason::bad_agent_registry, "/registrations/0/agentRegistry",
     IssueSeverity::error},
    {"agentRegistry bad checksum",
     [](JsonValue& d) {
         member(member(d, "registrations").as_array()[0], "agentRegistry") =
             JsonValue("eip155:1:0x8004a169FB4a3325136EB29fA0ceB6D2e539a432");
     },
     RegistrationReason::bad_agent_registry, "/registrations/0/agentRegistry",
     IssueSeverity::error},
    {"agentRegistry not a string",
     [](JsonValue& d) {
         member(member(d, "registrations").as_array()[0], "agentRegistry") = JsonValue(1.0);
     },
     RegistrationReason::wrong_json_type, "/registrations/0/agentRegistry", IssueSeverity::error},
    {"duplicate registration",
     [](JsonValue& d) {
         auto& a = member(d, "registrations").as_array();
         a.push_back(a[0]);
     },
     RegistrationReason::duplicate_entry, "/registrations/1", IssueSeverity::warning},
    {"supportedTrust not an array",
     [](JsonValue& d) { member(d, "supportedTrust") = JsonValue("x"); },
     RegistrationReason::wrong_json_type, "/supportedTrust", IssueSeverity::error},
    {"unknown trust model",
     [](JsonValue& d) { member(d, "supportedTrust").as_array().push_back(JsonValue("vibes")); },
     RegistrationReason::unknown_trust_model, "/supportedTrust/3", IssueSeverity::warning},
    {"duplicate trust model",
     [](JsonValue& d) {
         member(d, "supportedTrust").as_array().push_back(JsonValue("reputation"));
     },
     RegistrationReason::duplicate_entry, "/supportedTrust/3", IssueSeverity::warning},
    {"unknown top-level member", [](JsonValue& d) { member(d, "a/b~c") = JsonValue(1.0); },
     RegistrationReason::unknown_field, "/a~1b~0c", IssueSeverity::warning},
    {"old endpoints name",
     [](JsonValue& d) { member(d, "endpoints") = JsonValue(JsonValue::Array{}); },
     RegistrationReason::unknown_field, "/endpoints", IssueSeverity::warning},
};

TEST(core_registration_file, each_rule_detected_on_mutated_spec_example) {
    for (const Mutation& m : kMutations) {
        JsonValue doc = example_dom();
        m.apply(doc);
        const RegistrationReport r = validate_registration_file(doc);
        EXPECT_TRUE(has(r, m.reason, m.path, m.severity)) << m.name << "\n" << dump(r);
        EXPECT_EQ(r.ok(), m.severity == IssueSeverity::warning) << m.name << "\n" << dump(r);
    }
}

TEST(core_registration_file, not_an_object_or_not_json) {
    auto r = validate_registration_file(std::string_view("[]"));
    ASSERT_TRUE(r);
    EXPECT_TRUE(has(*r, RegistrationReason::not_an_object, "", IssueSeverity::error));
    EXPECT_FALSE(validate_registration_file(std::string_view("{\"name\": ")));
    // Strict parser: duplicate names are rejected before validation.
    EXPECT_EQ(validate_registration_file(std::string_view("{\"name\":\"a\",\"name\":\"b\"}"))
                  .error()
                  .code,
              JsonError::duplicate_key);
}

TEST(core_registration_file, large_agent_id_exact) {
    JsonValue doc = example_dom();
    const std::string big = "123456789012345678901234567890";
    member(member(doc, "registrations").as_array()[0], "agentId") =
        JsonValue(JsonNumber{1.2e29, big});
    const auto r = validate_registration_file(doc);
    ASSERT_TRUE(r.ok()) << dump(r);
    EXPECT_EQ(r.file.registrations[0].agent_id, *Uint256::from_dec(big));
}

}  // namespace
