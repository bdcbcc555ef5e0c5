// A per-process scratch directory for the files tests write (manifests, request files, keys).
//
// scratch_dir() creates a fresh directory under the system temporary directory on first use
// (mkdtemp, so parallel test processes never share one) and removes it, with everything in it,
// when the process exits. Tests name files inside it; nothing is left behind in /tmp.
// Thread-safety: the first call must not race with another (gtest runs tests on one thread).
#pragma once

#include <filesystem>
#include <string>

namespace credence::testing {

/// A fresh, empty directory under the system temporary directory (mkdtemp), removed with
/// everything in it when the object is destroyed: for a test that needs a folder of its own.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

private:
    std::filesystem::path path_;
};

[[nodiscard]] const std::filesystem::path& scratch_dir();

/// Writes `content` to scratch_dir()/`name` (creating parent folders) and returns the path.
std::filesystem::path write_scratch_file(const std::string& name, const std::string& content);

}  // namespace credence::testing
