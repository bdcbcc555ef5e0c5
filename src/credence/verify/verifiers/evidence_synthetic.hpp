// A synthetic ERC-8301 run written straight into an index database (index/schema.cpp tables),
// with every hash computed as the spec defines (verify/verifiers/evidence.hpp task_hash /
// reply_hash): a sequential pipeline task_0 -> reply_0 -> task_1 -> ... -> reply_{n-1} -> final
// task, each reply proven by a valid ERC-8274 VerificationCompleted record. Used by
// bench/evidence_bench.cpp (the docs/benchmarks.md goal: a 10,000-step chain verified from the
// index in under 1 s) and by the verifier's unit tests, which tamper with the rows afterwards.
// Thread-safety: writes through the caller's Database (one thread).
#pragma once

#include <cstdint>

#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/index/database.hpp>

namespace credence::verify {

struct SyntheticRunOptions {
    uint64_t chain_id = 31337;
    core::Address workflow{{0x5e}};
    core::Address verifier{{0x7e}};
    core::Address replier{{0xa9}};
    uint64_t steps = 10;  // task/reply pairs before the final task
    uint64_t start_time = 1'700'000'000;
    bool prove = true;  // one valid VerificationCompleted per reply
};

struct SyntheticRun {
    core::Hash32 run_id{};
    core::Hash32 initial_task{};
    core::Hash32 final_task{};
    uint64_t completed_at = 0;
};

/// Applies the index migrations and inserts the run in one transaction.
[[nodiscard]] index::DbResult<SyntheticRun> write_synthetic_run(index::Database& db,
                                                                const SyntheticRunOptions& options);

}  // namespace credence::verify
