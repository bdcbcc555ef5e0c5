// End-to-end tests of `credence verify fetch` against a real HTTPS server on loopback
// (tests/support/https_server.hpp): the shared fetch flags, the per-kind policies, the output
// (keccak256 checked against ethers' vectors) and the one-line typed error with exit code 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/https_server.hpp"
#include "support/process.hpp"
#include "support/vectors.hpp"

namespace {

struct FetchRun {
    int status = -1;
    std::string out;
};

/// Runs `credence verify fetch <args> [fetch flags]`; stderr is appended to out when
/// merge_stderr is true.
FetchRun run_fetch(std::vector<std::string> args, bool merge_stderr = false,
                   const std::vector<std::string>& fetch_flags = {}) {
    args.insert(args.begin(), {"verify", "fetch"});
    args.insert(args.end(), fetch_flags.begin(), fetch_flags.end());
    auto r = credence::testing::run_command(CREDENCE_BIN, args);
    return {r.exit_code, merge_stderr ? r.out + r.err : r.out};
}

std::vector<std::string> flags(const credence::testing::HttpsServer& server, bool allow = true) {
    std::vector<std::string> f{"--ca-file", server.ca_file()};
    for (const auto& c : server.connect_to()) f.insert(f.end(), {"--connect-to", c});
    if (allow) f.insert(f.end(), {"--allow-host", "127.0.0.1"});
    return f;
}

std::string unhex(const std::string& h) {
    std::string out;
    for (size_t i = 2; i + 1 < h.size(); i += 2)
        out += static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16));
    return out;
}

}  // namespace

TEST(cli_verify_fetch, prints_status_size_keccak_and_body) {
    // Bytes and their keccak256 from ethers' vectors (not computed by credence).
    const auto vectors = credence::testing::read_vector_json("ethers/hashes.json");
    const auto& v = vectors.at(1);
    const std::string body = unhex(v["data"].get<std::string>());
    credence::testing::HttpsServer server({"agent-a.test"});
    server.serve("agent-a.test", "/blob", body, "application/octet-stream");
    const FetchRun r = run_fetch({"https://agent-a.test/blob", "--json"}, false, flags(server));
    ASSERT_EQ(r.status, 0) << r.out;
    const auto doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc["status"], 200);
    EXPECT_EQ(doc["url"], "https://agent-a.test/blob");
    EXPECT_EQ(doc["contentType"], "application/octet-stream");
    EXPECT_EQ(doc["size"], body.size());
    EXPECT_EQ(doc["keccak256"], v["keccak256"]);
}

TEST(cli_verify_fetch, plain_output_ends_with_the_body) {
    credence::testing::HttpsServer server({"agent-a.test"});
    server.serve("agent-a.test", "/agent.json", R"({"name":"agent a"})");
    const FetchRun r = run_fetch({"https://agent-a.test/agent.json"}, false, flags(server));
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("https://agent-a.test/agent.json\n200\napplication/json\n18\n0x"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find(R"({"name":"agent a"})"), std::string::npos) << r.out;
}

TEST(cli_verify_fetch, loopback_is_refused_without_allow_host) {
    credence::testing::HttpsServer server({"agent-a.test"});
    server.serve("agent-a.test", "/agent.json", "{}");
    const FetchRun r = run_fetch({"https://agent-a.test/agent.json"}, true, flags(server, false));
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out.rfind("error: fetch https://agent-a.test/agent.json: blocked_address: ", 0), 0U)
        << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_EQ(server.hits("agent-a.test", "/agent.json"), 0U);
}

TEST(cli_verify_fetch, manifest_kind_refuses_redirects_and_registration_follows) {
    credence::testing::HttpsServer server({"tools.test"});
    server.redirect("tools.test", "/.well-known/ai-tool/t.json", "/moved.json");
    server.serve("tools.test", "/moved.json", "{}");
    const std::string url = "https://tools.test/.well-known/ai-tool/t.json";
    const FetchRun manifest = run_fetch({url, "--kind", "manifest"}, true, flags(server));
    EXPECT_EQ(manifest.status, 1);
    EXPECT_NE(manifest.out.find("redirect_refused"), std::string::npos) << manifest.out;
    const FetchRun registration =
        run_fetch({url, "--kind", "registration", "--json"}, false, flags(server));
    ASSERT_EQ(registration.status, 0) << registration.out;
    EXPECT_EQ(nlohmann::json::parse(registration.out)["url"], "https://tools.test/moved.json");
}

TEST(cli_verify_fetch, data_uri_and_bad_kind) {
    const FetchRun r = run_fetch({"data:application/json;base64,eyJhIjoxfQ==", "--json"});
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(nlohmann::json::parse(r.out)["body"], R"({"a":1})");
    EXPECT_NE(run_fetch({"data:,x", "--kind", "nope"}).status, 0);
    const FetchRun bad = run_fetch({"data:;base64,%%%"}, true);
    EXPECT_EQ(bad.status, 1);
    EXPECT_NE(bad.out.find("bad_data_uri"), std::string::npos) << bad.out;
}

// docs/cli.md §fetch flags: a malformed --allow-host entry is refused as a usage error naming
// it, before anything is fetched, never silently dropped.
TEST(cli_verify_fetch, malformed_allow_host_is_refused) {
    for (const std::string entry : {"demo.test=127.0.0.1:99999", "10.0.0.0/33", "not a host"}) {
        const FetchRun r = run_fetch({"data:,x"}, true, {"--allow-host", entry});
        EXPECT_NE(r.status, 0) << entry << ": " << r.out;
        const std::string first_line = r.out.substr(0, r.out.find('\n'));
        EXPECT_NE(first_line.find("--allow-host"), std::string::npos) << r.out;
        EXPECT_NE(first_line.find("allowed host \"" + entry + "\""), std::string::npos) << r.out;
    }
}

// docs/cli.md §fetch flags: `ipfs://` goes to the public trustless gateways the node asks by
// default (trustless-gateway.link first), `--ipfs-gateway` replaces them and `--no-ipfs-gateway`
// asks none. The gateway here is a loopback server answering for that name (--connect-to); the
// CID and its bytes are the published CIDv1 of "hello world\n" (the IPFS docs').
TEST(cli_verify_fetch, ipfs_goes_to_the_default_public_gateways_unless_told_otherwise) {
    const std::string cid = "bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4";
    const std::string path = "/ipfs/" + cid;
    credence::testing::HttpsServer server({"trustless-gateway.link", "gateway.test"});
    server.serve("trustless-gateway.link", path, "hello world\n", "application/vnd.ipld.raw");
    server.serve("gateway.test", path, "hello world\n", "application/vnd.ipld.raw");

    const FetchRun by_default = run_fetch({"ipfs://" + cid, "--json"}, false, flags(server));
    ASSERT_EQ(by_default.status, 0) << by_default.out;
    EXPECT_EQ(nlohmann::json::parse(by_default.out)["body"], "hello world\n");
    EXPECT_EQ(server.hits("trustless-gateway.link", path), 1U);

    auto replaced = flags(server);
    replaced.insert(replaced.end(), {"--ipfs-gateway", "https://gateway.test"});
    const FetchRun own = run_fetch({"ipfs://" + cid, "--json"}, false, replaced);
    ASSERT_EQ(own.status, 0) << own.out;
    EXPECT_EQ(server.hits("gateway.test", path), 1U);
    EXPECT_EQ(server.hits("trustless-gateway.link", path), 1U) << "the default was asked too";

    auto none = flags(server);
    none.emplace_back("--no-ipfs-gateway");
    const FetchRun refused = run_fetch({"ipfs://" + cid}, true, none);
    EXPECT_EQ(refused.status, 1);
    EXPECT_NE(refused.out.find("no_gateway"), std::string::npos) << refused.out;
    EXPECT_EQ(server.hits("", path), 2U);

    // Both at once is a usage error, before anything is fetched.
    none.insert(none.end(), {"--ipfs-gateway", "https://gateway.test"});
    EXPECT_NE(run_fetch({"ipfs://" + cid}, true, none).status, 0);
    EXPECT_EQ(server.hits("", path), 2U);
}
