// Shared plumbing of the agent runtime (TaskWorker, Validator): the persisted log cursor with its
// reorg check, contract-call failures as AgentFailures, durable files and an interruptible sleep.
// Internal to agent/.
// Thread-safety: every object here belongs to one worker thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include <credence/agent/task_worker.hpp>
#include <credence/chain/contract_call.hpp>
#include <credence/chain/rpc_client.hpp>
#include <credence/chain/txn_sender.hpp>
#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <expected>
#include <string_view>

namespace credence::agent::detail {

std::unexpected<AgentFailure> fail(AgentError code, std::string detail);

/// How far a log follower has read, persisted as state_dir/<name> (JSON {"block","hash"}),
/// written to a temporary file, fsynced and renamed.
class Cursor {
public:
    Cursor(std::filesystem::path file, uint64_t start_block)
        : file_(std::move(file)), start_block_(start_block) {}
    [[nodiscard]] AgentResult<void> load();
    [[nodiscard]] AgentResult<void> save(uint64_t block, const core::Hash32& hash);
    /// The next block to read.
    [[nodiscard]] uint64_t next() const noexcept { return block_ ? *block_ + 1 : start_block_; }
    [[nodiscard]] std::optional<uint64_t> block() const noexcept { return block_; }
    [[nodiscard]] const core::Hash32& hash() const noexcept { return hash_; }
    /// Moves back `depth` blocks (not before the start block) after a reorg.
    void rewind(uint64_t depth) noexcept;

private:
    std::filesystem::path file_;
    uint64_t start_block_ = 0;
    std::optional<uint64_t> block_;
    core::Hash32 hash_{};
};

/// Logs of `address` with `topics` in [cursor.next(), head - confirmations], in ranges of
/// max_range; checks the cursor's block hash first and rewinds on a reorg (reorged = true).
struct LogBatch {
    std::vector<chain::Log> logs;
    uint64_t head = 0;      // eth_blockNumber when the batch was read
    uint64_t to_block = 0;  // read through this block (the new cursor)
    core::Hash32 to_hash{};
    bool reorged = false;
    bool empty_range = true;  // nothing new to read
};
[[nodiscard]] AgentResult<LogBatch> read_logs(chain::RpcClient& rpc, Cursor& cursor,
                                              const core::Address& address,
                                              const std::vector<chain::TopicFilter>& topics,
                                              uint64_t confirmations, uint64_t max_range,
                                              uint64_t reorg_depth);

/// A call helper's failure (chain/contract_call.hpp) as an AgentFailure with its one line:
/// AgentError::abi when the call could not be encoded or its answer decoded, else rpc.
[[nodiscard]] std::unexpected<AgentFailure> call_failed(const chain::CallError& error);

/// Sleeps `d` or until `stop` is requested. Returns false when stopped.
bool sleep_for(const std::stop_token& stop, std::chrono::milliseconds d);

/// Writes `content` to `path` durably (temporary file, fsync, rename, fsync of the directory).
[[nodiscard]] AgentResult<void> write_file_durably(const std::filesystem::path& path,
                                                   std::string_view content);
/// The file's content, or nullopt when it does not exist.
[[nodiscard]] AgentResult<std::optional<std::string>> read_file(const std::filesystem::path& path);

/// Latest block.
[[nodiscard]] AgentResult<chain::Block> latest_block(chain::RpcClient& rpc);

}  // namespace credence::agent::detail
