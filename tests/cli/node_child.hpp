// What the `credence node` end-to-end tests share: the node as a child process, and reading its
// status (docs/node.md).
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "support/child_process.hpp"
#include "support/devnet.hpp"

namespace credence::testing::node_cli {

using Clock = std::chrono::steady_clock;

// A `credence node` child with its own CREDENCE_HOME; SIGKILLed if the test bails out.
class NodeChild : public ChildProcess {
public:
    NodeChild(const std::filesystem::path& home, std::vector<std::string> args)
        : ChildProcess(argv(std::move(args)), home, home / "node.out", home / "node.err") {}

    /// The URL from "credence node: serving <url>", or nullopt after `limit`.
    std::optional<std::string> wait_serving(std::chrono::milliseconds limit) {
        static const std::regex line(R"(credence node: serving (http://127\.0\.0\.1:\d+))");
        const auto until = Clock::now() + limit;
        while (Clock::now() < until) {
            std::smatch m;
            const std::string text = out();
            if (std::regex_search(text, m, line)) return m[1].str();
            if (exited()) return std::nullopt;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return std::nullopt;
    }

private:
    static std::vector<std::string> argv(std::vector<std::string> args) {
        std::vector<std::string> all{CREDENCE_BIN, "node"};
        all.insert(all.end(), args.begin(), args.end());
        return all;
    }
};

/// GET `path` on the node; the parsed JSON body and status.
inline std::pair<int, nlohmann::json> get_json(const std::string& url, const std::string& path) {
    httplib::Client client(url);
    client.set_connection_timeout(std::chrono::seconds(2));
    client.set_read_timeout(std::chrono::seconds(3));
    auto res = client.Get(path);
    if (!res) return {0, nlohmann::json()};
    return {res->status, nlohmann::json::parse(res->body, nullptr, false)};
}

/// Polls /api/v1/status until `done(status)` or `limit`.
template <typename Pred>
nlohmann::json wait_status(const std::string& url, std::chrono::milliseconds limit, Pred done) {
    const auto until = Clock::now() + limit;
    nlohmann::json last;
    while (Clock::now() < until) {
        auto [code, body] = get_json(url, "/api/v1/status");
        if (code == 200) {
            last = body;
            if (done(body)) return body;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return last;
}

/// The test devnet's deployment file (the node's own CREDENCE_HOME is a fresh directory).
inline std::string deployment_of(const Devnet& devnet) {
    return (devnet.home() / "deployments" / (std::to_string(devnet.chain_id()) + ".json")).string();
}

/// The devnet's head block (0, with a test failure, when it does not answer).
inline uint64_t head_of(Devnet& devnet) {
    auto rpc = devnet.rpc();
    auto head = rpc.block_number();
    EXPECT_TRUE(head);
    return head.value_or(0);
}

}  // namespace credence::testing::node_cli
