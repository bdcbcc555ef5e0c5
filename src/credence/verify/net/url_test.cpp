// The one URL splitter (url.hpp): where each part of a URL starts and ends, as RFC 3986 §3 draws
// them, for the shapes the fetcher, ERC-8257 §6 and ERC-8004 endpoint domains then judge.
#include <credence/verify/net/url.hpp>

#include <gtest/gtest.h>

namespace credence::verify {
namespace {

TEST(verify_url, splits_every_part) {
    const auto u = split_url("HTTPS://user:pw@Host.Example:8443/a/b?x=1&y#frag?not-query").value();
    EXPECT_EQ(u.scheme, "HTTPS");
    EXPECT_EQ(u.authority, "user:pw@Host.Example:8443");
    EXPECT_EQ(u.userinfo, "user:pw");
    EXPECT_EQ(u.host, "Host.Example");
    EXPECT_EQ(u.port, "8443");
    EXPECT_EQ(u.path, "/a/b");
    EXPECT_EQ(u.query, "x=1&y");
    EXPECT_EQ(u.fragment, "frag?not-query");
}

TEST(verify_url, absent_parts_are_absent_and_empty_ones_empty) {
    const auto bare = split_url("https://h.example").value();
    EXPECT_EQ(bare.host, "h.example");
    EXPECT_FALSE(bare.userinfo);
    EXPECT_FALSE(bare.port);
    EXPECT_EQ(bare.path, "");
    EXPECT_FALSE(bare.query);
    EXPECT_FALSE(bare.fragment);
    const auto empty = split_url("https://@h.example:/?#").value();
    EXPECT_EQ(empty.userinfo, "");
    EXPECT_EQ(empty.port, "");
    EXPECT_EQ(empty.path, "/");
    EXPECT_EQ(empty.query, "");
    EXPECT_EQ(empty.fragment, "");
    EXPECT_EQ(split_url("https:///path").value().host, "");
    // The fragment starts at the first '#', so a '?' after it belongs to the fragment.
    const auto hash_first = split_url("https://h.example/p#f?q").value();
    EXPECT_EQ(hash_first.path, "/p");
    EXPECT_FALSE(hash_first.query);
    EXPECT_EQ(hash_first.fragment, "f?q");
}

TEST(verify_url, ip_literals_keep_their_colons_and_the_port_is_after_the_last) {
    const auto v6 = split_url("https://[::1]:8443/x").value();
    EXPECT_EQ(v6.host, "[::1]");
    EXPECT_EQ(v6.port, "8443");
    const auto no_port = split_url("https://[2001:db8::1]/").value();
    EXPECT_EQ(no_port.host, "[2001:db8::1]");
    EXPECT_FALSE(no_port.port);
    const auto colons = split_url("https://a:1:2/").value();
    EXPECT_EQ(colons.host, "a:1");
    EXPECT_EQ(colons.port, "2");
    // userinfo ends at the last '@'.
    EXPECT_EQ(split_url("https://a@b@c.example/").value().host, "c.example");
}

TEST(verify_url, a_scheme_and_an_authority_are_required) {
    EXPECT_EQ(split_url("no-colon").error().code, UrlError::no_scheme);
    EXPECT_EQ(split_url(":x").error().code, UrlError::no_scheme);
    EXPECT_EQ(split_url("did:web:example.com").error().code, UrlError::no_authority);
    EXPECT_EQ(split_url("https:host/x").error().code, UrlError::no_authority);
    EXPECT_EQ(split_url("ipfs://bafy").value().authority, "bafy");
}

TEST(verify_url, schemes_compare_case_insensitively) {
    EXPECT_EQ(url_scheme("data:,x"), "data");
    EXPECT_FALSE(url_scheme("plain"));
    EXPECT_TRUE(has_scheme("IPFS://bafy", "ipfs"));
    EXPECT_TRUE(has_scheme("data:,x", "data"));
    EXPECT_FALSE(has_scheme("ipfsx://bafy", "ipfs"));
    EXPECT_FALSE(has_scheme("ipf://bafy", "ipfs"));
    EXPECT_FALSE(has_scheme("ipfs", "ipfs"));
}

}  // namespace
}  // namespace credence::verify
