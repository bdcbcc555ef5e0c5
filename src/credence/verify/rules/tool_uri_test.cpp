// ERC-8257 §6 URL Normalization (G1-G3, W1-W3), the slug grammar, and §7 check 2.
#include <credence/verify/rules/tool_uri.hpp>

#include <string>

#include <gtest/gtest.h>

namespace {

using credence::verify::check_origin_binding;
using credence::verify::is_normalized_https_url;
using credence::verify::is_valid_slug;
using credence::verify::normalize_https_url;
using credence::verify::parse_metadata_uri;
using credence::verify::UriError;

UriError error_of(std::string_view uri) {
    auto r = parse_metadata_uri(uri);
    EXPECT_FALSE(r.has_value()) << uri;
    return r ? UriError::malformed : r.error().code;
}

// §6 Example: Single-Tool Origin.
TEST(verify_tool_uri, spec_example_single_tool_origin_binds) {
    auto r =
        check_origin_binding("https://weather-oracle.example.com/.well-known/ai-tool/weather.json",
                             "https://weather-oracle.example.com");
    ASSERT_TRUE(r) << r.error().detail;
    EXPECT_EQ(r->slug, "weather");
    EXPECT_EQ(r->url.origin(), "https://weather-oracle.example.com");
}

// §6 Example: Multi-Tool Origin: endpoints with paths share the origin.
TEST(verify_tool_uri, spec_example_multi_tool_origin_binds) {
    for (const char* slug : {"search", "trade", "mint"}) {
        auto r = check_origin_binding(
            std::string("https://opensea.io/.well-known/ai-tool/") + slug + ".json",
            std::string("https://opensea.io/api/") + slug);
        ASSERT_TRUE(r) << slug;
        EXPECT_EQ(r->slug, slug);
    }
}

// G1 lowercase scheme and host; G2 elide :443. Consumers reduce before comparing.
TEST(verify_tool_uri, g1_g2_scheme_host_case_and_default_port_are_reduced) {
    auto u = normalize_https_url("HTTPS://Tools.Example.COM:443/Path?Q=1#F");
    ASSERT_TRUE(u);
    EXPECT_EQ(u->normalized, "https://tools.example.com/Path?Q=1#F");  // path case kept
    EXPECT_FALSE(u->port.has_value());
    auto p = normalize_https_url("https://tools.example.com:8443/x");
    ASSERT_TRUE(p);
    EXPECT_EQ(p->port, 8443);
    EXPECT_EQ(p->origin(), "https://tools.example.com:8443");
    EXPECT_TRUE(check_origin_binding("https://TOOLS.example.com:443/.well-known/ai-tool/a.json",
                                     "https://tools.example.com/a"));
    EXPECT_FALSE(is_normalized_https_url("https://Tools.example.com/a"));
    EXPECT_TRUE(is_normalized_https_url("https://tools.example.com/a"));
}

// §6: only https; http, data:, javascript:, ipfs: are refused.
TEST(verify_tool_uri, non_https_schemes_are_refused) {
    for (const char* uri : {"http://tools.example.com/.well-known/ai-tool/a.json",
                            "data:application/json,{}", "javascript:alert(1)",
                            "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
                            "ftp://tools.example.com/.well-known/ai-tool/a.json"})
        EXPECT_EQ(error_of(uri), UriError::not_https) << uri;
}

// W2: '?' or '#' on metadataURI, even empty.
TEST(verify_tool_uri, w2_query_or_fragment_on_metadata_uri_is_refused) {
    for (const char* uri : {"https://t.example/.well-known/ai-tool/a.json?v=1",
                            "https://t.example/.well-known/ai-tool/a.json?",
                            "https://t.example/.well-known/ai-tool/a.json#top",
                            "https://t.example/.well-known/ai-tool/a.json#"})
        EXPECT_EQ(error_of(uri), UriError::query_or_fragment) << uri;
}

// W1: exactly /.well-known/ai-tool/<slug>.json: no trailing slash, no extra segment, no dot
// segments, no percent-encoded variant.
TEST(verify_tool_uri, w1_path_must_be_the_well_known_path) {
    for (const char* uri :
         {"https://t.example/.well-known/ai-tool/a.json/", "https://t.example/.well-known/ai-tool/",
          "https://t.example/ai-tool/a.json", "https://t.example",
          "https://t.example/.well-known/ai-tool/a.JSON",
          "https://t.example/.well-known/x/../ai-tool/a.json",
          "https://t.example/.well-known/%61i-tool/a.json"})
        EXPECT_EQ(error_of(uri), UriError::not_well_known) << uri;
}

// §6 slug grammar [a-z0-9]([a-z0-9-]*[a-z0-9])?, 1-64 characters; W3 leaves %xx as is.
TEST(verify_tool_uri, slug_grammar) {
    EXPECT_TRUE(is_valid_slug("a"));
    EXPECT_TRUE(is_valid_slug("weather-2"));
    EXPECT_TRUE(is_valid_slug(std::string(64, 'x')));
    EXPECT_FALSE(is_valid_slug(std::string(65, 'x')));
    for (const char* slug : {"-a", "a-", "A", "a_b", "a.b", "a%2db", "caf\xc3\xa9", "a/b", ".."})
        EXPECT_FALSE(is_valid_slug(slug)) << slug;
    for (const char* uri : {"https://t.example/.well-known/ai-tool/Weather.json",
                            "https://t.example/.well-known/ai-tool/-a.json",
                            "https://t.example/.well-known/ai-tool/a%2db.json",
                            "https://t.example/.well-known/ai-tool/a/b.json",
                            "https://t.example/.well-known/ai-tool/.json"})
        EXPECT_EQ(error_of(uri), UriError::slug_grammar) << uri;
    const std::string long_slug =
        "https://t.example/.well-known/ai-tool/" + std::string(65, 'a') + ".json";
    EXPECT_EQ(error_of(long_slug), UriError::slug_grammar);
}

// G3: a raw U-label host is refused (not converted); xn-- labels must be LDH.
TEST(verify_tool_uri, g3_raw_idn_host_is_refused_and_a_labels_accepted) {
    EXPECT_EQ(error_of("https://b\xc3\xbc\x63her.example/.well-known/ai-tool/a.json"),
              UriError::non_ace_host);
    EXPECT_TRUE(parse_metadata_uri("https://xn--bcher-kva.example/.well-known/ai-tool/a.json"));
    for (const char* uri : {"https://xn--.example/.well-known/ai-tool/a.json",
                            "https://xn--a_b.example/.well-known/ai-tool/a.json",
                            "https://ab--cd.example/.well-known/ai-tool/a.json",
                            "https://-a.example/.well-known/ai-tool/a.json",
                            "https://a..example/.well-known/ai-tool/a.json",
                            "https://a.example./.well-known/ai-tool/a.json",
                            "https://t%41.example/.well-known/ai-tool/a.json"})
        EXPECT_EQ(error_of(uri), UriError::bad_host) << uri;
}

TEST(verify_tool_uri, userinfo_bad_ports_and_characters_are_refused) {
    EXPECT_EQ(error_of("https://user@t.example/.well-known/ai-tool/a.json"), UriError::userinfo);
    EXPECT_EQ(error_of("https://t.example:@/.well-known/ai-tool/a.json"), UriError::userinfo);
    for (const char* uri : {"https://t.example:/.well-known/ai-tool/a.json",
                            "https://t.example:0/.well-known/ai-tool/a.json",
                            "https://t.example:65536/.well-known/ai-tool/a.json",
                            "https://t.example:44a/.well-known/ai-tool/a.json"})
        EXPECT_EQ(error_of(uri), UriError::bad_port) << uri;
    EXPECT_EQ(error_of("https://t.example/.well-known/ai-tool/a b.json"), UriError::malformed);
    EXPECT_EQ(error_of("https:t.example/.well-known/ai-tool/a.json"), UriError::malformed);
    auto v6 = parse_metadata_uri("https://[::1]:8443/.well-known/ai-tool/a.json");
    ASSERT_TRUE(v6);
    EXPECT_EQ(v6->url.origin(), "https://[::1]:8443");
}

// §Metadata URI Length Cap: 2,048 bytes.
TEST(verify_tool_uri, metadata_uri_over_2048_bytes_is_refused) {
    std::string host;
    while (host.size() < 2100) host += "abcdefghij.";
    EXPECT_EQ(error_of("https://" + host + "x/.well-known/ai-tool/a.json"), UriError::too_long);
}

// §7 check 2: scheme, host and port must all match; the endpoint must be https.
TEST(verify_tool_uri, origin_binding_requires_equal_host_and_port) {
    const std::string uri = "https://tools.example.com/.well-known/ai-tool/a.json";
    auto other_host = check_origin_binding(uri, "https://evil.example.com/a");
    ASSERT_FALSE(other_host);
    EXPECT_EQ(other_host.error().code, UriError::origin_mismatch);
    auto sub = check_origin_binding(uri, "https://api.tools.example.com/a");
    ASSERT_FALSE(sub);
    EXPECT_EQ(sub.error().code, UriError::origin_mismatch);
    auto port = check_origin_binding(uri, "https://tools.example.com:8443/a");
    ASSERT_FALSE(port);
    EXPECT_EQ(port.error().code, UriError::origin_mismatch);
    auto http = check_origin_binding(uri, "http://tools.example.com/a");
    ASSERT_FALSE(http);
    EXPECT_EQ(http.error().code, UriError::not_https);
    // The endpoint MAY carry a path, query and fragment (§2 endpoint).
    EXPECT_TRUE(check_origin_binding(uri, "https://tools.example.com/api?x=1#y"));
}

}  // namespace
