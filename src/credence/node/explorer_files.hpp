// Where `credence node` finds the web explorer it serves (docs/operating.md §Files): the
// configured directory (`http.static_dir` / `--static-dir`) when set; else $CREDENCE_WEB_DIR; else
// an install's <prefix>/share/credence/web (chain/program_files.hpp). A directory counts only when
// it holds index.html. Without one the node serves the API and MCP alone and says so in one line.
#pragma once

#include <expected>
#include <filesystem>
#include <string>

namespace credence::node {

/// The explorer's directory, or the one line naming every place looked in. A configured
/// directory without index.html is an error too: the operator asked for it.
[[nodiscard]] std::expected<std::filesystem::path, std::string> find_explorer_files(
    const std::filesystem::path& configured);

}  // namespace credence::node
