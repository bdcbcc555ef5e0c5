#include <support/scratch.hpp>

#include <stdlib.h>  // mkdtemp (POSIX)

#include <cstdlib>
#include <fstream>
#include <system_error>

namespace credence::testing {

TempDir::TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "credence-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    path_ = pattern;
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

const std::filesystem::path& scratch_dir() {
    static const TempDir dir;
    return dir.path();
}

std::filesystem::path write_scratch_file(const std::string& name, const std::string& content) {
    const auto path = scratch_dir() / name;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
    return path;
}

}  // namespace credence::testing
