// docs/node.md §HTTP server limits: which key a client's connections, requests and MCP sessions
// are counted under.
#include <credence/api/client_key.hpp>

#include <gtest/gtest.h>

namespace credence::api {
namespace {

TEST(client_key, ipv4_counts_as_itself_also_when_mapped) {
    EXPECT_EQ(client_key("10.1.2.3"), "10.1.2.3");
    EXPECT_EQ(client_key("::ffff:10.1.2.3"), "10.1.2.3");
    EXPECT_EQ(client_key("::FFFF:127.0.0.1"), "127.0.0.1");
}

TEST(client_key, ipv6_counts_by_its_first_64_bits) {
    EXPECT_EQ(client_key("2001:db8:1:2:3:4:5:6"), "2001:0db8:0001:0002::/64");
    EXPECT_EQ(client_key("2001:db8:1:2::ffff"), client_key("2001:db8:1:2:3:4:5:6"));
    EXPECT_NE(client_key("2001:db8:1:3::1"), client_key("2001:db8:1:2::1"));
    EXPECT_EQ(client_key("::1"), "0000:0000:0000:0000::/64");
}

TEST(client_key, other_text_is_its_own_key) {
    EXPECT_EQ(client_key(""), "");
    EXPECT_EQ(client_key("not-an-ip"), "not-an-ip");
    EXPECT_EQ(client_key("10.1.2.3.4"), "10.1.2.3.4");
}

}  // namespace
}  // namespace credence::api
