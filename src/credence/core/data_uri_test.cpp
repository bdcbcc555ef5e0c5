#include <credence/core/data_uri.hpp>

#include <gtest/gtest.h>

using namespace credence::core;

namespace {

std::string text_of(const Bytes& b) { return std::string(b.begin(), b.end()); }

DataUriError error_of(std::string_view uri, size_t max = kDefaultDataUriMaxBytes) {
    auto r = parse_data_uri(uri, max);
    EXPECT_FALSE(r.has_value()) << uri;
    return r ? DataUriError{} : r.error().code;
}

}  // namespace

// RFC 4648 §10 test vectors.
TEST(core_data_uri, base64_rfc4648_vectors) {
    const std::pair<const char*, const char*> cases[] = {
        {"", ""},
        {"f", "Zg=="},
        {"fo", "Zm8="},
        {"foo", "Zm9v"},
        {"foob", "Zm9vYg=="},
        {"fooba", "Zm9vYmE="},
        {"foobar", "Zm9vYmFy"},
    };
    for (const auto& [plain, encoded] : cases) {
        EXPECT_EQ(base64_encode(as_bytes(plain)), encoded);
        auto decoded = base64_decode(encoded);
        ASSERT_TRUE(decoded.has_value()) << encoded;
        EXPECT_EQ(text_of(*decoded), plain);
    }
}

TEST(core_data_uri, base64_all_byte_values_round_trip) {
    Bytes all;
    for (int i = 0; i < 256; ++i) all.push_back(static_cast<uint8_t>(i));
    for (size_t n = 0; n <= all.size(); n += 17) {
        const Bytes part(all.begin(), all.begin() + static_cast<long>(n));
        auto back = base64_decode(base64_encode(part));
        ASSERT_TRUE(back.has_value());
        EXPECT_EQ(*back, part);
    }
}

// RFC 4648 §3.1-§3.5: no line breaks or other characters, padding only at the end, canonical
// (zero) pad bits, length a multiple of 4.
TEST(core_data_uri, base64_strict_rejections) {
    for (const char* bad :
         {"Zg", "Zg=", "Zm8", "Z===", "====", "Zg==Zg==", "Zm9v\n", "Zm 9v", "Zm9v YmFy",
          "Zh==", "Zm9=", "Zm-v", "Zm_v", "Zm9v%3D", "=Zm9", "Zg=a"}) {
        auto r = base64_decode(bad);
        ASSERT_FALSE(r.has_value()) << bad;
        EXPECT_EQ(r.error().code, DataUriError::bad_base64) << bad;
    }
    auto big = base64_decode("Zm9vYmFy", 5);
    ASSERT_FALSE(big.has_value());
    EXPECT_EQ(big.error().code, DataUriError::too_large);
    EXPECT_TRUE(base64_decode("Zm9vYmFy", 6).has_value());
}

// RFC 2397 §4 examples.
TEST(core_data_uri, rfc2397_examples) {
    auto note = parse_data_uri("data:,A%20brief%20note");
    ASSERT_TRUE(note.has_value());
    EXPECT_EQ(note->media_type, "text/plain");  // §2: the default media type
    EXPECT_EQ(note->parameter("charset"), "US-ASCII");
    EXPECT_FALSE(note->base64);
    EXPECT_EQ(text_of(note->data), "A brief note");

    auto query =
        parse_data_uri("data:application/vnd-xxx-query,select_vcount,fcol_from_fieldtable/local");
    ASSERT_TRUE(query.has_value());
    EXPECT_EQ(query->media_type, "application/vnd-xxx-query");
    EXPECT_TRUE(query->parameters.empty());
    EXPECT_EQ(text_of(query->data), "select_vcount,fcol_from_fieldtable/local");

    // The RFC's Greek example holds "%fg", which is no valid escape (RFC 3986 §2.1).
    EXPECT_EQ(error_of("data:text/plain;charset=iso-8859-7,%be%fg%be"),
              DataUriError::bad_percent_escape);
    auto greek = parse_data_uri("data:text/plain;charset=iso-8859-7,%be%e3%be");
    ASSERT_TRUE(greek.has_value());
    EXPECT_EQ(greek->parameter("CHARSET"), "iso-8859-7");
    EXPECT_EQ(greek->data, (Bytes{0xbe, 0xe3, 0xbe}));
}

// RFC 2397 §2: "text/plain" may be omitted while the charset is given.
TEST(core_data_uri, charset_without_media_type) {
    auto uri = parse_data_uri("data:;charset=utf-8,%C3%A9");
    ASSERT_TRUE(uri.has_value());
    EXPECT_EQ(uri->media_type, "text/plain");
    ASSERT_EQ(uri->parameters.size(), 1u);
    EXPECT_EQ(uri->parameter("charset"), "utf-8");
    EXPECT_EQ(uri->data, (Bytes{0xc3, 0xa9}));
}

// ERC-8004 §Agent URI: data:application/json;base64,eyJ0eXBlIjoi... for on-chain registrations.
TEST(core_data_uri, erc8004_registration_form) {
    auto uri = parse_data_uri("data:application/json;base64,eyJ0eXBlIjoi");
    ASSERT_TRUE(uri.has_value());
    EXPECT_EQ(uri->media_type, "application/json");
    EXPECT_TRUE(uri->base64);
    EXPECT_EQ(text_of(uri->data), R"({"type":")");
    // The spec's abbreviation itself is not base64.
    EXPECT_EQ(error_of("data:application/json;base64,eyJ0eXBlIjoi..."), DataUriError::bad_base64);

    const std::string registration =
        R"({"type":"https://eips.ethereum.org/EIPS/eip-8004#registration-v1","name":"myAgentName"})";
    auto encoded = encode_base64_data_uri("application/json", as_bytes(registration));
    ASSERT_TRUE(encoded.has_value());
    EXPECT_TRUE(encoded->starts_with("data:application/json;base64,"));
    auto back = parse_data_uri(*encoded);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(text_of(back->data), registration);
    EXPECT_EQ(back->media_type, "application/json");
    EXPECT_TRUE(back->parameters.empty());
}

TEST(core_data_uri, case_insensitive_names_keep_value_case) {
    auto uri = parse_data_uri("DATA:Application/JSON;Charset=UTF-8;BASE64,e30=");
    ASSERT_TRUE(uri.has_value());
    EXPECT_EQ(uri->media_type, "application/json");
    ASSERT_EQ(uri->parameters.size(), 1u);
    EXPECT_EQ(uri->parameters[0].first, "charset");
    EXPECT_EQ(uri->parameters[0].second, "UTF-8");
    EXPECT_TRUE(uri->base64);
    EXPECT_EQ(text_of(uri->data), "{}");
}

TEST(core_data_uri, header_rejections) {
    EXPECT_EQ(error_of("https://example.com"), DataUriError::not_data_uri);
    EXPECT_EQ(error_of("data"), DataUriError::not_data_uri);
    EXPECT_EQ(error_of(" data:,x"), DataUriError::not_data_uri);
    EXPECT_EQ(error_of("data:text/plain"), DataUriError::missing_comma);
    EXPECT_EQ(error_of("data:text,x"), DataUriError::bad_media_type);
    EXPECT_EQ(error_of("data:text/,x"), DataUriError::bad_media_type);
    EXPECT_EQ(error_of("data:/plain,x"), DataUriError::bad_media_type);
    EXPECT_EQ(error_of("data:text/pl ain,x"), DataUriError::bad_media_type);
    EXPECT_EQ(error_of("data:text/plain/x,x"), DataUriError::bad_media_type);
    EXPECT_EQ(error_of("data:text/plain;,x"), DataUriError::bad_parameter);
    EXPECT_EQ(error_of("data:text/plain;charset,x"), DataUriError::bad_parameter);
    EXPECT_EQ(error_of("data:text/plain;charset=,x"), DataUriError::bad_parameter);
    EXPECT_EQ(error_of("data:text/plain;charset=\"utf-8\",x"), DataUriError::bad_parameter);
    EXPECT_EQ(error_of("data:text/plain;a=1;A=2,x"), DataUriError::bad_parameter);
    EXPECT_EQ(error_of("data:text/plain;base64;charset=utf-8,e30="), DataUriError::bad_parameter);
}

TEST(core_data_uri, data_rejections) {
    EXPECT_EQ(error_of("data:,a b"), DataUriError::bad_character);
    EXPECT_EQ(error_of("data:,a\nb"), DataUriError::bad_character);
    EXPECT_EQ(error_of("data:,a#frag"), DataUriError::bad_character);
    EXPECT_EQ(error_of("data:,caf\xc3\xa9"), DataUriError::bad_character);
    EXPECT_EQ(error_of("data:,100%"), DataUriError::bad_percent_escape);
    EXPECT_EQ(error_of("data:,%4"), DataUriError::bad_percent_escape);
    EXPECT_EQ(error_of("data:,%zz"), DataUriError::bad_percent_escape);
    EXPECT_EQ(error_of("data:;base64,e30"), DataUriError::bad_base64);
    EXPECT_EQ(error_of("data:;base64,e3%30"), DataUriError::bad_base64);
    EXPECT_EQ(error_of("data:;base64,e30=\n"), DataUriError::bad_base64);
}

TEST(core_data_uri, size_limit) {
    EXPECT_EQ(error_of("data:,abcdef", 5), DataUriError::too_large);
    EXPECT_TRUE(parse_data_uri("data:,abcde", 5).has_value());
    EXPECT_EQ(error_of("data:,%61%62%63", 2), DataUriError::too_large);
    EXPECT_EQ(error_of("data:;base64,Zm9vYmFy", 5), DataUriError::too_large);
    EXPECT_TRUE(parse_data_uri("data:;base64,Zm9vYmFy", 6).has_value());
    EXPECT_TRUE(parse_data_uri("data:,", 0).has_value());
}

TEST(core_data_uri, encode_round_trips) {
    DataUri uri;
    uri.media_type = "text/plain";
    uri.parameters = {{"charset", "utf-8"}};
    for (int i = 0; i < 256; ++i) uri.data.push_back(static_cast<uint8_t>(i));
    for (bool b64 : {false, true}) {
        uri.base64 = b64;
        auto text = encode_data_uri(uri);
        ASSERT_TRUE(text.has_value());
        auto back = parse_data_uri(*text);
        ASSERT_TRUE(back.has_value()) << *text;
        EXPECT_EQ(*back, uri);
    }
}

TEST(core_data_uri, encode_rejects_non_token_fields) {
    DataUri uri;
    uri.media_type = "text plain";
    EXPECT_EQ(encode_data_uri(uri).error().code, DataUriError::bad_media_type);
    uri.media_type = "text/plain";
    uri.parameters = {{"charset", "a;b"}};
    EXPECT_EQ(encode_data_uri(uri).error().code, DataUriError::bad_parameter);
    uri.parameters = {{"a", "1"}, {"A", "2"}};
    EXPECT_EQ(encode_data_uri(uri).error().code, DataUriError::bad_parameter);
    EXPECT_EQ(encode_base64_data_uri("", {}).error().code, DataUriError::bad_media_type);
    EXPECT_EQ(encode_base64_data_uri("application/json;base64", {}).error().code,
              DataUriError::bad_parameter);
}

TEST(core_data_uri, error_names) {
    EXPECT_EQ(to_string(DataUriError::bad_base64), "bad base64");
    EXPECT_EQ(to_string(DataUriError::too_large), "data: URI payload too large");
}
