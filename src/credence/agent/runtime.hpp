// Shared plumbing of the agent runtime (TaskWorker, Validator): the persisted log cursor with its
// reorg check, eth_call with revert names, the transaction sender that is rebuilt after failures,
// and an interruptible sleep. Internal to agent/.
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

/// An eth_call's failure: a revert (with its error name, e.g. "TaskNotEligible") or another
/// failure.
struct CallFailure {
    bool reverted = false;
    std::string error_name;  // custom error's name, "" when unknown
    std::string detail;
};
[[nodiscard]] std::expected<core::Bytes, CallFailure> call(chain::RpcClient& rpc,
                                                           const core::Address& to,
                                                           core::ByteView data);

/// The custom error's name ("NotSelectedBidder") for revert data of any Credence contract,
/// else "".
[[nodiscard]] std::string revert_error_name(core::ByteView revert_data);
/// A one-line description of revert data against every Credence contract's errors.
[[nodiscard]] std::string describe_revert(core::ByteView revert_data);

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
