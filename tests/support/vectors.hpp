// Loading the external test vectors of tests/vectors/ (README.md there) at run time.
//
// The directory comes from $CREDENCE_VECTORS, else the path configured at build time. Expected
// values always come from these files, never from our own code.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace credence::testing {

/// Root of the vectors directory.
[[nodiscard]] std::filesystem::path vectors_dir();

/// Whole file as bytes in a string; transparently gunzips files ending in ".gz".
/// Aborts the test binary (with a message) when the file is missing: a missing vector is a failure.
[[nodiscard]] std::string read_vector_file(const std::string& relative_path);

/// Parsed JSON vector file (".gz" handled).
[[nodiscard]] nlohmann::json read_vector_json(const std::string& relative_path);

}  // namespace credence::testing
