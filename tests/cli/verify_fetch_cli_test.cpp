// End-to-end tests of `credence verify fetch` against a real HTTPS server on loopback
// (tests/support/https_server.hpp): the shared fetch flags, the per-kind policies, the output
// (keccak256 checked against ethers' vectors) and the one-line typed error with exit code 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "support/https_server.hpp"
#include "support/vectors.hpp"

namespace {

struct CliRun {
    int status = -1;
    std::string out;
};

CliRun run_credence(const std::string& args, bool merge_stderr = false) {
    const std::string cmd =
        std::string(CREDENCE_BIN) + " " + args + (merge_stderr ? " 2>&1" : " 2>/dev/null");
    CliRun r;
    FILE* p = popen(cmd.c_str(), "r");
    if (p == nullptr) return r;
    std::array<char, 4096> buf{};
    size_t n = 0;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
    const int status = pclose(p);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

std::string flags(const credence::testing::HttpsServer& server, bool allow = true) {
    std::string f = " --ca-file " + server.ca_file();
    for (const auto& c : server.connect_to()) f += " --connect-to " + c;
    if (allow) f += " --allow-host 127.0.0.1";
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
    const CliRun r = run_credence("verify fetch https://agent-a.test/blob --json" + flags(server));
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
    const CliRun r = run_credence("verify fetch https://agent-a.test/agent.json" + flags(server));
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("https://agent-a.test/agent.json\n200\napplication/json\n18\n0x"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find(R"({"name":"agent a"})"), std::string::npos) << r.out;
}

TEST(cli_verify_fetch, loopback_is_refused_without_allow_host) {
    credence::testing::HttpsServer server({"agent-a.test"});
    server.serve("agent-a.test", "/agent.json", "{}");
    const CliRun r =
        run_credence("verify fetch https://agent-a.test/agent.json" + flags(server, false), true);
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
    const CliRun manifest =
        run_credence("verify fetch " + url + " --kind manifest" + flags(server), true);
    EXPECT_EQ(manifest.status, 1);
    EXPECT_NE(manifest.out.find("redirect_refused"), std::string::npos) << manifest.out;
    const CliRun registration =
        run_credence("verify fetch " + url + " --kind registration --json" + flags(server));
    ASSERT_EQ(registration.status, 0) << registration.out;
    EXPECT_EQ(nlohmann::json::parse(registration.out)["url"], "https://tools.test/moved.json");
}

TEST(cli_verify_fetch, data_uri_and_bad_kind) {
    const CliRun r =
        run_credence("verify fetch 'data:application/json;base64,eyJhIjoxfQ==' --json");
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(nlohmann::json::parse(r.out)["body"], R"({"a":1})");
    EXPECT_NE(run_credence("verify fetch data:,x --kind nope").status, 0);
    const CliRun bad = run_credence("verify fetch 'data:;base64,%%%' ", true);
    EXPECT_EQ(bad.status, 1);
    EXPECT_NE(bad.out.find("bad_data_uri"), std::string::npos) << bad.out;
}
