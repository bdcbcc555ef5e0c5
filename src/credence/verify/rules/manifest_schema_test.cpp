// ERC-8257 §2-§5 and §Manifest Parser Hardening: one test per rule, on the ERC's own examples
// (read from the spec text at run time) and mutations of them.
#include <credence/verify/rules/manifest_schema.hpp>

#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/erc_examples.hpp"

namespace {

using credence::core::IssueSeverity;
using credence::verify::ManifestReason;
using credence::verify::ManifestReport;
using credence::verify::TrustTier;
using credence::verify::validate_manifest;
using nlohmann::json;

// ERC-8257's own examples (tests/data/erc-examples/README.md).
json spec_example(const std::string& file) {
    const std::string text = credence::testing::read_erc_example(file);
    EXPECT_FALSE(text.empty()) << file;
    return json::parse(text);
}

ManifestReport validate(const json& m) {
    auto doc = credence::core::parse_json(m.dump());
    EXPECT_TRUE(doc.has_value());
    return validate_manifest(*doc);
}

bool has(const ManifestReport& r, ManifestReason reason, const std::string& path,
         IssueSeverity severity = IssueSeverity::error) {
    return std::any_of(r.issues.begin(), r.issues.end(), [&](const auto& i) {
        return i.reason == reason && i.path == path && i.severity == severity;
    });
}

std::string dump(const ManifestReport& r) {
    std::string out;
    for (const auto& i : r.issues)
        out += std::string(to_string(i.reason)) + " " + std::string(to_string(i.severity)) + " " +
               i.path + ": " + i.message + "\n";
    return out;
}

json free_tool() { return spec_example("erc8257-free-tool-manifest.json"); }

// The spec's two §2 examples are valid, with no issue at all.
TEST(verify_manifest_schema, spec_examples_are_valid) {
    for (const char* h : {"erc8257-free-tool-manifest.json", "erc8257-paid-tool-manifest.json"}) {
        const auto r = validate(spec_example(h));
        EXPECT_TRUE(r.ok()) << h << "\n" << dump(r);
        EXPECT_TRUE(r.issues.empty()) << h << "\n" << dump(r);
        ASSERT_TRUE(r.creator.has_value());
    }
    auto paid = spec_example("erc8257-paid-tool-manifest.json");
    EXPECT_EQ(validate(paid).creator->to_lower_hex(), paid["creatorAddress"]);
}

// §3 and §4 examples plugged into the free tool are valid too.
TEST(verify_manifest_schema, spec_pricing_and_access_examples_are_valid) {
    auto m = free_tool();
    m["pricing"] = spec_example("erc8257-pricing-native-eth.json")["pricing"];
    m["access"] = spec_example("erc8257-access.json")["access"];
    const auto r = validate(m);
    EXPECT_TRUE(r.issues.empty()) << dump(r);
    m["pricing"] = spec_example("erc8257-pricing-multi-option.json")["pricing"];
    EXPECT_TRUE(validate(m).issues.empty());
}

// §5: the three examples are consistent; the effective tier equals the declared one.
TEST(verify_manifest_schema, spec_verifiability_examples_are_consistent) {
    const std::pair<const char*, TrustTier> cases[] = {
        {"erc8257-verifiability-self-attested.json", TrustTier::self_attested},
        {"erc8257-verifiability-hardware-attested.json", TrustTier::hardware_attested},
        {"erc8257-verifiability-verifiable.json", TrustTier::verifiable}};
    for (const auto& [heading, tier] : cases) {
        auto m = free_tool();
        m["verifiability"] = spec_example(heading)["verifiability"];
        const auto r = validate(m);
        EXPECT_TRUE(r.issues.empty()) << heading << "\n" << dump(r);
        EXPECT_EQ(r.declared_tier, tier);
        EXPECT_EQ(r.effective_tier, tier);
    }
}

struct Case {
    const char* what;
    std::function<void(json&)> mutate;
    ManifestReason reason;
    const char* path;
};

void run_cases(const std::vector<Case>& cases, IssueSeverity severity = IssueSeverity::error) {
    for (const auto& c : cases) {
        auto m = free_tool();
        c.mutate(m);
        const auto r = validate(m);
        EXPECT_TRUE(has(r, c.reason, c.path, severity))
            << c.what << ": expected " << to_string(c.reason) << " at " << c.path << "\n"
            << dump(r);
        if (severity == IssueSeverity::error) {
            EXPECT_FALSE(r.ok()) << c.what;
        }
    }
}

const json kPricing = {{"amount", "1"},
                       {"asset", "eip155:1/slip44:60"},
                       {"recipient", "eip155:1:0xabcdef0123456789abcdef0123456789abcdef01"},
                       {"protocol", "x402"}};
const json kRequirement = {{"kind", "0xabcd1234"}, {"data", "0x"}, {"label", "hold a token"}};

// §2 Required Fields, one broken field each.
TEST(verify_manifest_schema, required_fields_and_their_grammars) {
    run_cases({
        {"not an object", [](json& m) { m = json::array(); }, ManifestReason::not_an_object, ""},
        {"type missing", [](json& m) { m.erase("type"); }, ManifestReason::missing_field, "/type"},
        {"unknown type", [](json& m) { m["type"] = "https://example.com/v0"; },
         ManifestReason::unknown_type, "/type"},
        {"name missing", [](json& m) { m.erase("name"); }, ManifestReason::missing_field, "/name"},
        {"name a number", [](json& m) { m["name"] = 5; }, ManifestReason::wrong_json_type, "/name"},
        {"name empty", [](json& m) { m["name"] = ""; }, ManifestReason::bad_length, "/name"},
        {"name 129 code points",
         [](json& m) { m["name"] = std::string(129 * 2, 'a').substr(0, 129); },
         ManifestReason::bad_length, "/name"},
        {"name with TAB", [](json& m) { m["name"] = "a\tb"; }, ManifestReason::control_character,
         "/name"},
        {"name with C1 control",
         [](json& m) {
             m["name"] =
                 "a\xc2\x85"
                 "b";
         },
         ManifestReason::control_character, "/name"},
        {"name with DEL", [](json& m) { m["name"] = "a\x7f"; }, ManifestReason::control_character,
         "/name"},
        {"description 501", [](json& m) { m["description"] = std::string(501, 'd'); },
         ManifestReason::bad_length, "/description"},
        {"description with NUL", [](json& m) { m["description"] = std::string("a\0b", 3); },
         ManifestReason::control_character, "/description"},
        {"endpoint http", [](json& m) { m["endpoint"] = "http://tools.example.com/x"; },
         ManifestReason::bad_url, "/endpoint"},
        {"endpoint javascript", [](json& m) { m["endpoint"] = "javascript:alert(1)"; },
         ManifestReason::bad_url, "/endpoint"},
        {"endpoint not normalized",
         [](json& m) { m["endpoint"] = "https://Tools.example.com:443/x"; },
         ManifestReason::url_not_normalized, "/endpoint"},
        {"endpoint raw IDN",
         [](json& m) {
             m["endpoint"] =
                 "https://b\xc3\xbc"
                 "cher.example/x";
         },
         ManifestReason::bad_url, "/endpoint"},
        {"inputs missing", [](json& m) { m.erase("inputs"); }, ManifestReason::missing_field,
         "/inputs"},
        {"outputs a string", [](json& m) { m["outputs"] = "x"; }, ManifestReason::not_an_object,
         "/outputs"},
        {"creator missing", [](json& m) { m.erase("creatorAddress"); },
         ManifestReason::missing_field, "/creatorAddress"},
        {"creator short", [](json& m) { m["creatorAddress"] = "0x1234"; },
         ManifestReason::bad_creator_address, "/creatorAddress"},
        {"creator uppercase",
         [](json& m) { m["creatorAddress"] = "0xABCDEFabcdef1234567890abcdefabcdef123456"; },
         ManifestReason::bad_creator_address, "/creatorAddress"},
        {"creator zero",
         [](json& m) { m["creatorAddress"] = "0x0000000000000000000000000000000000000000"; },
         ManifestReason::zero_creator_address, "/creatorAddress"},
    });
    // Exactly 128 code points of a 2-byte character is fine (code points, not bytes).
    auto m = free_tool();
    std::string name;
    for (int i = 0; i < 128; ++i) name += "\xc3\xa9";
    m["name"] = name;
    m["description"] = "line one\nline two\r\n\tindented";  // LF, CR, TAB allowed (§2)
    EXPECT_TRUE(validate(m).ok()) << dump(validate(m));
}

// §2 Optional Fields: tags, image, featuredImage, version.
TEST(verify_manifest_schema, optional_fields) {
    run_cases({
        {"tags not an array", [](json& m) { m["tags"] = "nft"; }, ManifestReason::wrong_json_type,
         "/tags"},
        {"tag uppercase", [](json& m) { m["tags"] = {"NFT"}; }, ManifestReason::bad_tag, "/tags/0"},
        {"tag trailing hyphen", [](json& m) { m["tags"] = {"a", "nft-"}; }, ManifestReason::bad_tag,
         "/tags/1"},
        {"tag 33 chars", [](json& m) { m["tags"] = {std::string(33, 'a')}; },
         ManifestReason::bad_tag, "/tags/0"},
        {"tag duplicate", [](json& m) { m["tags"] = {"nft", "nft"}; },
         ManifestReason::duplicate_tag, "/tags/1"},
        {"17 tags",
         [](json& m) {
             m["tags"] = json::array();
             for (int i = 0; i < 17; ++i) m["tags"].push_back("t" + std::to_string(i));
         },
         ManifestReason::too_many_tags, "/tags"},
        {"image javascript", [](json& m) { m["image"] = "javascript:alert(1)"; },
         ManifestReason::forbidden_scheme, "/image"},
        {"featuredImage data:text/html",
         [](json& m) { m["featuredImage"] = "data:text/html,<script>x</script>"; },
         ManifestReason::forbidden_scheme, "/featuredImage"},
        {"image file:", [](json& m) { m["image"] = "FILE:///etc/passwd"; },
         ManifestReason::forbidden_scheme, "/image"},
        {"image over 2048 bytes",
         [](json& m) { m["image"] = "https://x.example/" + std::string(2048, 'a'); },
         ManifestReason::url_too_long, "/image"},
        {"version a number", [](json& m) { m["version"] = 1; }, ManifestReason::wrong_json_type,
         "/version"},
    });
}

// §3 Pricing.
TEST(verify_manifest_schema, pricing_rules) {
    auto with = [](json entry) {
        return [entry](json& m) { m["pricing"] = json::array({entry}); };
    };
    auto set = [](const char* key, json value) {
        json e = kPricing;
        e[key] = std::move(value);
        return e;
    };
    json no_protocol = kPricing;
    no_protocol.erase("protocol");
    run_cases({
        {"null", [](json& m) { m["pricing"] = nullptr; }, ManifestReason::empty_array, "/pricing"},
        {"empty", [](json& m) { m["pricing"] = json::array(); }, ManifestReason::empty_array,
         "/pricing"},
        {"object", [](json& m) { m["pricing"] = json::object(); }, ManifestReason::wrong_json_type,
         "/pricing"},
        {"33 entries",
         [](json& m) {
             m["pricing"] = json::array();
             for (int i = 0; i < 33; ++i) m["pricing"].push_back(kPricing);
         },
         ManifestReason::too_many_entries, "/pricing"},
        {"entry not object", [](json& m) { m["pricing"] = {1}; }, ManifestReason::not_an_object,
         "/pricing/0"},
        {"protocol missing", with(no_protocol), ManifestReason::missing_field,
         "/pricing/0/protocol"},
        {"amount leading zero", with(set("amount", "020")), ManifestReason::bad_amount,
         "/pricing/0/amount"},
        {"amount sign", with(set("amount", "+1")), ManifestReason::bad_amount, "/pricing/0/amount"},
        {"amount decimal", with(set("amount", "1.5")), ManifestReason::bad_amount,
         "/pricing/0/amount"},
        {"amount a number", with(set("amount", 1)), ManifestReason::wrong_json_type,
         "/pricing/0/amount"},
        // 2^256 = 115792089237316195423570985008687907853269984665640564039457584007913129639936
        {"amount 2^256",
         with(
             set("amount",
                 "115792089237316195423570985008687907853269984665640564039457584007913129639936")),
         ManifestReason::bad_amount, "/pricing/0/amount"},
        {"amount 79 digits", with(set("amount", "1" + std::string(78, '0'))),
         ManifestReason::bad_amount, "/pricing/0/amount"},
        {"asset not CAIP-19", with(set("asset", "eth")), ManifestReason::bad_asset,
         "/pricing/0/asset"},
        {"recipient not CAIP-10", with(set("recipient", "0xabc")), ManifestReason::bad_recipient,
         "/pricing/0/recipient"},
        {"recipient zero",
         with(set("recipient", "eip155:1:0x0000000000000000000000000000000000000000")),
         ManifestReason::bad_recipient, "/pricing/0/recipient"},
        {"chain mismatch",
         with(set("recipient", "eip155:8453:0xabcdef0123456789abcdef0123456789abcdef01")),
         ManifestReason::chain_mismatch, "/pricing/0"},
    });
    // uint256 max itself is accepted, and "0".
    auto m = free_tool();
    m["pricing"] = {
        set("amount",
            "115792089237316195423570985008687907853269984665640564039457584007913129639935"),
        set("amount", "0")};
    EXPECT_TRUE(validate(m).ok()) << dump(validate(m));
}

// §4 Access.
TEST(verify_manifest_schema, access_rules) {
    auto with = [](json req) {
        return [req](json& m) { m["access"] = {{"logic", "AND"}, {"requirements", {req}}}; };
    };
    auto set = [](const char* key, json value) {
        json r = kRequirement;
        r[key] = std::move(value);
        return r;
    };
    run_cases({
        {"not an object", [](json& m) { m["access"] = json::array(); },
         ManifestReason::not_an_object, "/access"},
        {"requirements missing", [](json& m) { m["access"] = {{"logic", "OR"}}; },
         ManifestReason::missing_field, "/access/requirements"},
        {"requirements null", [](json& m) { m["access"] = {{"requirements", nullptr}}; },
         ManifestReason::empty_array, "/access/requirements"},
        {"requirements empty", [](json& m) { m["access"] = {{"requirements", json::array()}}; },
         ManifestReason::empty_array, "/access/requirements"},
        {"logic XOR",
         [](json& m) { m["access"] = {{"logic", "XOR"}, {"requirements", {kRequirement}}}; },
         ManifestReason::bad_logic, "/access/logic"},
        {"257 requirements",
         [](json& m) {
             m["access"] = {{"requirements", json::array()}};
             for (int i = 0; i < 257; ++i) m["access"]["requirements"].push_back(kRequirement);
         },
         ManifestReason::too_many_entries, "/access/requirements"},
        {"kind 3 bytes", with(set("kind", "0xabcd12")), ManifestReason::bad_kind,
         "/access/requirements/0/kind"},
        {"kind no 0x", with(set("kind", "abcd1234")), ManifestReason::bad_kind,
         "/access/requirements/0/kind"},
        {"data odd", with(set("data", "0xabc")), ManifestReason::bad_data,
         "/access/requirements/0/data"},
        {"data 4097 bytes", with(set("data", "0x" + std::string(4097 * 2, 'a'))),
         ManifestReason::data_too_large, "/access/requirements/0/data"},
        {"label 257 bytes", with(set("label", std::string(257, 'l'))), ManifestReason::bad_length,
         "/access/requirements/0/label"},
        {"links http", with(set("links", {{"buy", "http://x.example/"}})), ManifestReason::bad_url,
         "/access/requirements/0/links/buy"},
        {"links data:", with(set("links", {{"a/b", "data:text/plain,x"}})), ManifestReason::bad_url,
         "/access/requirements/0/links/a~1b"},
        {"links over cap",
         with(set("links", {{"docs", "https://x.example/" + std::string(2048, 'a')}})),
         ManifestReason::url_too_long, "/access/requirements/0/links/docs"},
    });
    // 4,096 decoded bytes is exactly the cap (§Manifest Parser Hardening: decoded, not hex).
    auto m = free_tool();
    with(set("data", "0x" + std::string(4096 * 2, 'a')))(m);
    EXPECT_TRUE(validate(m).ok()) << dump(validate(m));
}

// §5 Verifiability: field grammars (errors) and the three tier inconsistencies (warnings).
TEST(verify_manifest_schema, verifiability_rules) {
    const json tee = spec_example("erc8257-verifiability-hardware-attested.json")["verifiability"];
    auto with = [](json v) { return [v](json& m) { m["verifiability"] = v; }; };
    auto edit = [&](std::function<void(json&)> f) {
        json v = tee;
        f(v);
        return v;
    };
    run_cases({
        {"not an object", with(json(1)), ManifestReason::not_an_object, "/verifiability"},
        {"tier missing", with(edit([](json& v) { v.erase("tier"); })),
         ManifestReason::missing_field, "/verifiability/tier"},
        {"execution missing", with(edit([](json& v) { v.erase("execution"); })),
         ManifestReason::missing_field, "/verifiability/execution"},
        {"enclaveHash odd", with(edit([](json& v) { v["attestation"]["enclaveHash"] = "0xabc"; })),
         ManifestReason::bad_hex, "/verifiability/attestation/enclaveHash"},
        {"enclaveHash empty", with(edit([](json& v) { v["attestation"]["enclaveHash"] = "0x"; })),
         ManifestReason::bad_hex, "/verifiability/attestation/enclaveHash"},
        {"attestation endpoint http",
         with(edit([](json& v) { v["attestation"]["endpoint"] = "http://x.example/a"; })),
         ManifestReason::bad_url, "/verifiability/attestation/endpoint"},
        {"attestation type missing", with(edit([](json& v) { v["attestation"].erase("type"); })),
         ManifestReason::missing_field, "/verifiability/attestation/type"},
        {"maxAge negative", with(edit([](json& v) { v["attestation"]["maxAge"] = -1; })),
         ManifestReason::bad_integer, "/verifiability/attestation/maxAge"},
        {"maxAge fraction", with(edit([](json& v) { v["attestation"]["maxAge"] = 1.5; })),
         ManifestReason::bad_integer, "/verifiability/attestation/maxAge"},
        {"transparency log http",
         with(edit([](json& v) { v["attestation"]["transparencyLogURI"] = "http://r.example/"; })),
         ManifestReason::bad_url, "/verifiability/attestation/transparencyLogURI"},
        {"sourceCodeURI missing",
         with(edit([](json& v) { v["reproducibleBuild"] = {{"buildHash", "0xab"}}; })),
         ManifestReason::missing_field, "/verifiability/reproducibleBuild/sourceCodeURI"},
        {"buildHash uppercase-free grammar", with(edit([](json& v) {
             v["reproducibleBuild"] = {{"sourceCodeURI", "https://g.example/x"},
                                       {"buildHash", "abcd"}};
         })),
         ManifestReason::bad_hex, "/verifiability/reproducibleBuild/buildHash"},
        {"description control",
         with(edit([](json& v) { v["description"] = std::string("a\x01", 2); })),
         ManifestReason::control_character, "/verifiability/description"},
    });
    // §5 Trust Tiers: "A manifest is inconsistent if any of the following hold" -> flagged.
    run_cases(
        {
            {"verifiable without reproducibleBuild",
             with(edit([](json& v) { v["tier"] = "verifiable"; })),
             ManifestReason::inconsistent_tier, "/verifiability/tier"},
            {"hardware-attested on standard",
             with(edit([](json& v) { v["execution"] = "standard"; })),
             ManifestReason::inconsistent_tier, "/verifiability/tier"},
            {"hardware-attested without attestation",
             with(edit([](json& v) { v.erase("attestation"); })), ManifestReason::inconsistent_tier,
             "/verifiability/tier"},
            {"self-attested on tee", with(edit([](json& v) {
                 v["tier"] = "self-attested";
                 v.erase("attestation");
             })),
             ManifestReason::inconsistent_tier, "/verifiability/tier"},
            {"self-attested with attestation", with(edit([](json& v) {
                 v["tier"] = "self-attested";
                 v["execution"] = "standard";
             })),
             ManifestReason::inconsistent_tier, "/verifiability/tier"},
            {"unknown tier", with(edit([](json& v) { v["tier"] = "gold"; })),
             ManifestReason::unknown_value, "/verifiability/tier"},
            {"unknown retention", with(edit([](json& v) { v["dataRetention"] = "forever"; })),
             ManifestReason::unknown_value, "/verifiability/dataRetention"},
        },
        IssueSeverity::warning);
    // Inconsistent claims are warnings, not rejections; the effective tier is the lower one.
    auto m = free_tool();
    m["verifiability"] = edit([](json& v) { v["tier"] = "verifiable"; });
    const auto r = validate(m);
    EXPECT_TRUE(r.ok()) << dump(r);
    EXPECT_EQ(r.declared_tier, TrustTier::verifiable);
    EXPECT_EQ(r.effective_tier, TrustTier::hardware_attested);
    // A vendor execution value (reverse-DNS) is allowed and counts as "standard".
    m["verifiability"] = {{"tier", "self-attested"}, {"execution", "io.phala.tee-sidevm"}};
    EXPECT_TRUE(validate(m).issues.empty()) << dump(validate(m));
}

json nested_schema(size_t depth) {
    json s = {{"type", "string"}};
    for (size_t i = 1; i < depth; ++i) s = {{"type", "object"}, {"properties", {{"p", s}}}};
    return s;
}

// §Manifest Parser Hardening: depth 16, 1,024 nodes over inputs + outputs.
TEST(verify_manifest_schema, schema_depth_and_node_caps) {
    auto m = free_tool();
    m["inputs"] = nested_schema(16);
    EXPECT_TRUE(validate(m).ok()) << dump(validate(m));
    m["inputs"] = nested_schema(17);
    std::string deepest = "/inputs";
    for (int i = 0; i < 16; ++i) deepest += "/properties/p";
    EXPECT_TRUE(has(validate(m), ManifestReason::schema_too_deep, deepest)) << dump(validate(m));

    // 1,024 nodes in total is fine; 1,025 is not. `{}` counts as one node.
    auto wide = [](size_t n) {
        json s = {{"type", "object"}, {"properties", json::object()}};
        for (size_t i = 0; i + 1 < n; ++i)
            s["properties"]["p" + std::to_string(i)] = json::object();
        return s;
    };
    m = free_tool();
    m["inputs"] = wide(1023);
    m["outputs"] = json::object();
    auto ok = validate(m);
    EXPECT_TRUE(ok.ok()) << dump(ok);
    EXPECT_EQ(ok.schema_nodes, 1024u);
    m["outputs"] = wide(2);
    EXPECT_TRUE(has(validate(m), ManifestReason::too_many_schema_nodes, "/outputs/properties/p0"))
        << dump(validate(m));
}

// §Manifest Parser Hardening counts every schema node, so the walk enters every JSON Schema
// 2020-12 keyword whose value is a subschema (Core §10 applicators, §8.2.4 $defs, Validation
// §8.2.4 contentSchema) and the draft-07 `definitions` / `dependencies` (schema form).
TEST(verify_manifest_schema, node_cap_applies_inside_every_subschema_keyword) {
    const json sub = json::object();
    const std::vector<std::pair<std::string, json>> placements = {
        {"allOf", json::array({sub})},
        {"anyOf", json::array({sub})},
        {"oneOf", json::array({sub})},
        {"not", sub},
        {"if", sub},
        {"then", sub},
        {"else", sub},
        {"dependentSchemas", {{"a", sub}}},
        {"prefixItems", json::array({sub})},
        {"items", sub},
        {"contains", sub},
        {"properties", {{"a", sub}}},
        {"patternProperties", {{"^a", sub}}},
        {"additionalProperties", sub},
        {"propertyNames", sub},
        {"unevaluatedItems", sub},
        {"unevaluatedProperties", sub},
        {"contentSchema", sub},
        {"$defs", {{"a", sub}}},
        {"definitions", {{"a", sub}}},
        {"dependencies", {{"a", sub}, {"b", json::array({"a"})}}},
    };
    for (const auto& [keyword, value] : placements) {
        auto m = free_tool();
        m["inputs"] = {{keyword, value}};
        m["outputs"] = json::object();
        const auto r = validate(m);
        EXPECT_TRUE(r.ok()) << keyword << "\n" << dump(r);
        EXPECT_EQ(r.schema_nodes, 3u) << keyword;  // inputs, its subschema, outputs
    }

    // 1,024 nodes are fine; 1,025, the last ones inside contentSchema, are not.
    json wide = {{"type", "object"}, {"properties", json::object()}};
    for (size_t i = 0; i < 1021; ++i) wide["properties"]["p" + std::to_string(i)] = json::object();
    auto m = free_tool();
    m["inputs"] = json::object();
    m["outputs"] = {
        {"type", "string"}, {"contentMediaType", "application/json"}, {"contentSchema", wide}};
    EXPECT_TRUE(validate(m).ok()) << dump(validate(m));
    EXPECT_EQ(validate(m).schema_nodes, 1024u);
    m["outputs"]["contentSchema"]["properties"]["zz"] = json::object();
    EXPECT_TRUE(has(validate(m), ManifestReason::too_many_schema_nodes,
                    "/outputs/contentSchema/properties/zz"))
        << dump(validate(m));

    // The depth cap too: 17 levels, 16 of them under contentSchema.
    m["inputs"] = {{"contentSchema", nested_schema(16)}};
    m["outputs"] = json::object();
    ASSERT_FALSE(validate(m).ok()) << dump(validate(m));
    EXPECT_EQ(validate(m).first_error()->reason, ManifestReason::schema_too_deep);
}

// §2 Unknown Fields: ignored (never an error); bare names are flagged, namespaced ones are not.
TEST(verify_manifest_schema, unknown_fields_are_ignored_and_bare_ones_flagged) {
    auto m = free_tool();
    m["io.opensea.paymentHint"] = "x";
    m["x-opensea-paymentHint"] = "y";
    m["maxAge"] = 0;  // §Manifest Freshness: a known informal convention
    EXPECT_TRUE(validate(m).issues.empty()) << dump(validate(m));
    m["color"] = "blue";
    const auto r = validate(m);
    EXPECT_TRUE(r.ok());
    EXPECT_TRUE(has(r, ManifestReason::unknown_field, "/color", IssueSeverity::warning)) << dump(r);
}

// §Remote $ref: never resolved; flagged.
TEST(verify_manifest_schema, remote_ref_is_flagged) {
    auto m = free_tool();
    m["inputs"]["properties"]["x"] = {{"$ref", "http://169.254.169.254/latest"}};
    m["outputs"]["properties"]["y"] = {{"$ref", "#/definitions/y"}};
    const auto r = validate(m);
    EXPECT_TRUE(r.ok());
    EXPECT_TRUE(
        has(r, ManifestReason::remote_ref, "/inputs/properties/x/$ref", IssueSeverity::warning))
        << dump(r);
    EXPECT_EQ(r.issues.size(), 1u) << dump(r);
}

// Every issue is reported, not only the first.
TEST(verify_manifest_schema, reports_every_issue) {
    auto m = free_tool();
    m["name"] = "";
    m["tags"] = {"A", "b", "b"};
    m["creatorAddress"] = "0x0000000000000000000000000000000000000000";
    const auto r = validate(m);
    EXPECT_EQ(r.error_count(), 4u) << dump(r);
    ASSERT_NE(r.first_error(), nullptr);
    EXPECT_EQ(r.first_error()->path, "/name");
}

}  // namespace
