// The local journal of ERC-8301 reply operations: the operationId of each logical reply is chosen
// and saved durably BEFORE the reply is sent, so that a retry after a crash (of the CLI, the
// machine or the network) carries the same operationId and the workflow contract resolves it to
// the first canonical replyHash instead of anchoring a second reply.
//
// ERC-8301 §Data Envelopes: "operationId ... MUST be non-zero, opaque, assigned by the logical
// operation's originator before the first submission, and carried unchanged by the replier across
// retries. A uniformly random bytes32 value is RECOMMENDED. ... Implementations MUST NOT derive
// operationId from reply content." So new operationIds are 32 bytes from getrandom(2); the reply
// content only finds the journal entry of an operation already begun (the key below), it never
// determines the id. "An intentional new operation over the same input or output MUST use a new
// operationId": BeginOptions::new_operation asks for one.
//
// Key of an operation: (chain id, workflow address, workflowRunId, prevTaskHashes, replier,
// content hash = outputHash). ERC-8301 scopes an operationId on-chain to (run, replier); the task
// list and the content hash make the journal find the operation that a re-run command repeats.
//
// File format: append-only JSON Lines, one record per line, each line
//     <16 hex digits>SP<compact JSON object>LF
// where the hex digits are the first 8 bytes of keccak256 of the JSON text (a checksum against
// torn or edited lines). A record is a full snapshot of one operation; later records of the same
// operationId supersede earlier ones (status pending -> sent -> mined, or reverted). Fields:
//     {"v":1,"chainId":31337,"workflow":"0x..","runId":"0x..","taskHashes":["0x.."],
//      "replier":"0x..","contentHash":"0x..","operationId":"0x..","timestamp":1700000000,
//      "status":"pending"|"sent"|"mined"|"reverted","txnHash":"0x.."|null,"replyHash":..|null,
//      "blockNum":N|null,"error":"one line"|null,"recordedAt":<unix seconds>}
// Any line that does not parse, fails its checksum, or lacks its final LF makes the whole journal
// an error (JournalError::corrupt naming the file and line): an operationId must never be
// forgotten silently, since forgetting it would turn a retry into a second reply.
//
// Durability: every append is write(2) of the whole line to an O_APPEND descriptor followed by
// fsync(2); the directory is fsynced when the file is created. Concurrency: every operation holds
// flock(LOCK_EX) on the journal file for its read-modify-append, so concurrent CLI processes
// agree on one operationId per key.
// Thread-safety: an OperationJournal object is not thread-safe; separate objects (in threads or
// processes) on the same file are safe. Ownership: holds only the path; each call opens the file.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>

namespace credence::chain {

enum class JournalError {
    io,                  // the file or its directory cannot be created, read, locked or synced
    corrupt,             // a line fails to parse or its checksum (detail: file and line number)
    operation_conflict,  // an explicit operationId already names other content in the same run
    rng,                 // getrandom(2) failed
};

[[nodiscard]] std::string_view to_string(JournalError e) noexcept;

struct JournalFailure {
    JournalError code = JournalError::io;
    std::string detail;  // one line
};

template <typename T>
using JournalResult = std::expected<T, JournalFailure>;

enum class OperationStatus {
    pending,   // saved, not (known to be) sent
    sent,      // submitted; txn_hash set
    mined,     // the reply is anchored on-chain; reply_hash set
    reverted,  // the last attempt reverted; error set
};

[[nodiscard]] std::string_view to_string(OperationStatus s) noexcept;

/// What identifies one logical reply operation in the journal.
struct OperationKey {
    uint64_t chain_id = 0;
    core::Address workflow;
    core::Hash32 run_id{};
    std::vector<core::Hash32> task_hashes;
    core::Address replier;
    core::Hash32 content_hash{};  // outputHash = keccak256(output)

    friend bool operator==(const OperationKey&, const OperationKey&) = default;
};

struct OperationEntry {
    OperationKey key;
    core::Hash32 operation_id{};
    uint64_t timestamp = 0;  // AgentReply.timestamp of the first attempt, reused by retries
    OperationStatus status = OperationStatus::pending;
    std::optional<core::Hash32> txn_hash;
    std::optional<core::Hash32> reply_hash;
    std::optional<uint64_t> block_num;
    std::optional<std::string> error;

    friend bool operator==(const OperationEntry&, const OperationEntry&) = default;
};

struct BeginOptions {
    /// Use this operationId (e.g. one the originator assigned elsewhere) instead of a new one.
    std::optional<core::Hash32> operation_id;
    /// Start a new logical operation even if the key already has one (ERC-8301: an intentional
    /// new operation over the same content MUST use a new operationId).
    bool new_operation = false;
    /// AgentReply.timestamp recorded with a new entry.
    uint64_t timestamp = 0;
};

struct BeginResult {
    OperationEntry entry;
    bool reused = false;  // true: an existing operation of this key (a retry)
};

/// A fresh uniformly random non-zero operationId (getrandom(2)).
[[nodiscard]] JournalResult<core::Hash32> random_operation_id();

/// <home>/journal/operations.jsonl, the journal's place under credence_home().
[[nodiscard]] std::filesystem::path journal_path(const std::filesystem::path& home);

/// The checksummed line (without LF) for an entry; exposed for tests that write files by hand.
[[nodiscard]] std::string journal_line(const OperationEntry& entry, uint64_t recorded_at);

class OperationJournal {
public:
    explicit OperationJournal(std::filesystem::path path) : path_(std::move(path)) {}

    [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

    /// Under the lock: finds the latest operation of `key` (unless options.new_operation or an
    /// explicit operation_id says otherwise) and returns it with reused = true; else appends a
    /// pending entry with a new (or the given) operationId, fsyncs, and returns it. The entry is
    /// durable when this returns, so the caller may send.
    [[nodiscard]] JournalResult<BeginResult> begin(const OperationKey& key,
                                                   const BeginOptions& options);
    /// Appends a new snapshot of an operation (status change), fsynced.
    [[nodiscard]] JournalResult<void> record(const OperationEntry& entry);
    /// The latest snapshot of every operation, in order of first appearance. A missing file is an
    /// empty journal.
    [[nodiscard]] JournalResult<std::vector<OperationEntry>> entries() const;

private:
    std::filesystem::path path_;
};

}  // namespace credence::chain
