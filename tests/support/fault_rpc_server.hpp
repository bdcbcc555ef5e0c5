// A JSON-RPC server on 127.0.0.1 for fault-injection tests of the indexer's log source: a real
// cpp-httplib server on a kernel-chosen port, run on its own thread, that hands each parsed
// request to the test's handler. Helpers build eth_getLogs log objects and response bodies, and
// SyntheticLogs serves a made-up chain's logs by range and address, recording every range asked.
//
//   FaultRpcServer server([&](const nlohmann::json& req, httplib::Response& res) {
//       res.set_content(ok_body(req["id"], logs.select(req)), "application/json");
//   });
//   auto client = chain::RpcClient::make_http(server.url());
//
// Header-only, so that it needs no line in the test CMake.
// Thread-safety: the handler runs on the server's worker threads; SyntheticLogs guards its call
// record with a mutex. The destructor stops the server and joins its thread.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>

namespace credence::testing {

class FaultRpcServer {
public:
    /// Gets each request body parsed (a request object, or an array for a batch); a body that is
    /// not JSON gets HTTP 400 without reaching the handler.
    using Handler = std::function<void(const nlohmann::json& request, httplib::Response& res)>;

    explicit FaultRpcServer(Handler handler) : handler_(std::move(handler)) {
        server_.Post("/", [this](const httplib::Request& req, httplib::Response& res) {
            nlohmann::json parsed = nlohmann::json::parse(req.body, nullptr, false);
            if (parsed.is_discarded()) {
                res.status = 400;
                return;
            }
            handler_(parsed, res);
            // cpp-httplib 0.11 compresses "application/json" bodies when the client accepts it,
            // and prefers brotli at quality 11 (CurlTransport accepts any encoding): 45 s for a
            // 6 MB eth_getLogs body on this machine. A Content-Type with a parameter is not on
            // its compressible list, so bodies go out as they are, as from a node.
            if (auto it = res.headers.find("Content-Type");
                it != res.headers.end() && it->second == "application/json") {
                it->second = "application/json; charset=utf-8";
            }
        });
        port_ = server_.bind_to_any_port("127.0.0.1");
        thread_ = std::thread([this] { server_.listen_after_bind(); });
        while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ~FaultRpcServer() {
        server_.stop();
        thread_.join();
    }
    FaultRpcServer(const FaultRpcServer&) = delete;
    FaultRpcServer& operator=(const FaultRpcServer&) = delete;
    FaultRpcServer(FaultRpcServer&&) = delete;
    FaultRpcServer& operator=(FaultRpcServer&&) = delete;

    [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

private:
    Handler handler_;
    httplib::Server server_;
    int port_ = 0;
    std::thread thread_;
};

/// "0x1a"-style QUANTITY.
inline std::string quantity(uint64_t v) {
    static constexpr char kDigits[] = "0123456789abcdef";
    if (v == 0) return "0x0";
    std::string out;
    while (v != 0) {
        out.insert(out.begin(), kDigits[v & 0xfU]);
        v >>= 4U;
    }
    return "0x" + out;
}

/// A QUANTITY param ("0x1a") as a number; 0 when malformed.
inline uint64_t param_u64(const nlohmann::json& j) {
    if (!j.is_string()) return 0;
    return std::stoull(j.get<std::string>().substr(2), nullptr, 16);
}

/// A deterministic 32-byte word from a seed, as 0x-hex.
inline std::string word_hex(uint64_t seed, uint8_t tag) {
    core::Hash32 h{};
    for (size_t i = 0; i < 8; ++i) h[24 + i] = static_cast<uint8_t>(seed >> (8 * (7 - i)));
    h[0] = tag;
    return core::to_hex(h);
}

/// An eth_getLogs log object (execution-apis Log) at (block_num, log_index) from `address`, with
/// `topics` topics and `data_bytes` bytes of data, all derived from the position.
inline nlohmann::json make_log(uint64_t block_num, uint64_t log_index, const core::Address& address,
                               size_t topics = 2, size_t data_bytes = 64) {
    nlohmann::json t = nlohmann::json::array();
    for (size_t i = 0; i < topics; ++i) t.push_back(word_hex((block_num << 16U) + i, 0x70));
    core::Bytes data(data_bytes);
    for (size_t i = 0; i < data.size(); ++i)
        data[i] = static_cast<uint8_t>(block_num + log_index + i);
    return nlohmann::json{{"address", address.to_lower_hex()},
                          {"topics", std::move(t)},
                          {"data", core::to_hex(data)},
                          {"blockNumber", quantity(block_num)},
                          {"blockHash", word_hex(block_num, 0xb0)},
                          {"transactionHash", word_hex((block_num << 20U) + log_index, 0x7e)},
                          {"transactionIndex", quantity(log_index / 2)},
                          {"logIndex", quantity(log_index)},
                          {"removed", false}};
}

inline std::string ok_body(const nlohmann::json& id, const nlohmann::json& result) {
    return nlohmann::json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}.dump();
}

inline std::string error_body(const nlohmann::json& id, int64_t code, const std::string& message) {
    return nlohmann::json{
        {"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}}
        .dump();
}

/// A made-up chain's logs, served by range and address like a node's eth_getLogs.
class SyntheticLogs {
public:
    struct Range {
        uint64_t from_block = 0;
        uint64_t to_block = 0;
        friend bool operator==(const Range&, const Range&) = default;
    };

    void add(nlohmann::json log) { logs_.push_back(std::move(log)); }
    /// `per_block` logs from `address` in each block of [from_block, to_block].
    void fill(uint64_t from_block, uint64_t to_block, uint64_t per_block,
              const core::Address& address) {
        for (uint64_t b = from_block; b <= to_block; ++b) {
            for (uint64_t i = 0; i < per_block; ++i) add(make_log(b, i, address));
        }
    }

    /// The logs matching an eth_getLogs request object's filter (range and address); records the
    /// range.
    [[nodiscard]] nlohmann::json select(const nlohmann::json& request) {
        const auto& filter = request["params"][0];
        const Range range{param_u64(filter["fromBlock"]), param_u64(filter["toBlock"])};
        {
            std::lock_guard lock(mutex_);
            calls_.push_back(range);
        }
        std::vector<std::string> wanted;
        if (filter.contains("address")) {
            const auto& a = filter["address"];
            if (a.is_string()) wanted.push_back(a.get<std::string>());
            if (a.is_array()) {
                for (const auto& e : a) wanted.push_back(e.get<std::string>());
            }
        }
        nlohmann::json out = nlohmann::json::array();
        for (const auto& log : logs_) {
            const uint64_t b = param_u64(log["blockNumber"]);
            if (b < range.from_block || b > range.to_block) continue;
            const auto addr = log["address"].get<std::string>();
            if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), addr) == wanted.end()) {
                continue;
            }
            out.push_back(log);
        }
        return out;
    }

    /// Every range asked so far, in order.
    [[nodiscard]] std::vector<Range> calls() const {
        std::lock_guard lock(mutex_);
        return calls_;
    }

private:
    std::vector<nlohmann::json> logs_;
    mutable std::mutex mutex_;
    std::vector<Range> calls_;
};

}  // namespace credence::testing
