#include <credence/index/writer_lock.hpp>

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "support/scratch.hpp"

namespace credence::index {
namespace {

TEST(index_writer_lock, one_writer_per_chain_and_sqlite_file_until_it_lets_go) {
    const testing::TempDir dir;
    const std::string path = (dir.path() / "index.sqlite").string();
    auto db = open_database(path);
    ASSERT_TRUE(db) << db.error().message;
    auto other = open_database("sqlite:" + path);
    ASSERT_TRUE(other) << other.error().message;

    {
        auto first = WriterLock::acquire(**db, 1);
        ASSERT_TRUE(first) << first.error();
        // flock(2) locks open file descriptions, so a second holder in this very process is
        // refused too, with the pid the first one wrote.
        auto second = WriterLock::acquire(**other, 1);
        ASSERT_FALSE(second);
        EXPECT_EQ(second.error(), "another credence process (pid " + std::to_string(::getpid()) +
                                      ") is indexing chain 1 into " + path +
                                      ": stop it, or give this one its own --database");
        // Another chain's indexer shares the file (rows carry the chain id).
        EXPECT_TRUE(WriterLock::acquire(**other, 10));
        // Moving keeps the lock held.
        WriterLock moved = std::move(*first);
        EXPECT_FALSE(WriterLock::acquire(**other, 1));
    }
    EXPECT_TRUE(WriterLock::acquire(**other, 1));  // released with its holder
}

}  // namespace
}  // namespace credence::index
