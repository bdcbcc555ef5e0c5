// The operationId journal: durable before send, reused after a crash, one id per key across
// concurrent processes, corrupt files refused (ERC-8301 §Data Envelopes, operationId rules).
#include <credence/chain/operation_journal.hpp>

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <support/scratch.hpp>

namespace {

using credence::chain::BeginOptions;
using credence::chain::JournalError;
using credence::chain::OperationEntry;
using credence::chain::OperationJournal;
using credence::chain::OperationKey;
using credence::chain::OperationStatus;
namespace core = credence::core;

using credence::testing::TempDir;

core::Hash32 filled(uint8_t b) {
    core::Hash32 h{};
    h.fill(b);
    return h;
}

OperationKey sample_key(uint8_t content = 0xcc) {
    OperationKey k;
    k.chain_id = 31337;
    k.workflow = *core::Address::from_hex("0x5fbdb2315678afecb367f032d93f642f64180aa3",
                                          core::ChecksumMode::ignore);
    k.run_id = filled(0x11);
    k.task_hashes = {filled(0x22)};
    k.replier = *core::Address::from_hex("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
                                         core::ChecksumMode::ignore);
    k.content_hash = filled(content);
    return k;
}

BeginOptions with_timestamp(uint64_t ts) {
    BeginOptions o;
    o.timestamp = ts;
    return o;
}

BeginOptions new_operation() {
    BeginOptions o;
    o.new_operation = true;
    return o;
}

BeginOptions with_operation_id(const core::Hash32& id) {
    BeginOptions o;
    o.operation_id = id;
    return o;
}

std::string read_journal(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

size_t count_lines(const std::filesystem::path& p) {
    const std::string s = read_journal(p);
    return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

}  // namespace

TEST(chain_operation_journal, random_operation_ids_are_nonzero_and_distinct) {
    // ERC-8301: operationId MUST be non-zero; a uniformly random bytes32 is RECOMMENDED.
    std::set<core::Hash32> seen;
    for (int i = 0; i < 64; ++i) {
        auto id = credence::chain::random_operation_id();
        ASSERT_TRUE(id);
        EXPECT_NE(*id, core::Hash32{});
        seen.insert(*id);
    }
    EXPECT_EQ(seen.size(), 64U);
}

TEST(chain_operation_journal, begin_saves_a_pending_entry_another_instance_reads_back) {
    TempDir dir;
    const auto path = credence::chain::journal_path(dir.path());
    EXPECT_EQ(path, dir.path() / "journal" / "operations.jsonl");
    OperationJournal journal(path);
    auto begun = journal.begin(sample_key(), with_timestamp(1234));
    ASSERT_TRUE(begun) << begun.error().detail;
    EXPECT_FALSE(begun->reused);
    EXPECT_EQ(begun->entry.status, OperationStatus::pending);
    EXPECT_NE(begun->entry.operation_id, core::Hash32{});

    // A separate object (as a new process would) sees the durable entry.
    OperationJournal other(path);
    auto entries = other.entries();
    ASSERT_TRUE(entries);
    ASSERT_EQ(entries->size(), 1U);
    EXPECT_EQ((*entries)[0], begun->entry);
    EXPECT_EQ((*entries)[0].timestamp, 1234U);
    EXPECT_EQ(count_lines(path), 1U);
}

TEST(chain_operation_journal, missing_file_is_an_empty_journal) {
    TempDir dir;
    OperationJournal journal(dir.path() / "nope" / "operations.jsonl");
    auto entries = journal.entries();
    ASSERT_TRUE(entries);
    EXPECT_TRUE(entries->empty());
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "nope"));
}

TEST(chain_operation_journal, crash_between_save_and_send_retries_with_same_operation_id) {
    TempDir dir;
    const auto path = credence::chain::journal_path(dir.path());
    // The "sender" process saves the operation and dies before sending (no destructors, no
    // further writes): only what begin() made durable survives.
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        OperationJournal j(path);
        auto r = j.begin(sample_key(), with_timestamp(777));
        _exit(r ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    auto saved = OperationJournal(path).entries();
    ASSERT_TRUE(saved);
    ASSERT_EQ(saved->size(), 1U);
    EXPECT_EQ((*saved)[0].status, OperationStatus::pending);

    // The re-run reuses the saved operationId and its first timestamp, appending nothing.
    OperationJournal journal(path);
    auto retry = journal.begin(sample_key(), with_timestamp(999));
    ASSERT_TRUE(retry) << retry.error().detail;
    EXPECT_TRUE(retry->reused);
    EXPECT_EQ(retry->entry.operation_id, (*saved)[0].operation_id);
    EXPECT_EQ(retry->entry.timestamp, 777U);
    EXPECT_EQ(count_lines(path), 1U);
}

TEST(chain_operation_journal, status_updates_append_and_the_latest_snapshot_wins) {
    TempDir dir;
    const auto path = credence::chain::journal_path(dir.path());
    OperationJournal journal(path);
    auto begun = journal.begin(sample_key(), with_timestamp(5));
    ASSERT_TRUE(begun);
    OperationEntry e = begun->entry;
    e.status = OperationStatus::sent;
    e.txn_hash = filled(0x33);
    ASSERT_TRUE(journal.record(e));
    e.status = OperationStatus::mined;
    e.reply_hash = filled(0x44);
    e.block_num = 17;
    ASSERT_TRUE(journal.record(e));
    EXPECT_EQ(count_lines(path), 3U);

    auto entries = journal.entries();
    ASSERT_TRUE(entries);
    ASSERT_EQ(entries->size(), 1U);
    EXPECT_EQ((*entries)[0], e);

    // A retry of a mined operation still finds it (the caller checks the chain before sending).
    auto again = journal.begin(sample_key(), BeginOptions{});
    ASSERT_TRUE(again);
    EXPECT_TRUE(again->reused);
    EXPECT_EQ(again->entry.status, OperationStatus::mined);
    EXPECT_EQ(again->entry.reply_hash, filled(0x44));
}

TEST(chain_operation_journal, new_operation_over_same_content_gets_a_new_id) {
    // ERC-8301: "An intentional new operation over the same input or output MUST use a new
    // operationId", and operationId MUST NOT be derived from content.
    TempDir dir;
    OperationJournal journal(credence::chain::journal_path(dir.path()));
    auto first = journal.begin(sample_key(), BeginOptions{});
    auto second = journal.begin(sample_key(), new_operation());
    ASSERT_TRUE(first && second);
    EXPECT_FALSE(second->reused);
    EXPECT_NE(first->entry.operation_id, second->entry.operation_id);
    // A plain retry now resumes the newest operation.
    auto retry = journal.begin(sample_key(), BeginOptions{});
    ASSERT_TRUE(retry);
    EXPECT_EQ(retry->entry.operation_id, second->entry.operation_id);
}

TEST(chain_operation_journal, different_content_is_a_different_operation) {
    TempDir dir;
    OperationJournal journal(credence::chain::journal_path(dir.path()));
    auto a = journal.begin(sample_key(0xaa), BeginOptions{});
    auto b = journal.begin(sample_key(0xbb), BeginOptions{});
    ASSERT_TRUE(a && b);
    EXPECT_FALSE(b->reused);
    EXPECT_NE(a->entry.operation_id, b->entry.operation_id);
}

TEST(chain_operation_journal, explicit_operation_id_for_other_content_in_same_run_conflicts) {
    // ERC-8301 §onAgentReply step 1: reusing an operationId for different output is a conflict.
    TempDir dir;
    const auto path = credence::chain::journal_path(dir.path());
    OperationJournal journal(path);
    const core::Hash32 op = filled(0x5a);
    auto first = journal.begin(sample_key(0xaa), with_operation_id(op));
    ASSERT_TRUE(first);
    EXPECT_EQ(first->entry.operation_id, op);

    auto same = journal.begin(sample_key(0xaa), with_operation_id(op));
    ASSERT_TRUE(same);
    EXPECT_TRUE(same->reused);

    auto conflict = journal.begin(sample_key(0xbb), with_operation_id(op));
    ASSERT_FALSE(conflict);
    EXPECT_EQ(conflict.error().code, JournalError::operation_conflict);
    EXPECT_NE(conflict.error().detail.find("was already used in run"), std::string::npos);

    // The on-chain scope is (run, replier): the same id in another run is a new operation.
    OperationKey other_run = sample_key(0xbb);
    other_run.run_id = filled(0x99);
    auto elsewhere = journal.begin(other_run, with_operation_id(op));
    ASSERT_TRUE(elsewhere);
    EXPECT_FALSE(elsewhere->reused);
    EXPECT_EQ(count_lines(path), 2U);
}

TEST(chain_operation_journal, garbage_line_is_an_error_naming_file_and_line) {
    TempDir dir;
    const auto path = credence::chain::journal_path(dir.path());
    OperationJournal journal(path);
    ASSERT_TRUE(journal.begin(sample_key(), BeginOptions{}));
    std::ofstream(path, std::ios::app) << "this is not a record\n";
    const std::string before = read_journal(path);

    auto entries = journal.entries();
    ASSERT_FALSE(entries);
    EXPECT_EQ(entries.error().code, JournalError::corrupt);
    EXPECT_NE(entries.error().detail.find(path.string() + " line 2"), std::string::npos)
        << entries.error().detail;
    // begin() refuses too, and writes nothing.
    auto begun = journal.begin(sample_key(0x01), BeginOptions{});
    ASSERT_FALSE(begun);
    EXPECT_EQ(begun.error().code, JournalError::corrupt);
    EXPECT_EQ(read_journal(path), before);
}

TEST(chain_operation_journal, flipped_byte_fails_the_checksum) {
    TempDir dir;
    const auto path = credence::chain::journal_path(dir.path());
    OperationJournal journal(path);
    auto begun = journal.begin(sample_key(), BeginOptions{});
    ASSERT_TRUE(begun);
    std::string text = read_journal(path);
    // Change one hex digit of the operationId: still valid JSON, wrong checksum.
    const std::string op_hex = core::to_hex(begun->entry.operation_id);
    const size_t at = text.find(op_hex);
    ASSERT_NE(at, std::string::npos);
    text[at + 2] = text[at + 2] == 'a' ? 'b' : 'a';
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;

    auto entries = journal.entries();
    ASSERT_FALSE(entries);
    EXPECT_EQ(entries.error().code, JournalError::corrupt);
    EXPECT_NE(entries.error().detail.find("line 1: checksum mismatch"), std::string::npos)
        << entries.error().detail;
}

TEST(chain_operation_journal, torn_last_line_is_an_error) {
    TempDir dir;
    const auto path = credence::chain::journal_path(dir.path());
    OperationJournal journal(path);
    ASSERT_TRUE(journal.begin(sample_key(), BeginOptions{}));
    std::string text = read_journal(path);
    text.pop_back();  // the LF
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    auto entries = journal.entries();
    ASSERT_FALSE(entries);
    EXPECT_NE(entries.error().detail.find("incomplete line"), std::string::npos);
}

TEST(chain_operation_journal, hand_written_valid_line_is_accepted) {
    // journal_line() is the format: a checksummed line written by another tool reads back.
    TempDir dir;
    const auto path = credence::chain::journal_path(dir.path());
    std::filesystem::create_directories(path.parent_path());
    OperationEntry e;
    e.key = sample_key();
    e.operation_id = filled(0x7e);
    e.timestamp = 42;
    e.status = OperationStatus::reverted;
    e.error = "onAgentReply reverted: RunNotPending(workflowRunId=0x11…) \"quoted\"";
    std::ofstream(path, std::ios::binary) << credence::chain::journal_line(e, 1) << "\n";
    auto entries = OperationJournal(path).entries();
    ASSERT_TRUE(entries) << entries.error().detail;
    ASSERT_EQ(entries->size(), 1U);
    EXPECT_EQ((*entries)[0], e);
}

TEST(chain_operation_journal, concurrent_processes_agree_on_one_operation_id) {
    TempDir dir;
    const auto path = credence::chain::journal_path(dir.path());
    constexpr int kProcs = 8;
    std::array<int, 2> fds{};
    ASSERT_EQ(pipe(fds.data()), 0);
    std::vector<pid_t> pids;
    for (int i = 0; i < kProcs; ++i) {
        const pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            ::close(fds[0]);
            OperationJournal j(path);
            auto r = j.begin(sample_key(), BeginOptions{});
            if (!r) _exit(1);
            const auto& id = r->entry.operation_id;
            const ssize_t n = ::write(fds[1], id.data(), id.size());
            _exit(n == static_cast<ssize_t>(id.size()) ? 0 : 1);
        }
        pids.push_back(pid);
    }
    ::close(fds[1]);
    for (pid_t pid : pids) {
        int status = 0;
        ASSERT_EQ(waitpid(pid, &status, 0), pid);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    std::set<core::Hash32> ids;
    core::Hash32 id{};
    while (::read(fds[0], id.data(), id.size()) == static_cast<ssize_t>(id.size())) ids.insert(id);
    ::close(fds[0]);
    EXPECT_EQ(ids.size(), 1U);
    EXPECT_EQ(count_lines(path), 1U);
}
