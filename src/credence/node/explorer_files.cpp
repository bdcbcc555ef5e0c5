#include <credence/node/explorer_files.hpp>

#include <cstdlib>
#include <system_error>
#include <vector>

#include <credence/chain/program_files.hpp>

namespace credence::node {

namespace fs = std::filesystem;

namespace {

bool has_index(const fs::path& dir) {
    std::error_code ec;
    return !dir.empty() && fs::is_regular_file(dir / "index.html", ec);
}

}  // namespace

std::expected<fs::path, std::string> find_explorer_files(const fs::path& configured) {
    if (!configured.empty()) {
        if (has_index(configured)) return configured;
        return std::unexpected("explorer: no index.html in http.static_dir " + configured.string() +
                               "; serving the API and MCP only");
    }
    std::vector<chain::SearchStep> steps;
    const char* env = std::getenv("CREDENCE_WEB_DIR");
    if (env != nullptr && *env != '\0') {
        if (has_index(env)) return fs::path(env);
        steps.push_back({"$CREDENCE_WEB_DIR", env});
    } else {
        steps.push_back({"$CREDENCE_WEB_DIR", {}});
    }
    fs::path installed = chain::installed_path("share/credence/web");
    if (has_index(installed)) return installed;
    steps.push_back({"the install prefix", installed});
    return std::unexpected("explorer: no files (" + chain::describe_search(steps) +
                           "; --static-dir sets one); serving the API and MCP only");
}

}  // namespace credence::node
