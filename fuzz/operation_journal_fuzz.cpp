// libFuzzer target for the operationId journal reader (chain/operation_journal.hpp): the file
// survives crashes and hand edits, so any bytes may be in it.
//
// Checks: reading never crashes or hangs; bytes that are not a well-formed journal are refused as
// corrupt (never silently skipped), and an accepted journal re-read gives the same entries.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <credence/chain/operation_journal.hpp>

using namespace credence;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::filesystem::path path =
        std::filesystem::temp_directory_path() /
        ("credence_journal_fuzz_" + std::to_string(::getpid()) + ".jsonl");
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    const chain::OperationJournal journal(path);
    const auto first = journal.entries();
    if (!first) {
        if (first.error().code != chain::JournalError::corrupt &&
            first.error().code != chain::JournalError::io)
            std::abort();
        return 0;
    }
    const auto second = journal.entries();
    if (!second || *second != *first) std::abort();
    return 0;
}
