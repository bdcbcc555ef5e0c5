// Validator: an ERC-8004 validator agent (ERC-8004 §Validation Registry).
//
// Loop (step()): read ValidationRequest logs of the ValidationRegistry addressed to this
// validator (topic1 = its address) from a persisted cursor; for each request not yet answered:
//   1. fetch requestURI through the safe fetcher (verify/net/fetch.hpp: SSRF guard, size and time
//      limits; data:, https:, ipfs:);
//   2. check keccak256(content) == requestHash, and refuse the request otherwise (ERC-8004
//      §Validation Request: "requestHash is a commitment to the data"), with a reason;
//   3. re-run the job through a Handler (kind = validation, input = the fetched content); the
//      output is the response file, and its "score" member (0..100, when the output is a JSON
//      object with one) is the response; else the configured default score;
//   4. publish the response file (a data: URI by default, or through a caller-provided
//      Publisher), responseHash = keccak256(file);
//   5. call validationResponse(requestHash, score, responseURI, responseHash, tag). With
//      progressive responses, first with soft_tag, then again with hard_tag ("validationResponse()
//      can be called multiple times ... soft finality and hard finality using tag").
// A request is done when getValidationStatus shows our final tag and responseHash, so a restart
// never answers twice (and finishes a progressive answer that stopped after the soft response).
//
// Thread-safety: one thread per Validator. Ownership: owns its RpcClient, key, handler, fetcher;
// borrows the Publisher (must outlive the validator).
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include <credence/agent/handler.hpp>
#include <credence/agent/poll_loop.hpp>
#include <credence/agent/task_worker.hpp>
#include <credence/chain/log_wakeup.hpp>
#include <credence/chain/rpc_client.hpp>
#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/secp256k1.hpp>
#include <credence/core/uint256.hpp>
#include <credence/verify/net/fetch.hpp>

namespace credence::agent {

/// Why a request was not answered.
enum class ValidationRefusal {
    fetch_failed,    // requestURI could not be fetched (detail: the FetchError)
    hash_mismatch,   // keccak256(content) != requestHash
    handler_failed,  // the handler failed or declined
    publish_failed,  // the response file could not be published
    rejected,        // validationResponse reverted (detail: the error)
};

[[nodiscard]] std::string_view to_string(ValidationRefusal r) noexcept;

struct ValidationReport {
    core::Hash32 request_hash{};
    core::Uint256 agent_id;
    std::string request_uri;
    bool answered = false;          // false: refused (see refusal)
    bool already_answered = false;  // a restart found the final response on-chain
    std::optional<ValidationRefusal> refusal;
    std::string detail;
    uint8_t score = 0;
    std::string response_uri;
    core::Hash32 response_hash{};
    std::vector<std::string> tags_sent;  // in order (soft then hard with progressive responses)
};

/// Publishes a response file and returns its URI. The default publishes a data: URI.
class Publisher {
public:
    virtual ~Publisher() = default;
    [[nodiscard]] virtual std::expected<std::string, std::string> publish(
        const core::Hash32& request_hash, core::ByteView content) = 0;
};

struct ValidatorConfig {
    core::Address registry;  // the ValidationRegistry
    std::filesystem::path state_dir;
    uint64_t start_block = 0;
    uint64_t max_log_range = 5'000;
    uint64_t reorg_depth = 64;
    unsigned txn_confirmations = 1;
    std::chrono::milliseconds receipt_timeout{30'000};
    /// The tag of the (final) response.
    std::string tag = "hard-finality";
    /// When set: a first response with this tag, then the final one with `tag`.
    std::optional<std::string> soft_tag;
    /// Score when the handler's output carries none.
    uint8_t default_score = 100;
    verify::FetchPolicy fetch_policy;
    std::chrono::milliseconds poll_interval{200};
    std::chrono::milliseconds max_backoff{5'000};
    /// run()'s pause (agent/poll_loop.hpp); empty: a real sleep.
    PollSleep sleep;
    /// run(): when set (and `sleep` is empty), an eth_subscribe to this validator's
    /// ValidationRequest logs ends the pause early (agent/log_wakeup.hpp). nullopt: poll only.
    std::optional<chain::SubscribeConfig> subscribe;
};

class Validator {
public:
    /// `fetcher`: nullptr makes the default curl fetcher. `publisher`: nullptr publishes data:
    /// URIs; else borrowed.
    [[nodiscard]] static AgentResult<std::unique_ptr<Validator>> create(
        chain::RpcClient rpc, core::SecretKey key, std::unique_ptr<Handler> handler,
        std::unique_ptr<verify::Fetcher> fetcher, Publisher* publisher, ValidatorConfig config);

    ~Validator();
    Validator(const Validator&) = delete;
    Validator& operator=(const Validator&) = delete;
    Validator(Validator&&) = delete;
    Validator& operator=(Validator&&) = delete;

    [[nodiscard]] const core::Address& address() const noexcept;

    /// Handles every request addressed to this validator up to the head.
    [[nodiscard]] AgentResult<std::vector<ValidationReport>> step();

    /// step() until `stop`; failures back off as TaskWorker::run does.
    void run(const std::stop_token& stop,
             const std::function<void(const ValidationReport&)>& on_report = {},
             const std::function<void(const AgentFailure&)>& on_error = {});

private:
    struct Impl;
    explicit Validator(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace credence::agent
