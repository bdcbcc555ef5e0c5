// HTTP transport for JSON-RPC: the injection point between the client and the network.
//
// RpcTransport posts one JSON body and returns the response body, or a typed RpcError for the
// transport layer (transport, timeout, http_status, too_large). It never interprets JSON; retries
// are the client's job (rpc_retry.hpp), so a transport makes exactly one attempt per post().
//
// CurlTransport is the production implementation over libcurl. It keeps one CURL easy handle for
// its lifetime, so consecutive requests reuse the TCP connection (HTTP keep-alive).
// Thread-safety: a CurlTransport is NOT thread-safe (the easy handle is shared state); use one per
// thread, or guard it with a mutex. Distinct instances may be used from distinct threads.
// Ownership: owns its CURL handle; move-only.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include <credence/chain/rpc_error.hpp>

namespace credence::chain {

class RpcTransport {
public:
    virtual ~RpcTransport() = default;
    /// POSTs `body` (application/json) and returns the body of a 2xx response.
    [[nodiscard]] virtual RpcResult<std::string> post(std::string_view body) = 0;
    /// A second transport to the same endpoint with the same options and its own connection,
    /// for a second thread (requests in flight side by side); nullptr when it cannot be made.
    [[nodiscard]] virtual std::unique_ptr<RpcTransport> clone() const { return nullptr; }
};

struct HttpOptions {
    std::chrono::milliseconds connect_timeout{5'000};
    /// Whole request, connect included.
    std::chrono::milliseconds total_timeout{30'000};
    /// Bodies larger than this fail with too_large (eth_getLogs can return tens of MiB).
    size_t max_response_bytes = size_t{64} << 20;
};

class CurlTransport final : public RpcTransport {
public:
    /// `url` is the JSON-RPC endpoint, e.g. "http://127.0.0.1:8545".
    explicit CurlTransport(std::string url, HttpOptions options = {});
    ~CurlTransport() override;
    CurlTransport(CurlTransport&&) noexcept;
    CurlTransport& operator=(CurlTransport&&) noexcept;
    CurlTransport(const CurlTransport&) = delete;
    CurlTransport& operator=(const CurlTransport&) = delete;

    [[nodiscard]] RpcResult<std::string> post(std::string_view body) override;
    [[nodiscard]] std::unique_ptr<RpcTransport> clone() const override;
    [[nodiscard]] const std::string& url() const noexcept { return url_; }

private:
    struct Impl;
    std::string url_;
    HttpOptions options_;
    std::unique_ptr<Impl> impl_;
};

}  // namespace credence::chain
