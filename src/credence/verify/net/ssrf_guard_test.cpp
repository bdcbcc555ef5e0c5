// Address classification of the SSRF guard (docs/architecture.md §verify/): every refused range,
// its edges, the IPv6 forms that embed IPv4, and the allow list.
#include <credence/verify/net/ssrf_guard.hpp>

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace {

using credence::verify::blocked_range;
using credence::verify::HostAllowList;
using credence::verify::parse_ip_address;

std::string range_of(const std::string& text) {
    const auto ip = parse_ip_address(text);
    EXPECT_TRUE(ip.has_value()) << text;
    if (!ip) return "unparsed";
    const auto r = blocked_range(*ip);
    return r ? std::string(*r) : "public";
}

}  // namespace

TEST(verify_ssrf_guard, ipv4_ranges_and_their_edges) {
    const std::pair<const char*, const char*> cases[] = {
        {"0.0.0.0", "this-network"},
        {"0.255.255.255", "this-network"},
        {"1.0.0.0", "public"},
        {"9.255.255.255", "public"},
        {"10.0.0.0", "private"},
        {"10.255.255.255", "private"},
        {"11.0.0.0", "public"},
        {"100.63.255.255", "public"},
        {"100.64.0.0", "cgnat"},
        {"100.127.255.255", "cgnat"},
        {"100.128.0.0", "public"},
        {"126.255.255.255", "public"},
        {"127.0.0.1", "loopback"},
        {"127.255.255.254", "loopback"},
        {"128.0.0.0", "public"},
        {"169.253.255.255", "public"},
        {"169.254.0.1", "link-local"},
        {"169.254.169.254", "metadata"},
        {"169.254.255.255", "link-local"},
        {"169.255.0.0", "public"},
        {"172.15.255.255", "public"},
        {"172.16.0.0", "private"},
        {"172.31.255.255", "private"},
        {"172.32.0.0", "public"},
        {"192.0.0.0", "ietf-protocol"},
        {"192.0.0.255", "ietf-protocol"},
        {"192.0.1.0", "public"},
        {"192.167.255.255", "public"},
        {"192.168.0.0", "private"},
        {"192.168.255.255", "private"},
        {"192.169.0.0", "public"},
        {"198.17.255.255", "public"},
        {"198.18.0.0", "benchmarking"},
        {"198.19.255.255", "benchmarking"},
        {"198.20.0.0", "public"},
        {"223.255.255.255", "public"},
        {"224.0.0.0", "multicast"},
        {"239.255.255.255", "multicast"},
        {"240.0.0.0", "reserved"},
        {"254.255.255.255", "reserved"},
        {"255.255.255.255", "broadcast"},
        {"8.8.8.8", "public"},
        {"93.184.216.34", "public"},
    };
    for (const auto& [ip, expected] : cases) EXPECT_EQ(range_of(ip), expected) << ip;
}

TEST(verify_ssrf_guard, ipv6_ranges) {
    const std::pair<const char*, const char*> cases[] = {
        {"::", "unspecified"},          {"::1", "loopback"},
        {"fc00::1", "unique-local"},    {"fdff:ffff::1", "unique-local"},
        {"fd00:ec2::254", "metadata"},  {"fe80::1", "link-local"},
        {"febf:ffff::1", "link-local"}, {"fec0::1", "site-local"},
        {"ff02::1", "multicast"},       {"2001:4860:4860::8888", "public"},
        {"2606:4700::1111", "public"},  {"fbff:ffff::1", "public"},
    };
    for (const auto& [ip, expected] : cases) EXPECT_EQ(range_of(ip), expected) << ip;
}

TEST(verify_ssrf_guard, ipv6_forms_embedding_ipv4_are_judged_by_the_ipv4) {
    const std::pair<const char*, const char*> cases[] = {
        {"::ffff:127.0.0.1", "loopback"},  // IPv4-mapped
        {"::ffff:7f00:1", "loopback"},     // the same, in hex
        {"::ffff:169.254.169.254", "metadata"},
        {"::ffff:10.1.2.3", "private"},
        {"::ffff:8.8.8.8", "public"},
        {"::127.0.0.1", "loopback"},  // IPv4-compatible
        {"::10.0.0.1", "private"},
        {"64:ff9b::127.0.0.1", "loopback"},  // NAT64
        {"64:ff9b::a9fe:a9fe", "metadata"},
        {"64:ff9b::8.8.8.8", "public"},
        {"2002:7f00:1::", "loopback"},  // 6to4
        {"2002:c0a8:101::1", "private"},
        {"2002:808:808::1", "public"},
    };
    for (const auto& [ip, expected] : cases) EXPECT_EQ(range_of(ip), expected) << ip;
}

TEST(verify_ssrf_guard, only_strict_literals_parse) {
    for (const char* bad : {"", "127.1", "0x7f.0.0.1", "2130706433", "0177.0.0.1", "1.2.3.4.5",
                            "256.0.0.1", "::g", "[::1", "localhost", "1.2.3.4 "}) {
        EXPECT_FALSE(parse_ip_address(bad).has_value()) << bad;
    }
    const auto bracketed = parse_ip_address("[::1]");
    ASSERT_TRUE(bracketed.has_value());
    EXPECT_TRUE(bracketed->v6);
    EXPECT_EQ(credence::verify::to_string(*bracketed), "::1");
    EXPECT_EQ(credence::verify::to_string(*parse_ip_address("10.0.0.1")), "10.0.0.1");
}

TEST(verify_ssrf_guard, allow_list_names_ips_and_cidrs) {
    const auto parsed =
        HostAllowList::parse({"Agent-A.test", "10.1.2.3", "192.168.0.0/16", "fd00::/8"});
    ASSERT_TRUE(parsed) << parsed.error();
    const HostAllowList& allow = *parsed;
    const auto ip = [](const char* t) { return *parse_ip_address(t); };
    EXPECT_TRUE(allow.allows("agent-a.test", ip("127.0.0.1")));  // by name, any address
    EXPECT_FALSE(allow.allows("agent-b.test", ip("127.0.0.1")));
    EXPECT_TRUE(allow.allows("x.test", ip("10.1.2.3")));
    EXPECT_FALSE(allow.allows("x.test", ip("10.1.2.4")));
    EXPECT_TRUE(allow.allows("x.test", ip("192.168.44.5")));
    EXPECT_TRUE(allow.allows("x.test", ip("::ffff:192.168.44.5")));  // mapped form
    EXPECT_FALSE(allow.allows("x.test", ip("192.169.0.1")));
    EXPECT_TRUE(allow.allows("x.test", ip("fd12::1")));
    EXPECT_FALSE(allow.allows("x.test", ip("fe80::1")));
    const HostAllowList none;
    EXPECT_FALSE(none.allows("agent-a.test", ip("127.0.0.1")));
}

// A pinned entry lifts the guard for one name reaching one address (and port), nothing else.
TEST(verify_ssrf_guard, allow_list_pins_a_name_to_an_address_and_port) {
    const auto parsed = HostAllowList::parse(
        {"Demo.Credence.test=127.0.0.1:8443", "v6.test=[::1]:9000", "any-port.test=127.0.0.2"});
    ASSERT_TRUE(parsed) << parsed.error();
    const HostAllowList& allow = *parsed;
    const auto ip = [](const char* t) { return *parse_ip_address(t); };
    EXPECT_TRUE(allow.allows("demo.credence.test", ip("127.0.0.1"), 8443));
    EXPECT_FALSE(allow.allows("demo.credence.test", ip("127.0.0.1"), 8545));  // another port
    EXPECT_FALSE(allow.allows("demo.credence.test", ip("127.0.0.1")));        // port unknown
    EXPECT_FALSE(allow.allows("demo.credence.test", ip("10.0.0.1"), 8443));   // another address
    EXPECT_FALSE(allow.allows("localhost", ip("127.0.0.1"), 8443));           // another name
    EXPECT_FALSE(allow.allows("127.0.0.1", ip("127.0.0.1"), 8443));
    EXPECT_TRUE(allow.allows("v6.test", ip("::1"), 9000));
    EXPECT_FALSE(allow.allows("v6.test", ip("::1"), 9001));
    EXPECT_TRUE(allow.allows("any-port.test", ip("127.0.0.2"), 1234));
    EXPECT_FALSE(allow.allows("any-port.test", ip("127.0.0.1"), 1234));
    EXPECT_FALSE(allow.allows("", ip("127.0.0.1"), 80));
    EXPECT_FALSE(allow.allows("x.test", ip("127.0.0.1"), 80));
}

// A malformed entry is refused with one line naming it: a typo must neither lift the guard for
// more than meant nor silently leave a wanted host blocked.
TEST(verify_ssrf_guard, allow_list_refuses_malformed_entries) {
    const auto error_of = [](const std::string& entry) {
        auto r = HostAllowList::parse({"ok.test", entry});
        return r ? std::string("accepted") : r.error();
    };
    EXPECT_EQ(error_of("bad.test=127.0.0.1:99999"),
              "allowed host \"bad.test=127.0.0.1:99999\": a pin is name=address, "
              "name=address:port or name=[v6]:port");
    EXPECT_NE(error_of("bad2.test=[::1]:").find("a pin is"), std::string::npos);  // no port
    EXPECT_NE(error_of("=127.0.0.1").find("the name before '='"), std::string::npos);
    EXPECT_NE(error_of("bad.test=localhost:80").find("a pin is"), std::string::npos);
    EXPECT_EQ(error_of("10.0.0.0/33"),
              "allowed host \"10.0.0.0/33\": a range is address/bits with bits 0..32");
    EXPECT_NE(error_of("fd00::/129").find("bits 0..128"), std::string::npos);
    EXPECT_NE(error_of("bogus/8").find("not a host name"), std::string::npos);
    EXPECT_NE(error_of("10.0.0.0/").find("a range is"), std::string::npos);
    EXPECT_NE(error_of("10.0.0.0/8x").find("a range is"), std::string::npos);
    EXPECT_NE(error_of("").find("not a host name"), std::string::npos);
    EXPECT_NE(error_of("has space.test").find("not a host name"), std::string::npos);
    EXPECT_NE(error_of("https://agent.test").find("not a host name"), std::string::npos);
    EXPECT_EQ(error_of("0.0.0.0/0"), "accepted");
    EXPECT_EQ(error_of("Agent.Test."), "accepted");
}
