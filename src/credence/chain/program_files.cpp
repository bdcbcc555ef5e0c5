#include <credence/chain/program_files.hpp>

#include <system_error>

namespace credence::chain {

namespace fs = std::filesystem;

fs::path executable_dir() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : self.parent_path();
}

fs::path installed_path(const fs::path& relative) {
    const fs::path bin = executable_dir();
    if (bin.empty()) return {};
    return bin.parent_path() / relative;
}

std::string describe_search(const std::vector<SearchStep>& steps) {
    std::string out = "looked in ";
    bool first = true;
    for (const auto& step : steps) {
        if (!first) out += ", ";
        first = false;
        out += step.where;
        if (!step.path.empty())
            out += " (" + step.path.string() + ")";
        else
            out += " (unset)";
    }
    return out;
}

}  // namespace credence::chain
