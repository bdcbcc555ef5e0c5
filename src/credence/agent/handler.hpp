// Handlers: the work an agent does for one ERC-8301 task or one ERC-8004 validation request.
//
// A Handler turns a job (HandlerInput) into an output (HandlerOutput). Two kinds exist:
//   - an external command (make_command_handler): the job as one JSON document on stdin, the
//     output bytes on stdout; a timeout and an output size limit bound it, and the child is
//     killed (SIGKILL to its process group) when either is exceeded;
//   - built-ins (make_builtin_handler) for demos and tests: echo, uppercase, bid, bft, score.
// make_handler("builtin:NAME" | "COMMAND LINE") picks one.
//
// Job JSON on stdin (one object, keys in this order):
//   {"kind":"task"|"validation","chainId":N,"contract":"0x..","agent":"0x..",
//    "taskHash":"0x..","runId":"0x..","stage":N,"taskSeq":"N","inputHash":"0x..",
//    "input":"0x..","inputText":"..."|null,"expiresAt":"N",
//    "prevReplies":[{"replyHash":"0x..","replier":"0x..","outputHash":"0x..","output":"0x.."}],
//    "requestHash":"0x.."|null,"requestURI":"..."|null}
// inputText is the input as UTF-8 when it is valid UTF-8, else null. For a task whose input is
// empty on-chain (later stages carry only inputHash, ERC-8301 §AgentTask "MAY be empty"), the
// effective input is the output of the first previous reply (the primary one).
// Exit status: 0 = output on stdout; 100 = decline (not a job for this agent: no reply is sent);
// anything else = failure (stderr's first line is the detail).
//
// Thread-safety: a Handler is used by one worker thread at a time; distinct handlers are
// independent. Ownership: HandlerInput is borrowed for the call only.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>

namespace credence::agent {

enum class HandlerError {
    bad_spec,   // unknown builtin, empty command line
    spawn,      // fork/exec/pipe failed
    timeout,    // the command ran past its timeout (it was killed)
    too_large,  // stdout exceeded the output limit (it was killed)
    failed,     // non-zero exit other than the decline status, or death by a signal
    bad_input,  // a builtin cannot use this input (e.g. bft without a secret)
};

[[nodiscard]] std::string_view to_string(HandlerError e) noexcept;

struct HandlerFailure {
    HandlerError code = HandlerError::failed;
    std::string detail;  // one line
};

template <typename T>
using HandlerResult = std::expected<T, HandlerFailure>;

struct PrevReply {
    core::Hash32 reply_hash{};
    core::Address replier;
    core::Hash32 output_hash{};
    core::Bytes output;
};

enum class JobKind { task, validation };

struct HandlerInput {
    JobKind kind = JobKind::task;
    uint64_t chain_id = 0;
    core::Address contract;  // the workflow, or the ValidationRegistry
    core::Address agent;     // the replier / validator address
    // ERC-8301 task fields (kind == task).
    core::Hash32 task_hash{};
    core::Hash32 run_id{};
    uint8_t stage = 0;
    uint64_t task_seq = 0;
    core::Hash32 input_hash{};
    core::Bytes input;  // the task's input, or the fetched request content (validation)
    uint64_t expires_at = 0;
    std::vector<PrevReply> prev_replies;
    // ERC-8004 validation fields (kind == validation).
    core::Hash32 request_hash{};
    std::string request_uri;

    /// input, or (when it is empty) the primary previous reply's output.
    [[nodiscard]] core::ByteView effective_input() const noexcept;
};

struct HandlerOutput {
    /// Declined: the job is not for this agent; nothing is submitted.
    bool decline = false;
    core::Bytes output;
    /// outputHash to commit to; nullopt: keccak256(output). Set by handlers that commit to a
    /// value whose preimage they do not publish (ERC-8301 Scenario 4's commit and finalize).
    std::optional<core::Hash32> output_hash;
    /// Send an empty output on-chain (only outputHash commits to it).
    bool withhold_output = false;
};

class Handler {
public:
    virtual ~Handler() = default;
    [[nodiscard]] virtual HandlerResult<HandlerOutput> handle(const HandlerInput& input) = 0;
    /// "builtin:echo", "command:<argv0>": for logs.
    [[nodiscard]] virtual std::string name() const = 0;
};

struct CommandOptions {
    std::chrono::milliseconds timeout{10'000};
    size_t max_output_bytes = size_t{1} << 20;
};

/// The job as the JSON text an external command reads (see the top of this file).
[[nodiscard]] std::string job_json(const HandlerInput& input);

/// Runs `command_line` through /bin/sh -c for each job.
[[nodiscard]] std::unique_ptr<Handler> make_command_handler(std::string command_line,
                                                            CommandOptions options = {});

/// Context the builtins may need.
struct BuiltinContext {
    /// A per-agent secret (e.g. derived from the agent's key) for the bft commitment nonce.
    core::Hash32 secret{};
    /// The price the bid builtin offers; nullopt: derived from the secret (1..1000).
    std::optional<uint64_t> bid_price;
};

/// Builtins:
///   echo       output = effective input
///   uppercase  output = effective input with ASCII letters upper-cased
///   bid        ERC-8301 Scenario 2: stage 0 output = abi.encode(uint256 price); later stages echo
///   bft        ERC-8301 Scenario 4: stage 0 commits to result || nonce (output withheld),
///              stage 1 reveals result || nonce (64 bytes), stage 2 commits to the majority word
///              (outputHash = the task's inputHash); result = keccak256("credence.bft" || question)
///   score      validation: {"score":100,"bytes":N} when the request content is a JSON document,
///              {"score":0,...} otherwise
[[nodiscard]] HandlerResult<std::unique_ptr<Handler>> make_builtin_handler(
    std::string_view name, const BuiltinContext& context = {});

/// "builtin:NAME" -> make_builtin_handler, anything else -> make_command_handler.
[[nodiscard]] HandlerResult<std::unique_ptr<Handler>> make_handler(
    std::string_view spec, const BuiltinContext& context = {}, CommandOptions options = {});

/// Exit status an external command uses to decline a job.
inline constexpr int kDeclineExitStatus = 100;

}  // namespace credence::agent
