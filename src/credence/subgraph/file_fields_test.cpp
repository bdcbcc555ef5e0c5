#include <credence/subgraph/file_fields.hpp>

#include <gtest/gtest.h>

namespace credence::subgraph {
namespace {

using Json = nlohmann::json;

TEST(subgraph_file_fields, uri_types_follow_the_subgraph) {
    EXPECT_EQ(uri_type("ipfs://bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq"), "ipfs");
    EXPECT_EQ(uri_type("QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG"), "ipfs");
    EXPECT_EQ(uri_type("https://ipfs.io/ipfs/QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG"),
              "ipfs");
    EXPECT_EQ(uri_type("data:application/json;base64,e30="), "data");
    EXPECT_EQ(uri_type("https://agent.example/card.json"), "https");
    EXPECT_EQ(uri_type("http://agent.example/card.json"), "http");
    EXPECT_EQ(uri_type("ar://abc"), "unknown");
    EXPECT_EQ(uri_type(""), "unknown");
}

TEST(subgraph_file_fields, cids_come_from_each_ipfs_form) {
    const std::string v0 = "QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG";
    EXPECT_EQ(ipfs_cid("ipfs://" + v0), v0);
    EXPECT_EQ(ipfs_cid(v0), v0);
    EXPECT_EQ(ipfs_cid("https://gateway.pinata.cloud/ipfs/" + v0 + "/file.json"), v0);
    EXPECT_EQ(ipfs_cid("https://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi"
                       ".ipfs.w3s.link"),
              "bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi");
    EXPECT_EQ(ipfs_cid("https://agent.example/card.json"), "");
}

// The ERC-8004 example registration file (the spec's services and their names in any case).
TEST(subgraph_file_fields, registration_services_fill_the_endpoint_fields) {
    const Json doc = Json::parse(R"({
      "type": "https://eips.ethereum.org/EIPS/eip-8004#registration-v1",
      "name": "myAgentName", "description": "d", "image": "https://example.com/a.png",
      "services": [
        {"name": "web", "endpoint": "https://web.agentxyz.com/"},
        {"name": "A2A", "endpoint": "https://agent.example/.well-known/agent-card.json",
         "version": "0.3.0", "a2aSkills": ["summarize"]},
        {"name": "MCP", "endpoint": "https://mcp.agent.eth/", "version": "2025-06-18",
         "mcpTools": ["search", "fetch"], "mcpPrompts": ["p"], "mcpResources": []},
        {"name": "OASF", "endpoint": "ipfs://{cid}", "version": "0.8",
         "skills": ["s/1"], "domains": ["d/1", 7]},
        {"name": "ENS", "endpoint": "vitalik.eth", "version": "v1"},
        {"name": "DID", "endpoint": "did:method:foobar", "version": "v1"},
        {"name": "email", "endpoint": "mail@myagent.com"},
        "not an object"
      ],
      "x402Support": {"enabled": true}, "active": true,
      "supportedTrust": ["reputation", "crypto-economic"]
    })");
    RegistrationFileRecord r;
    read_registration_document(doc, r);
    EXPECT_EQ(r.name, "myAgentName");
    EXPECT_EQ(r.image, "https://example.com/a.png");
    EXPECT_EQ(r.active, true);
    EXPECT_EQ(r.x402_support, true);
    EXPECT_EQ(r.supported_trusts, (std::vector<std::string>{"reputation", "crypto-economic"}));
    EXPECT_EQ(r.web_endpoint, "https://web.agentxyz.com/");
    EXPECT_EQ(r.a2a_endpoint, "https://agent.example/.well-known/agent-card.json");
    EXPECT_EQ(r.a2a_version, "0.3.0");
    EXPECT_EQ(r.mcp_endpoint, "https://mcp.agent.eth/");
    EXPECT_EQ(r.mcp_version, "2025-06-18");
    EXPECT_EQ(r.oasf_endpoint, "ipfs://{cid}");
    EXPECT_EQ(r.oasf_skills, std::vector<std::string>{"s/1"});
    EXPECT_EQ(r.oasf_domains, std::vector<std::string>{"d/1"});
    EXPECT_EQ(r.ens, "vitalik.eth");
    EXPECT_EQ(r.did, "did:method:foobar");
    EXPECT_EQ(r.email_endpoint, "mail@myagent.com");
    EXPECT_EQ(r.mcp_tools, (std::vector<std::string>{"search", "fetch"}));
    EXPECT_EQ(r.mcp_prompts, std::vector<std::string>{"p"});
    EXPECT_TRUE(r.mcp_resources.empty());
    EXPECT_EQ(r.a2a_skills, std::vector<std::string>{"summarize"});
    ASSERT_TRUE(r.endpoints_raw_json);
    const Json raw = Json::parse(*r.endpoints_raw_json);
    ASSERT_EQ(raw.size(), 7U);  // object entries only
    EXPECT_EQ(raw[1].dump(),
              R"({"endpoint":"https://agent.example/.well-known/agent-card.json","name":"A2A",)"
              R"("version":"0.3.0"})");
    EXPECT_FALSE(raw[1].contains("a2aSkills"));  // the subgraph keeps name/endpoint/version/lists
}

TEST(subgraph_file_fields, earlier_files_with_endpoints_and_odd_members_still_read) {
    RegistrationFileRecord r;
    read_registration_document(
        Json::parse(R"({"name": 5, "endpoints": [{"name": "mcp", "endpoint": "https://m/"}],
                        "x402support": false, "active": "yes", "supportedTrusts": ["tee"]})"),
        r);
    EXPECT_FALSE(r.name);  // not a string
    EXPECT_FALSE(r.active);
    EXPECT_EQ(r.x402_support, false);
    EXPECT_EQ(r.mcp_endpoint, "https://m/");
    EXPECT_EQ(r.supported_trusts, std::vector<std::string>{"tee"});
    RegistrationFileRecord none;
    read_registration_document(Json::array(), none);
    EXPECT_FALSE(none.endpoints_raw_json);
}

// The ERC-8004 example feedback file.
TEST(subgraph_file_fields, feedback_files_fill_the_file_fields) {
    const Json doc = Json::parse(R"({
      "agentRegistry": "eip155:1:0x8004A169FB4a3325136EB29fA0ceB6D2e539a432", "agentId": 22,
      "clientAddress": "eip155:1:0x00000000000000000000000000000000000000aa",
      "createdAt": "2025-09-23T12:00:00Z", "value": 100, "valueDecimals": 0,
      "tag1": "foo", "tag2": "bar", "text": "great",
      "mcp": {"tool": "ToolName"},
      "a2a": {"skills": ["s"], "contextId": "c", "taskId": "t"},
      "oasf": {"skills": ["o"], "domains": ["d"]},
      "proofOfPayment": {"fromAddress": "0x01", "toAddress": "0x02", "chainId": 8453,
                         "txHash": "0x03"}
    })");
    FeedbackRecord onchain;
    onchain.tag1 = "onchain";  // the chain's tag wins; the file's tag2 fills the empty one
    FeedbackFileRecord f;
    read_feedback_document(doc, onchain, f);
    EXPECT_EQ(f.agent_id, "22");
    EXPECT_EQ(f.value_raw, "100");
    EXPECT_EQ(f.value_decimals, 0);
    EXPECT_EQ(f.created_at_iso, "2025-09-23T12:00:00Z");
    EXPECT_EQ(f.text, "great");
    EXPECT_EQ(f.mcp_tool, "ToolName");
    EXPECT_FALSE(f.mcp_prompt);
    EXPECT_EQ(f.a2a_skills, std::vector<std::string>{"s"});
    EXPECT_EQ(f.a2a_context_id, "c");
    EXPECT_EQ(f.a2a_task_id, "t");
    EXPECT_EQ(f.oasf_domains, std::vector<std::string>{"d"});
    EXPECT_EQ(f.proof_chain_id, "8453");
    EXPECT_EQ(f.proof_txn_hash, "0x03");
    EXPECT_FALSE(f.tag1);
    EXPECT_EQ(f.tag2, "bar");
}

TEST(subgraph_file_fields, values_are_shortest_decimals) {
    EXPECT_EQ(decimal_text("85", 0), "85");
    EXPECT_EQ(decimal_text("4500", 3), "4.5");
    EXPECT_EQ(decimal_text("-125", 2), "-1.25");
    EXPECT_EQ(decimal_text("7", 18), "0.000000000000000007");
    EXPECT_EQ(decimal_text("0", 5), "0");
    EXPECT_EQ(decimal_text("-0", 0), "0");
    EXPECT_EQ(decimal_text("100", 2), "1");
    EXPECT_EQ(decimal_text("170141183460469231731687303715884105727", 0),
              "170141183460469231731687303715884105727");
}

}  // namespace
}  // namespace credence::subgraph
