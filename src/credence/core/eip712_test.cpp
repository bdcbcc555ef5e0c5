#include <credence/core/eip712.hpp>

#include <gtest/gtest.h>

#include <credence/core/keccak.hpp>

#include "support/vectors.hpp"

using namespace credence::core;
using nlohmann::json;

namespace {

json document_of(const json& c) {
    return json{{"types", c["types"]},
                {"primaryType", c["primaryType"]},
                {"domain", c["domain"]},
                {"message", c["data"]}};
}

Eip712Error error_of(const json& doc) {
    auto td = parse_typed_data(doc.dump());
    if (!td) return td.error().code;
    auto digest = typed_data_digest(*td);
    EXPECT_FALSE(digest.has_value()) << doc.dump();
    return digest ? Eip712Error{} : digest.error().code;
}

json simple_doc(const std::string& type, const json& value) {
    return json{{"types", {{"T", json::array({{{"name", "v"}, {"type", type}}})}}},
                {"primaryType", "T"},
                {"domain", json::object()},
                {"message", {{"v", value}}}};
}

}  // namespace

// All 130 cases of ethers' typed-data.json: the encoded struct (typeHash ‖ encodeData), the
// typeHash (its first word) against keccak256(encodeType), hashStruct, and the final digest, each
// through the JSON-text path and the parsed-JSON path.
TEST(core_eip712, ethers_typed_data_vectors) {
    const auto cases = credence::testing::read_vector_json("ethers/typed-data.json");
    ASSERT_EQ(cases.size(), 130u);
    size_t checked = 0;
    for (const auto& c : cases) {
        const std::string name = c["name"];
        const json doc = document_of(c);
        auto td = parse_typed_data(doc.dump());
        ASSERT_TRUE(td.has_value()) << name << ": " << td.error().detail;
        const auto& primary = td->primary_type;

        const auto expected_encoded = from_hex(c["encoded"].get<std::string>());
        ASSERT_TRUE(expected_encoded.has_value());
        ASSERT_GE(expected_encoded->size(), 32u);

        auto encoded = encode_data(td->types, primary, td->message);
        ASSERT_TRUE(encoded.has_value()) << name << ": " << encoded.error().detail;
        EXPECT_EQ(to_hex(*encoded), c["encoded"].get<std::string>()) << name;

        auto enc_type = encode_type(td->types, primary);
        ASSERT_TRUE(enc_type.has_value()) << name;
        EXPECT_EQ(to_hex(keccak256(std::string_view(*enc_type))),
                  to_hex(ByteView(*expected_encoded).first(32)))
            << name << ": " << *enc_type;
        auto th = type_hash(td->types, primary);
        ASSERT_TRUE(th.has_value());
        EXPECT_EQ(to_hex(*th), to_hex(ByteView(*expected_encoded).first(32))) << name;

        auto hs = hash_struct(td->types, primary, td->message);
        ASSERT_TRUE(hs.has_value()) << name;
        EXPECT_EQ(*hs, keccak256(*expected_encoded)) << name;

        auto digest = typed_data_digest(*td);
        ASSERT_TRUE(digest.has_value()) << name << ": " << digest.error().detail;
        EXPECT_EQ(to_hex(*digest), c["digest"].get<std::string>()) << name;

        auto td2 = typed_data_from_json(doc);
        ASSERT_TRUE(td2.has_value());
        auto digest2 = typed_data_digest(*td2);
        ASSERT_TRUE(digest2.has_value());
        EXPECT_EQ(*digest2, *digest) << name;
        ++checked;
    }
    EXPECT_EQ(checked, 130u);
}

// The EIP's own Ether Mail example (declared EIP712Domain type). The signature in the file is left
// to the secp256k1 tests: recovering it needs the signer, which is not in this component yet.
TEST(core_eip712, eip712_mail_example) {
    const auto v = credence::testing::read_vector_json("eip712-mail.json");
    auto td = typed_data_from_json(v);
    ASSERT_TRUE(td.has_value()) << td.error().detail;
    const auto& expected = v["expected"];

    auto ds = domain_separator(*td);
    ASSERT_TRUE(ds.has_value());
    EXPECT_EQ(to_hex(*ds), expected["domainSeparator"].get<std::string>());

    auto hs = hash_struct(td->types, td->primary_type, td->message);
    ASSERT_TRUE(hs.has_value());
    EXPECT_EQ(to_hex(*hs), expected["structHash"].get<std::string>());

    auto digest = typed_data_digest(v.dump());
    ASSERT_TRUE(digest.has_value());
    EXPECT_EQ(to_hex(*digest), expected["digest"].get<std::string>());
    EXPECT_EQ(eip712_digest(*ds, *hs), *digest);

    // The same domain built in C++.
    const auto& d = v["domain"];
    Eip712Domain domain;
    domain.name = d["name"].get<std::string>();
    domain.version = d["version"].get<std::string>();
    domain.chain_id = Uint256{d["chainId"].get<uint64_t>()};
    domain.verifying_contract =
        from_hex_fixed<20>(d["verifyingContract"].get<std::string>()).value();
    EXPECT_EQ(to_hex(domain_separator(domain)), expected["domainSeparator"].get<std::string>());
}

// EIP-712 §Definition of domainSeparator: a C++ domain with only some fields matches the JSON path
// over the ethers vectors whose domains use exactly those fields.
TEST(core_eip712, cpp_domain_matches_json_domain) {
    const auto cases = credence::testing::read_vector_json("ethers/typed-data.json");
    size_t checked = 0;
    for (const auto& c : cases) {
        auto td = typed_data_from_json(document_of(c));
        ASSERT_TRUE(td.has_value());
        const auto& d = c["domain"];
        Eip712Domain domain;
        if (d.contains("name")) domain.name = d["name"].get<std::string>();
        if (d.contains("version")) domain.version = d["version"].get<std::string>();
        if (d.contains("chainId")) {
            const auto& id = d["chainId"];
            domain.chain_id = id.is_string() ? Uint256::parse(id.get<std::string>()).value()
                                             : Uint256{id.get<uint64_t>()};
        }
        if (d.contains("verifyingContract"))
            domain.verifying_contract =
                from_hex_fixed<20>(d["verifyingContract"].get<std::string>()).value();
        if (d.contains("salt"))
            domain.salt = from_hex_fixed<32>(d["salt"].get<std::string>()).value();
        auto ds = domain_separator(*td);
        ASSERT_TRUE(ds.has_value());
        EXPECT_EQ(domain_separator(domain), *ds) << c["name"];
        ++checked;
    }
    EXPECT_EQ(checked, 130u);
}

// EIP-712 §Definition of encodeType: referenced types sorted by name after the primary type, each
// once, also when types refer to each other in a cycle.
TEST(core_eip712, encode_type_orders_and_dedups_dependencies) {
    auto types = parse_eip712_types(json::parse(R"({
        "Zebra": [{"name": "a", "type": "Apple[]"}, {"name": "m", "type": "Mango"}, {"name": "m2", "type": "Mango[2]"}],
        "Mango": [{"name": "z", "type": "Zebra[]"}, {"name": "b", "type": "Banana"}],
        "Banana": [{"name": "x", "type": "uint8"}],
        "Apple": [{"name": "s", "type": "string"}],
        "Unused": [{"name": "u", "type": "NoSuchType"}]
    })"));
    ASSERT_TRUE(types.has_value());
    auto enc = encode_type(*types, "Zebra");
    ASSERT_TRUE(enc.has_value()) << enc.error().detail;
    EXPECT_EQ(*enc,
              "Zebra(Apple[] a,Mango m,Mango[2] m2)Apple(string s)Banana(uint8 x)Mango(Zebra[] "
              "z,Banana b)");
    auto enc_mango = encode_type(*types, "Mango");
    ASSERT_TRUE(enc_mango.has_value());
    EXPECT_EQ(*enc_mango,
              "Mango(Zebra[] z,Banana b)Apple(string s)Banana(uint8 x)Zebra(Apple[] a,Mango "
              "m,Mango[2] m2)");
}

// A recursive type with finite data encodes (the recursion ends where the data ends).
TEST(core_eip712, recursive_type_with_finite_data) {
    json doc = json::parse(R"({
        "types": {"Node": [{"name": "id", "type": "uint32"}, {"name": "children", "type": "Node[]"}]},
        "primaryType": "Node", "domain": {"name": "tree"},
        "message": {"id": 1, "children": [{"id": 2, "children": []}, {"id": 3, "children": [{"id": 4, "children": []}]}]}
    })");
    auto digest = typed_data_digest(doc.dump());
    ASSERT_TRUE(digest.has_value()) << digest.error().detail;

    // Same digest when the leaf hashStruct is folded in by hand: enc(children) =
    // keccak(hashStruct...)
    auto td = typed_data_from_json(doc);
    ASSERT_TRUE(td.has_value());
    auto leaf = hash_struct(td->types, "Node", json::parse(R"({"id": 4, "children": []})"));
    auto leaf_enc = encode_data(td->types, "Node", json::parse(R"({"id": 4, "children": []})"));
    ASSERT_TRUE(leaf.has_value() && leaf_enc.has_value());
    EXPECT_EQ(leaf_enc->size(), 96u);
    EXPECT_EQ(*leaf, keccak256(*leaf_enc));
}

TEST(core_eip712, recursion_limit_rejects_deep_values) {
    json value = json::object({{"id", 0}, {"children", json::array()}});
    for (int i = 0; i < 100; ++i) value = json{{"id", i}, {"children", json::array({value})}};
    json doc{{"types",
              {{"Node", json::array({{{"name", "id"}, {"type", "uint32"}},
                                     {{"name", "children"}, {"type", "Node[]"}}})}}},
             {"primaryType", "Node"},
             {"domain", json::object()},
             {"message", value}};
    EXPECT_EQ(error_of(doc), Eip712Error::recursion_limit);

    // Deep arrays of arrays count as nesting too.
    json deep = 1;
    std::string type = "uint8";
    for (int i = 0; i < 100; ++i) {
        deep = json::array({deep});
        type += "[]";
    }
    EXPECT_EQ(error_of(simple_doc(type, deep)), Eip712Error::recursion_limit);
}

TEST(core_eip712, primary_type_eip712domain_signs_domain_only) {
    json doc{
        {"types", json::object()}, {"primaryType", "EIP712Domain"}, {"domain", {{"name", "x"}}}};
    auto td = typed_data_from_json(doc);
    ASSERT_TRUE(td.has_value()) << td.error().detail;
    auto ds = domain_separator(*td);
    auto digest = typed_data_digest(*td);
    ASSERT_TRUE(ds.has_value() && digest.has_value());
    Bytes pre{0x19, 0x01};
    pre.insert(pre.end(), ds->begin(), ds->end());
    EXPECT_EQ(*digest, keccak256(pre));
}

// ---- integers: EIP-712 §Definition of encodeData, uintN/intN sign-extended to 256 bits ----

TEST(core_eip712, integer_range_checks) {
    using E = Eip712Error;
    EXPECT_EQ(error_of(simple_doc("uint8", 256)), E::out_of_range);
    EXPECT_EQ(error_of(simple_doc("uint8", "0x100")), E::out_of_range);
    EXPECT_EQ(error_of(simple_doc("uint8", -1)), E::out_of_range);
    EXPECT_EQ(error_of(simple_doc("uint256", "-1")), E::out_of_range);
    EXPECT_EQ(error_of(simple_doc("int8", 128)), E::out_of_range);
    EXPECT_EQ(error_of(simple_doc("int8", -129)), E::out_of_range);
    EXPECT_EQ(error_of(simple_doc("int8", "-0x81")), E::out_of_range);
    EXPECT_EQ(error_of(simple_doc(
                  "int256",
                  "57896044618658097711785492504343953926634992332820282019728792003956564819968")),
              E::out_of_range);
    EXPECT_EQ(
        error_of(simple_doc(
            "uint256",
            "115792089237316195423570985008687907853269984665640564039457584007913129639936")),
        E::out_of_range);
    EXPECT_EQ(error_of(simple_doc("uint64", 1e300)), E::out_of_range);
    EXPECT_EQ(error_of(simple_doc("uint64", 9007199254740994.0)),
              E::out_of_range);  // not a safe integer
    EXPECT_EQ(error_of(simple_doc("uint64", 1.5)), E::bad_value);
    EXPECT_EQ(error_of(simple_doc("uint64", "12a")), E::bad_value);
    EXPECT_EQ(error_of(simple_doc("uint64", "")), E::bad_value);
    EXPECT_EQ(error_of(simple_doc("uint64", " 1")), E::bad_value);
    EXPECT_EQ(error_of(simple_doc("uint64", true)), E::bad_value);
    EXPECT_EQ(error_of(simple_doc("uint64", json::array())), E::bad_value);
}

TEST(core_eip712, integer_forms_agree) {
    auto digest = [](const std::string& type, const json& v) {
        auto d = typed_data_digest(simple_doc(type, v).dump());
        EXPECT_TRUE(d.has_value()) << type << " " << v.dump();
        return d.value_or(Hash32{});
    };
    EXPECT_EQ(digest("uint256", 255), digest("uint256", "255"));
    EXPECT_EQ(digest("uint256", 255), digest("uint256", "0xff"));
    EXPECT_EQ(digest("uint256", 255), digest("uint256", 255.0));
    EXPECT_EQ(digest("int16", -2), digest("int16", "-2"));
    EXPECT_EQ(digest("int16", -2), digest("int16", "-0x2"));
    EXPECT_NE(digest("int16", -2), digest("int16", 2));
}

// ---- other atomic and dynamic values ----

TEST(core_eip712, rejects_bad_hex_and_lengths) {
    using E = Eip712Error;
    EXPECT_EQ(error_of(simple_doc("bytes", "0x123")), E::bad_hex);
    EXPECT_EQ(error_of(simple_doc("bytes", "0xzz")), E::bad_hex);
    EXPECT_EQ(error_of(simple_doc("bytes", "1234")), E::bad_hex);  // 0x prefix required
    EXPECT_EQ(error_of(simple_doc("bytes", 5)), E::bad_hex);
    EXPECT_EQ(error_of(simple_doc("bytes4", "0x123456")), E::length_mismatch);
    EXPECT_EQ(error_of(simple_doc("bytes4", "0x1234567890")), E::length_mismatch);
    EXPECT_EQ(error_of(simple_doc("bytes4", "0x1234567g")), E::bad_hex);
    EXPECT_EQ(error_of(simple_doc("uint8[2]", json::array({1}))), E::length_mismatch);
    EXPECT_EQ(error_of(simple_doc("uint8[2]", json::array({1, 2, 3}))), E::length_mismatch);
    EXPECT_EQ(error_of(simple_doc("uint8[]", 1)), E::bad_value);
    EXPECT_EQ(error_of(simple_doc("bool", 1)), E::bad_value);
    EXPECT_EQ(error_of(simple_doc("string", 1)), E::bad_value);
}

TEST(core_eip712, rejects_bad_addresses) {
    using E = Eip712Error;
    EXPECT_EQ(error_of(simple_doc("address", "0x1234")), E::bad_address);
    EXPECT_EQ(error_of(simple_doc("address", "CD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826")),
              E::bad_address);
    EXPECT_EQ(error_of(simple_doc("address", "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD82g")),
              E::bad_address);
    // One letter's case flipped breaks the EIP-55 checksum of the Ether Mail sender.
    EXPECT_EQ(error_of(simple_doc("address", "0xcD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826")),
              E::bad_address);
    EXPECT_EQ(error_of(simple_doc("address", 12)), E::bad_address);
    // All-lowercase and all-uppercase carry no checksum and are accepted.
    EXPECT_TRUE(typed_data_digest(
        simple_doc("address", "0xcd2a3d9f938e13cd947ec05abc7fe734df8dd826").dump()));
    EXPECT_TRUE(typed_data_digest(
        simple_doc("address", "0xCD2A3D9F938E13CD947EC05ABC7FE734DF8DD826").dump()));
}

TEST(core_eip712, rejects_unknown_types) {
    using E = Eip712Error;
    for (const char* t : {"uint", "uint7", "uint264", "uint08", "int0", "bytes0", "bytes33",
                          "bytes01", "Nope", "Nope[]", "uint8[", "uint8[x]", "uint8]", "uint8[1]x"})
        EXPECT_EQ(error_of(simple_doc(t, 1)), E::unknown_type) << t;
    json doc = simple_doc("uint8", 1);
    doc["primaryType"] = "Missing";
    EXPECT_EQ(error_of(doc), E::unknown_type);
}

TEST(core_eip712, rejects_missing_fields) {
    json doc{{"types",
              {{"T", json::array({{{"name", "a"}, {"type", "uint8"}},
                                  {{"name", "b"}, {"type", "string"}}})}}},
             {"primaryType", "T"},
             {"domain", json::object()},
             {"message", {{"a", 1}}}};
    EXPECT_EQ(error_of(doc), Eip712Error::missing_field);
    doc["message"]["b"] = nullptr;
    EXPECT_EQ(error_of(doc), Eip712Error::missing_field);
    doc["message"]["b"] = "ok";
    doc["message"]["extra"] = 5;  // extra members are ignored, as wallets do
    EXPECT_TRUE(typed_data_digest(doc.dump()).has_value());

    // A declared EIP712Domain field missing from the domain.
    json mail = credence::testing::read_vector_json("eip712-mail.json");
    mail["domain"].erase("version");
    EXPECT_EQ(error_of(mail), Eip712Error::missing_field);
}

TEST(core_eip712, rejects_malformed_documents) {
    using E = Eip712Error;
    auto text_error = [](const std::string& text) {
        auto td = parse_typed_data(text);
        return td ? Eip712Error{} : td.error().code;
    };
    EXPECT_EQ(text_error(""), E::malformed_document);
    EXPECT_EQ(text_error("{"), E::malformed_document);
    EXPECT_EQ(text_error("[]"), E::malformed_document);
    EXPECT_EQ(text_error(R"({"primaryType":"T","domain":{},"message":{}})"), E::malformed_document);
    EXPECT_EQ(text_error(R"({"types":{},"domain":{},"message":{}})"), E::malformed_document);
    EXPECT_EQ(text_error(R"({"types":{"T":[]},"primaryType":"T","message":{}})"),
              E::malformed_document);
    EXPECT_EQ(text_error(R"({"types":{"T":[]},"primaryType":"T","domain":{}})"),
              E::malformed_document);
    EXPECT_EQ(text_error(R"({"types":[],"primaryType":"T","domain":{},"message":{}})"),
              E::malformed_document);
    EXPECT_EQ(text_error(R"({"types":{"T":{}},"primaryType":"T","domain":{},"message":{}})"),
              E::malformed_document);
    EXPECT_EQ(
        text_error(R"({"types":{"T":[{"name":"a"}]},"primaryType":"T","domain":{},"message":{}})"),
        E::malformed_document);
    EXPECT_EQ(
        text_error(R"({"types":{"T":[]},"primaryType":"T","domain":{"chain":1},"message":{}})"),
        E::malformed_document);  // unknown domain key without a declared EIP712Domain
    EXPECT_EQ(
        text_error(
            R"({"types":{"T":[]},"primaryType":"T","primaryType":"T","domain":{},"message":{}})"),
        E::malformed_document);  // duplicate key
    EXPECT_EQ(
        text_error(R"({"types":{"T":[]},"primaryType":"T","domain":{},"message":{"a":1,"a":2}})"),
        E::malformed_document);  // duplicate key, nested
    EXPECT_EQ(typed_data_digest(R"({"types":{"T":[]},"primaryType":"T","domain":{},"message":[]})")
                  .error()
                  .code,
              E::bad_value);
}

TEST(core_eip712, rejects_bad_type_definitions) {
    using E = Eip712Error;
    auto types_error = [](const std::string& text) {
        auto t = parse_eip712_types(json::parse(text));
        return t ? Eip712Error{} : t.error().code;
    };
    EXPECT_EQ(types_error(R"({"T":[{"name":"a","type":"uint8"},{"name":"a","type":"bool"}]})"),
              E::bad_type_definition);
    EXPECT_EQ(types_error(R"({"T":[{"name":"","type":"uint8"}]})"), E::bad_type_definition);
    EXPECT_EQ(types_error(R"({"T":[{"name":"a b","type":"uint8"}]})"), E::bad_type_definition);
    EXPECT_EQ(types_error(R"({"T":[{"name":"a","type":"uint8,bool"}]})"), E::bad_type_definition);
    EXPECT_EQ(types_error(R"j({"T(x)":[]})j"), E::bad_type_definition);
    EXPECT_EQ(types_error(R"({"T[]":[]})"), E::bad_type_definition);
    EXPECT_EQ(types_error(R"({"uint256":[]})"), E::bad_type_definition);
    EXPECT_EQ(types_error(R"({"":[]})"), E::bad_type_definition);
}

TEST(core_eip712, error_names) {
    EXPECT_EQ(to_string(Eip712Error::recursion_limit), "nesting too deep");
    EXPECT_EQ(to_string(Eip712Error::bad_address), "bad address");
}
