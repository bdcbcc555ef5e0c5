// Test support for the agent runtime's fault tests (reorgs, a lost RPC): a devnet fixture with
// the few chain actions they need, and RpcProxy, a TCP proxy on 127.0.0.1 in front of anvil that
// the test can take down (connections refused, open ones cut) and bring back on the same port.
// Header-only, test code only (included by *_test.cpp in this folder).
// Thread-safety: RpcProxy's methods may be called from any thread; the fixture belongs to the
// test's thread.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <credence/agent/handler.hpp>
#include <credence/agent/task_worker.hpp>
#include <credence/chain/bindings/i_agent_workflow.hpp>
#include <credence/chain/contract_call.hpp>
#include <credence/chain/txn_sender.hpp>
#include <credence/core/keccak.hpp>
#include <support/devnet.hpp>
#include <support/scratch.hpp>

namespace credence::agent::testing {

namespace iw = chain::bindings::i_agent_workflow;

inline std::filesystem::path fresh_state_dir(const std::string& name) {
    static std::atomic<int> counter{0};
    auto p = credence::testing::scratch_dir() / (name + "-" + std::to_string(++counter));
    std::filesystem::remove_all(p);
    return p;
}

/// A TCP proxy from 127.0.0.1:<port> to 127.0.0.1:<upstream_port>. down() closes the listening
/// socket and cuts every open connection, so clients see "connection refused" / "reset"; up()
/// listens on the same port again. cut_after("eth_sendRawTransaction") makes the next connection
/// that carries that text lose its answer: the request reaches the node, the proxy goes down
/// before the response is forwarded (a node lost right after it accepted a transaction).
class RpcProxy {
public:
    explicit RpcProxy(uint16_t upstream_port) : upstream_port_(upstream_port) {
        up();
        thread_ = std::thread([this] { accept_loop(); });
    }
    ~RpcProxy() {
        stopping_ = true;
        thread_.join();
        down();
        std::vector<std::thread> pumps;
        {
            std::lock_guard lock(mutex_);
            pumps.swap(pumps_);
        }
        for (auto& t : pumps) t.join();
    }
    RpcProxy(const RpcProxy&) = delete;
    RpcProxy& operator=(const RpcProxy&) = delete;
    RpcProxy(RpcProxy&&) = delete;
    RpcProxy& operator=(RpcProxy&&) = delete;

    [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

    void up() {
        std::lock_guard lock(mutex_);
        if (listener_ >= 0) return;
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        const int one = 1;
        ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(port_);
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
        if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
            ::listen(fd, 64) != 0) {
            ::close(fd);
            ADD_FAILURE() << "RpcProxy: cannot listen on port " << port_;
            return;
        }
        socklen_t len = sizeof addr;
        // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
        port_ = ntohs(addr.sin_port);
        listener_ = fd;
    }

    void down() {
        std::lock_guard lock(mutex_);
        if (listener_ >= 0) {
            ::close(listener_);
            listener_ = -1;
        }
        for (const int fd : open_) ::shutdown(fd, SHUT_RDWR);
    }

    [[nodiscard]] bool is_up() const {
        std::lock_guard lock(mutex_);
        return listener_ >= 0;
    }

    /// The next connection whose request contains `text` loses its answer and takes the proxy
    /// down (see above).
    void cut_after(std::string text) {
        std::lock_guard lock(mutex_);
        cut_text_ = std::move(text);
    }

    /// Connections accepted so far.
    [[nodiscard]] size_t accepted() const { return accepted_.load(); }
    /// Answers the proxy dropped (cut_after).
    [[nodiscard]] size_t cuts() const { return cuts_.load(); }

private:
    void accept_loop() {
        while (!stopping_) {
            int listener = -1;
            {
                std::lock_guard lock(mutex_);
                listener = listener_;
            }
            if (listener < 0) {
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
                continue;
            }
            pollfd p{listener, POLLIN, 0};
            if (::poll(&p, 1, 20) <= 0) continue;
            const int client = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
            if (client < 0) continue;
            const int server = connect_upstream();
            if (server < 0) {
                ::close(client);
                continue;
            }
            ++accepted_;
            std::lock_guard lock(mutex_);
            open_.push_back(client);
            open_.push_back(server);
            pumps_.emplace_back([this, client, server] { pump(client, server); });
        }
    }

    [[nodiscard]] int connect_upstream() const {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(upstream_port_);
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
        if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
            ::close(fd);
            return -1;
        }
        return fd;
    }

    void pump(int client, int server) {
        std::string seen;  // what the client sent, to match cut_text_ across reads
        bool cut_armed = false;
        std::vector<char> buf(64 * 1024);
        pollfd fds[2] = {{client, POLLIN, 0}, {server, POLLIN, 0}};
        while (!stopping_) {
            if (::poll(fds, 2, 50) < 0) break;
            bool closed = false;
            for (int i = 0; i < 2 && !closed; ++i) {
                if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
                const ssize_t n = ::read(fds[i].fd, buf.data(), buf.size());
                if (n <= 0) {
                    closed = true;
                    break;
                }
                const auto size = static_cast<size_t>(n);
                if (i == 0) {
                    std::lock_guard lock(mutex_);
                    seen.append(buf.data(), size);
                    if (!cut_text_.empty() && seen.find(cut_text_) != std::string::npos) {
                        cut_armed = true;
                        cut_text_.clear();
                    }
                } else if (cut_armed) {
                    // The node answered a request that must look lost: drop the answer, go down.
                    ++cuts_;
                    closed = true;
                    down();
                    break;
                }
                if (!write_all(fds[1 - i].fd, buf.data(), size)) closed = true;
            }
            if (closed) break;
        }
        std::lock_guard lock(mutex_);
        std::erase(open_, client);
        std::erase(open_, server);
        ::close(client);
        ::close(server);
    }

    static bool write_all(int fd, const char* data, size_t size) {
        while (size > 0) {
            const ssize_t w = ::send(fd, data, size, MSG_NOSIGNAL);
            if (w <= 0) return false;
            data += w;
            size -= static_cast<size_t>(w);
        }
        return true;
    }

    uint16_t upstream_port_;
    uint16_t port_ = 0;
    int listener_ = -1;
    std::string cut_text_;
    std::vector<int> open_;
    std::vector<std::thread> pumps_;
    mutable std::mutex mutex_;
    std::atomic<bool> stopping_{false};
    std::atomic<size_t> accepted_{0};
    std::atomic<size_t> cuts_{0};
    std::thread thread_;
};

/// A devnet per test with the chain actions the fault tests share.
class WorkerDevnet : public credence::testing::DevnetFixture {
protected:
    /// run(input) on `workflow` from dev account 9: (run id, task hash).
    std::pair<core::Hash32, core::Hash32> start_run(const core::Address& workflow,
                                                    const std::string& input) {
        const auto data = iw::run(core::keccak256(input), core::as_bytes(std::string_view(input)),
                                  core::Uint256{devnet().chain_time() + 600});
        EXPECT_TRUE(data);
        const auto receipt = devnet().send(9, workflow, *data);
        for (const auto& log : receipt.logs) {
            if (auto e = iw::decode_new_agent_task_event(log.topics, log.data))
                return {e->workflow_run_id, e->task_hash};
        }
        ADD_FAILURE() << "run() emitted no NewAgentTask";
        return {};
    }

    /// getReplyHashByOperation(run, replier, operationId) on the current chain.
    core::Hash32 canonical_reply(const core::Address& workflow, const core::Hash32& run_id,
                                 const core::Address& replier, const core::Hash32& op) {
        auto rpc = devnet().rpc();
        chain::ContractCaller caller(rpc);
        auto r = iw::call::get_reply_hash_by_operation(caller, workflow, run_id, replier, op);
        EXPECT_TRUE(r) << r.error().message();
        return r ? *r : core::Hash32{};
    }

    /// AgentReplyAnchored logs of `run_id` by `replier` on the current chain.
    size_t anchored_replies(const core::Address& workflow, const core::Hash32& run_id,
                            const core::Address& replier) {
        auto rpc = devnet().rpc();
        chain::LogFilter filter;
        filter.from_block = chain::BlockId(0);
        filter.to_block = chain::BlockId::latest();
        filter.addresses = {workflow};
        filter.topics = {std::vector<core::Hash32>{iw::kAgentReplyAnchoredTopic}};
        auto logs = rpc.get_logs(filter);
        EXPECT_TRUE(logs);
        size_t n = 0;
        if (!logs) return n;
        for (const auto& log : *logs) {
            auto e = iw::decode_agent_reply_anchored_event(log.topics, log.data);
            if (e && e->workflow_run_id == run_id && e->replier == replier) ++n;
        }
        return n;
    }

    /// A worker for dev key `key_index` with `handler`, over `rpc` (default: the devnet's).
    std::unique_ptr<TaskWorker> make_worker(size_t key_index, const core::Address& workflow,
                                            WorkerConfig config = {},
                                            std::optional<chain::RpcClient> rpc = std::nullopt) {
        auto key = devnet().secret_key(key_index);
        auto h = make_handler("builtin:echo");
        EXPECT_TRUE(h);
        config.workflow = workflow;
        if (config.state_dir.empty()) config.state_dir = fresh_state_dir("worker");
        config.receipt_timeout = std::chrono::milliseconds(10'000);
        auto w = TaskWorker::create(rpc ? std::move(*rpc) : devnet().rpc(), std::move(key),
                                    devnet().secret_key(0), std::move(*h), config);
        EXPECT_TRUE(w) << (w ? "" : w.error().detail);
        return w ? std::move(*w) : nullptr;
    }

    /// Steps `worker` until it reports `task_hash` with an outcome other than deferred (5 s at
    /// most); that report, or nullopt.
    static std::optional<TaskReport> step_until(TaskWorker& worker, const core::Hash32& task_hash) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (std::chrono::steady_clock::now() < deadline) {
            auto r = worker.step();
            EXPECT_TRUE(r) << (r ? "" : r.error().detail);
            if (!r) return std::nullopt;
            for (const auto& rep : *r)
                if (rep.task_hash == task_hash && rep.outcome != TaskOutcome::deferred) return rep;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return std::nullopt;
    }

    /// A raw JSON-RPC request to the devnet (evm_snapshot, evm_revert, evm_mine).
    nlohmann::json request(const std::string& method,
                           nlohmann::json params = nlohmann::json::array()) {
        auto rpc = devnet().rpc();
        auto r = rpc.request(method, std::move(params));
        EXPECT_TRUE(r) << method << ": " << (r ? "" : r.error().to_string());
        return r ? *r : nlohmann::json{};
    }
};

}  // namespace credence::agent::testing
