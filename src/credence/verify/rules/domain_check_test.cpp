// ERC-8004 §Endpoint Domain Verification, the pure half: which domain an endpoint names and whether
// a `/.well-known/agent-registration.json` body names the on-chain agent. The fetching half runs
// against real HTTPS servers in registration_verifier_test.cpp.
#include <credence/verify/rules/domain_check.hpp>

#include <gtest/gtest.h>

#include <string>

#include <credence/core/address.hpp>

namespace credence::verify {
namespace {

const core::Address kDomainRegistry =
    core::Address::from_hex("0x8004A169FB4a3325136EB29fA0ceB6D2e539a432",
                            core::ChecksumMode::ignore)
        .value();
const core::Address kOther = core::Address::from_hex("0x8004B663056A597Dffe9eCcC1965A193B7388713",
                                                     core::ChecksumMode::ignore)
                                 .value();

core::Bytes bytes(const std::string& s) { return {s.begin(), s.end()}; }

std::string entry(uint64_t agent_id, const core::Address& registry, uint64_t chain_id = 1) {
    return R"({"agentId": )" + std::to_string(agent_id) + R"(, "agentRegistry": "eip155:)" +
           std::to_string(chain_id) + ":" + registry.to_checksum_hex() + R"("})";
}

core::Result<void, DomainFileError> check(const std::string& body, uint64_t agent_id = 22) {
    return check_domain_file(bytes(body), 1, kDomainRegistry.bytes, core::Uint256{agent_id});
}

TEST(verify_domain_check, endpoint_domain_is_the_lowercased_host_without_port_or_userinfo) {
    EXPECT_EQ(endpoint_domain("https://Agent.Example/.well-known/agent-card.json").value(),
              "agent.example");
    EXPECT_EQ(endpoint_domain("https://mcp.agent.example:8443/mcp").value(), "mcp.agent.example");
    EXPECT_EQ(endpoint_domain("HTTPS://web.agentxyz.com/").value(), "web.agentxyz.com");
    EXPECT_EQ(endpoint_domain("https://user@host.example/x").value(), "host.example");
    EXPECT_EQ(endpoint_domain("https://host.example./x").value(), "host.example");
    EXPECT_EQ(endpoint_domain("https://host.example?q#f").value(), "host.example");
    const auto url = parse_endpoint_url("https://a.example/p/q?x=1#frag").value();
    EXPECT_EQ(url.path, "/p/q");
    EXPECT_EQ(parse_endpoint_url("https://a.example").value().path, "/");
}

TEST(verify_domain_check, non_url_endpoints_have_no_domain) {
    // ERC-8004's own service examples: ENS, DID, e-mail have no HTTPS endpoint-domain.
    EXPECT_EQ(endpoint_domain("vitalik.eth").error().code, EndpointError::not_a_url);
    EXPECT_EQ(endpoint_domain("did:method:foobar").error().code, EndpointError::not_a_url);
    EXPECT_EQ(endpoint_domain("mail@myagent.com").error().code, EndpointError::not_a_url);
    EXPECT_EQ(endpoint_domain("ipfs://bafyexample").error().code, EndpointError::not_https);
    EXPECT_EQ(endpoint_domain("http://agent.example/").error().code, EndpointError::not_https);
}

TEST(verify_domain_check, ip_literals_and_bad_hosts_are_not_domains) {
    EXPECT_EQ(endpoint_domain("https://127.0.0.1/").error().code, EndpointError::ip_literal);
    EXPECT_EQ(endpoint_domain("https://[::1]/").error().code, EndpointError::ip_literal);
    EXPECT_EQ(endpoint_domain("https:///path").error().code, EndpointError::bad_host);
    EXPECT_EQ(endpoint_domain("https://-bad.example/").error().code, EndpointError::bad_host);
    EXPECT_EQ(endpoint_domain("https://a..b/").error().code, EndpointError::bad_host);
    EXPECT_EQ(endpoint_domain("https://h\xC3\xA9.example/").error().code, EndpointError::bad_host);
    EXPECT_EQ(endpoint_domain("https://a.example:44x/").error().code, EndpointError::bad_host);
    EXPECT_EQ(endpoint_domain("https://" + std::string(64, 'a') + ".example/").error().code,
              EndpointError::bad_host);
}

TEST(verify_domain_check, well_known_urls_follow_the_text) {
    // ERC-8004 §Endpoint Domain Verification; first draft §Identity Registry (RFC 8615).
    EXPECT_EQ(agent_registration_url("agent.example"),
              "https://agent.example/.well-known/agent-registration.json");
    EXPECT_EQ(agent_card_url("agent.example"), "https://agent.example/.well-known/agent-card.json");
}

TEST(verify_domain_check, a_registrations_list_naming_the_agent_verifies) {
    // "containing at least a registrations list": no other member is needed.
    EXPECT_TRUE(check(R"({"registrations": [)" + entry(22, kDomainRegistry) + "]}"));
    // "(or the full agent registration file)"; the matching entry may be any of several.
    EXPECT_TRUE(check(R"({"type": "https://eips.ethereum.org/EIPS/eip-8004#registration-v1",
        "name": "a", "description": "d", "image": "https://a.example/i.png", "services": [],
        "registrations": [)" +
                      entry(7, kOther) + "," + entry(22, kDomainRegistry) + "]}"));
}

TEST(verify_domain_check, a_file_listing_another_agent_does_not_verify) {
    const auto r = check(R"({"registrations": [)" + entry(23, kDomainRegistry) + "]}");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, DomainFileError::wrong_agent_id);
    EXPECT_NE(r.error().detail.find("agentId 23"), std::string::npos) << r.error().detail;
}

TEST(verify_domain_check, the_same_agent_id_on_another_registry_does_not_verify) {
    EXPECT_EQ(check(R"({"registrations": [)" + entry(22, kOther) + "]}").error().code,
              DomainFileError::wrong_registry);
    // Same address, another chain: agentRegistry includes the chain id.
    EXPECT_EQ(
        check(R"({"registrations": [)" + entry(22, kDomainRegistry, 8453) + "]}").error().code,
        DomainFileError::wrong_registry);
    EXPECT_EQ(check(R"({"registrations": [)" + entry(5, kOther) + "]}").error().code,
              DomainFileError::no_matching_registration);
}

TEST(verify_domain_check, a_file_without_a_registrations_list_does_not_verify) {
    EXPECT_EQ(check(R"({"name": "x"})").error().code, DomainFileError::no_registrations);
    EXPECT_EQ(check(R"({"registrations": {}})").error().code, DomainFileError::no_registrations);
    EXPECT_EQ(check(R"({"registrations": []})").error().code, DomainFileError::no_registrations);
    // "all fields in the registration are mandatory": an entry without agentRegistry is no entry.
    EXPECT_EQ(check(R"({"registrations": [{"agentId": 22}]})").error().code,
              DomainFileError::no_registrations);
    // agentId as a string is not the number the text shows.
    EXPECT_EQ(check(R"({"registrations": [{"agentId": "22", "agentRegistry": "eip155:1:)" +
                    kDomainRegistry.to_checksum_hex() + R"("}]})")
                  .error()
                  .code,
              DomainFileError::no_registrations);
}

TEST(verify_domain_check, bad_json_does_not_verify) {
    EXPECT_EQ(check("{").error().code, DomainFileError::not_json);
    EXPECT_EQ(check("\xEF\xBB\xBF{}").error().code, DomainFileError::not_json);  // BOM
    EXPECT_EQ(check(R"({"registrations": [], "registrations": []})").error().code,
              DomainFileError::not_json);  // duplicate member
    EXPECT_EQ(check("[]").error().code, DomainFileError::not_an_object);
}

TEST(verify_domain_check, agent_ids_beyond_64_bits_compare_exactly) {
    const std::string big =
        "115792089237316195423570985008687907853269984665640564039457584007913129639935";
    const std::string body = R"({"registrations": [{"agentId": )" + big +
                             R"(, "agentRegistry": "eip155:1:)" +
                             kDomainRegistry.to_checksum_hex() + R"("}]})";
    EXPECT_TRUE(check_domain_file(bytes(body), 1, kDomainRegistry.bytes,
                                  core::Uint256::from_dec(big).value()));
    EXPECT_FALSE(
        check_domain_file(bytes(body), 1, kDomainRegistry.bytes,
                          core::Uint256::from_dec(big.substr(0, big.size() - 1) + "4").value()));
}

}  // namespace
}  // namespace credence::verify
