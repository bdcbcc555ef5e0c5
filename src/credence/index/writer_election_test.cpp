// The writer election on a real PostgreSQL server (tests/support/postgres.hpp): one writer per
// chain, and the lock leaving with its holder's session however that session ends.
#include <credence/index/writer_election.hpp>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include <credence/index/writer_lock.hpp>
#include <support/postgres.hpp>
#include <support/scratch.hpp>

namespace credence::index {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

std::unique_ptr<Database> connect(const std::string& url) {
    auto db = open_database(url);
    EXPECT_TRUE(db) << db.error().to_string();
    return db ? std::move(*db) : nullptr;
}

int64_t session_pid(Database& db) {
    auto rows = db.query("SELECT pg_backend_pid()");
    if (!rows || rows->empty()) return 0;
    return std::get<int64_t>(rows->front()[0]);
}

// How long `db` took to win `chain_id`'s lock, trying every 10 ms; nullopt past `limit`.
std::optional<milliseconds> time_to_win(Database& db, uint64_t chain_id, milliseconds limit) {
    const auto start = Clock::now();
    while (Clock::now() - start < limit) {
        auto won = try_become_writer(db, chain_id);
        EXPECT_TRUE(won) << won.error().to_string();
        if (!won) return std::nullopt;
        if (*won) return std::chrono::duration_cast<milliseconds>(Clock::now() - start);
        std::this_thread::sleep_for(milliseconds(10));
    }
    return std::nullopt;
}

int thread_count() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.starts_with("Threads:")) return std::stoi(line.substr(8));
    return -1;
}

TEST(index_writer_election, keys_fold_the_chain_id_to_32_bits) {
    static_assert(kWriterLockNamespace == 0x43524544);  // "CRED"
    EXPECT_EQ(writer_lock_chain_key(1), 1);
    EXPECT_EQ(writer_lock_chain_key(84532), 84532);
    EXPECT_EQ(writer_lock_chain_key(0xffff'ffffULL), -1);
    EXPECT_EQ(writer_lock_chain_key((uint64_t{1} << 32) | 5), 4);
}

TEST(index_writer_election, one_writer_per_chain_until_its_connection_closes) {
    CREDENCE_POSTGRES_URL(url);
    auto a = connect(url);
    auto b = connect(url);
    ASSERT_TRUE(a && b);

    auto won = try_become_writer(*a, 1);
    ASSERT_TRUE(won) << won.error().to_string();
    EXPECT_TRUE(*won);
    EXPECT_TRUE(try_become_writer(*a, 1).value_or(false));  // held already: still true
    EXPECT_FALSE(try_become_writer(*b, 1).value_or(true));
    // Another chain elects on its own.
    EXPECT_TRUE(try_become_writer(*b, 10).value_or(false));
    EXPECT_FALSE(try_become_writer(*a, 10).value_or(true));

    EXPECT_TRUE(still_writer(*a, 1).value_or(false));
    EXPECT_FALSE(still_writer(*b, 1).value_or(true));
    auto holder = current_writer(*b, 1);
    ASSERT_TRUE(holder) << holder.error().to_string();
    ASSERT_TRUE(holder->has_value());
    EXPECT_EQ((*holder)->backend_pid, session_pid(*a));
    EXPECT_EQ((*holder)->client_addr, "127.0.0.1");
    EXPECT_GT((*holder)->backend_start_unix, 1'700'000'000);
    auto nobody = current_writer(*b, 2);
    ASSERT_TRUE(nobody) << nobody.error().to_string();
    EXPECT_FALSE(nobody->has_value());

    // The lock was taken once however often it was asked for: one resign releases it.
    ASSERT_TRUE(resign_writer(*a, 1));
    EXPECT_FALSE(still_writer(*a, 1).value_or(true));
    EXPECT_TRUE(try_become_writer(*b, 1).value_or(false));
    ASSERT_TRUE(resign_writer(*b, 1));
    EXPECT_TRUE(try_become_writer(*a, 1).value_or(false));

    // Closing the holder's connection ends its session, and the lock with it.
    a.reset();
    const auto took = time_to_win(*b, 1, milliseconds(5000));
    ASSERT_TRUE(took) << "the lock outlived its holder's closed connection";
    std::printf("takeover after the holder closed its connection: %lld ms\n",
                static_cast<long long>(took->count()));
}

TEST(index_writer_election, sigkilled_writer_process_hands_over) {
    CREDENCE_POSTGRES_URL(url);
    auto standby = connect(url);
    ASSERT_TRUE(standby);
    constexpr uint64_t kForkedChain = 31337;

    // fork() without exec is safe only while this process has one thread.
    ASSERT_EQ(thread_count(), 1);
    int ready[2];
    ASSERT_EQ(::pipe2(ready, O_CLOEXEC), 0);
    const pid_t parent = ::getpid();
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        // The writer: its own connection, the lock, then nothing until it is killed.
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(1);
        ::close(ready[0]);
        char won = '0';
        if (auto db = open_database(url)) {
            auto r = try_become_writer(**db, kForkedChain);
            if (r && *r) won = '1';
            [[maybe_unused]] auto n = ::write(ready[1], &won, 1);
            for (;;) ::pause();
        }
        [[maybe_unused]] auto n = ::write(ready[1], &won, 1);
        ::_exit(1);
    }
    ::close(ready[1]);
    struct Reaper {
        pid_t pid;
        ~Reaper() {
            if (pid > 0) {
                ::kill(pid, SIGKILL);
                ::waitpid(pid, nullptr, 0);
            }
        }
    } reaper{child};
    pollfd pfd{ready[0], POLLIN, 0};
    ASSERT_EQ(::poll(&pfd, 1, 20'000), 1) << "the child did not report within 20 s";
    char won = 0;
    ASSERT_EQ(::read(ready[0], &won, 1), 1);
    ::close(ready[0]);
    ASSERT_EQ(won, '1') << "the child process did not become writer";

    EXPECT_FALSE(try_become_writer(*standby, kForkedChain).value_or(true));
    auto holder = current_writer(*standby, kForkedChain);
    ASSERT_TRUE(holder && holder->has_value());
    EXPECT_NE((*holder)->backend_pid, session_pid(*standby));

    const auto killed = Clock::now();
    ASSERT_EQ(::kill(child, SIGKILL), 0);
    ASSERT_EQ(::waitpid(child, nullptr, 0), child);
    reaper.pid = -1;
    const auto took = time_to_win(*standby, kForkedChain, milliseconds(10'000));
    ASSERT_TRUE(took) << "no takeover within 10 s of the writer's SIGKILL";
    const auto since_kill = std::chrono::duration_cast<milliseconds>(Clock::now() - killed);
    EXPECT_LE(since_kill.count(), 10'000);
    std::printf("takeover after SIGKILL of the writer process: %lld ms\n",
                static_cast<long long>(since_kill.count()));
    RecordProperty("takeover_ms", static_cast<int>(since_kill.count()));
    EXPECT_TRUE(still_writer(*standby, kForkedChain).value_or(false));
}

TEST(index_writer_election, terminated_writer_loses_lock_and_batch) {
    CREDENCE_POSTGRES_URL(url);
    auto writer = connect(url);
    auto next = connect(url);
    auto admin = connect(url);
    ASSERT_TRUE(writer && next && admin);
    ASSERT_TRUE(writer->exec_script("CREATE TABLE rows_written (x BIGINT)"));
    ASSERT_TRUE(try_become_writer(*writer, 7).value_or(false));

    // A batch in flight when the session is terminated (pg_terminate_backend from elsewhere).
    ASSERT_TRUE(writer->begin());
    const DbValue one[] = {int64_t{1}};
    ASSERT_TRUE(writer->exec("INSERT INTO rows_written (x) VALUES ($1)", one));
    auto holder = current_writer(*admin, 7);
    ASSERT_TRUE(holder && holder->has_value());
    const DbValue pid[] = {(*holder)->backend_pid};
    auto terminated = admin->query("SELECT pg_terminate_backend($1::int4)", pid);
    ASSERT_TRUE(terminated) << terminated.error().to_string();

    const auto took = time_to_win(*next, 7, milliseconds(10'000));
    ASSERT_TRUE(took) << "no takeover within 10 s of pg_terminate_backend";
    std::printf("takeover after pg_terminate_backend: %lld ms\n",
                static_cast<long long>(took->count()));
    auto still = still_writer(*writer, 7);
    ASSERT_TRUE(still) << still.error().to_string();
    EXPECT_FALSE(*still);
    auto committed = writer->commit();
    ASSERT_FALSE(committed);
    EXPECT_EQ(committed.error().kind, DbErrorKind::connection) << committed.error().to_string();
    auto later = writer->exec("INSERT INTO rows_written (x) VALUES ($1)", one);
    ASSERT_FALSE(later);
    EXPECT_EQ(later.error().kind, DbErrorKind::connection);
    auto rows = next->query("SELECT count(*) FROM rows_written");
    ASSERT_TRUE(rows) << rows.error().to_string();
    EXPECT_EQ(std::get<int64_t>(rows->front()[0]), 0);
}

TEST(index_writer_election, election_polls_at_the_retry_interval_and_notices_a_lost_lock) {
    CREDENCE_POSTGRES_URL(url);
    auto a = connect(url);
    auto b = connect(url);
    ASSERT_TRUE(a && b);
    WriterElection first(*a, 5, milliseconds(0));
    WriterElection patient(*b, 5, std::chrono::hours(1));
    EXPECT_EQ(first.role(), WriterRole::standby);
    EXPECT_EQ(first.poll().value_or(WriterRole::standby), WriterRole::writer);
    EXPECT_EQ(patient.poll().value_or(WriterRole::writer), WriterRole::standby);

    // The writer's lock goes; the patient standby does not ask again within its interval.
    ASSERT_TRUE(resign_writer(*a, 5));
    EXPECT_EQ(first.poll().value_or(WriterRole::writer), WriterRole::standby);
    EXPECT_EQ(patient.poll().value_or(WriterRole::writer), WriterRole::standby);
    WriterElection eager(*b, 5, milliseconds(0));
    EXPECT_EQ(eager.poll().value_or(WriterRole::standby), WriterRole::writer);
    EXPECT_EQ(first.poll().value_or(WriterRole::writer), WriterRole::standby);
}

TEST(index_writer_election, sqlite_leaves_the_choice_to_the_indexers_file_lock) {
    const testing::TempDir dir;
    const std::string path = (dir.path() / "index.sqlite").string();
    auto a = open_database(path);
    auto b = open_database(path);
    ASSERT_TRUE(a && b);
    // The advisory-lock functions are PostgreSQL's.
    auto misuse = try_become_writer(**a, 1);
    ASSERT_FALSE(misuse);
    EXPECT_EQ(misuse.error().kind, DbErrorKind::misuse);

    WriterElection first(**a, 1, milliseconds(0));
    WriterElection second(**b, 1, milliseconds(0));
    EXPECT_EQ(first.poll().value_or(WriterRole::standby), WriterRole::writer);
    EXPECT_EQ(second.poll().value_or(WriterRole::standby), WriterRole::writer);
    // The election holds no lock, so the indexer's own (Indexer::start) is the one that decides.
    auto lock = WriterLock::acquire(**a, 1);
    ASSERT_TRUE(lock) << lock.error();
    EXPECT_FALSE(WriterLock::acquire(**b, 1));
}

}  // namespace
}  // namespace credence::index
