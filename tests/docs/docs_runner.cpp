// The docs runner: every `sh` block of README.md and docs/*.md runs as written, in order, the way
// Rust's doctests keep examples honest (docs/architecture.md §tests/). Each document runs alone
// in a fresh directory with an empty $HOME, in network and PID namespaces of its own
// (isolated_shell.hpp), with the built `credence` first on PATH.
//
//   credence_docs_runner --source DIR --doc README.md --bin DIR   run one document
//   credence_docs_runner --source DIR --list                      what is not run, and why
//   ... --show-output                                              and what the blocks printed
//
// The markers a document may use are in doc_blocks.hpp. Exit 0 when every block did what it
// should; 1 with the failing block, its text and the end of its output otherwise.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "docs/doc_blocks.hpp"
#include "docs/doc_script.hpp"
#include "docs/isolated_shell.hpp"
#include "support/scratch.hpp"

namespace {

namespace fs = std::filesystem;
using credence::docs::BlockMode;
using credence::docs::DocBlock;

constexpr std::chrono::seconds kDocumentLimit{900};
constexpr size_t kTailLines = 60;

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string tail_lines(const std::string& text, size_t n) {
    size_t pos = text.size();
    for (size_t seen = 0; pos > 0 && seen <= n; --pos)
        if (text[pos - 1] == '\n') ++seen;
    return pos == 0 ? text : text.substr(pos + 1);
}

/// README.md and docs/*.md, by path relative to `source`.
std::vector<std::string> all_documents(const fs::path& source) {
    std::vector<std::string> docs{"README.md"};
    std::vector<std::string> more;
    for (const auto& e : fs::directory_iterator(source / "docs"))
        if (e.path().extension() == ".md") more.push_back("docs/" + e.path().filename().string());
    std::sort(more.begin(), more.end());
    docs.insert(docs.end(), more.begin(), more.end());
    return docs;
}

std::expected<std::vector<DocBlock>, std::string> blocks_of(const fs::path& source,
                                                            const std::string& doc) {
    const fs::path path = source / doc;
    if (!fs::exists(path)) return std::unexpected(doc + ": no such document");
    auto blocks = credence::docs::parse_doc_blocks(read_text(path));
    if (!blocks) return std::unexpected(doc + ":" + blocks.error());
    return blocks;
}

int list_not_run(const fs::path& source) {
    size_t run = 0;
    size_t skipped = 0;
    for (const auto& doc : all_documents(source)) {
        auto blocks = blocks_of(source, doc);
        if (!blocks) {
            fmt::print(stderr, "{}\n", blocks.error());
            return 1;
        }
        for (const auto& b : *blocks) {
            if (b.mode == BlockMode::skip) {
                ++skipped;
                fmt::print("not run: {}:{}: {}\n", doc, b.line, b.argument);
            } else if (b.mode != BlockMode::show && b.mode != BlockMode::file) {
                ++run;
            }
        }
    }
    fmt::print("docs: {} shell blocks run by make test, {} marked not runnable\n", run, skipped);
    return 0;
}

int run_document(const fs::path& source, const std::string& doc, const fs::path& bin,
                 bool show_output) {
    auto blocks = blocks_of(source, doc);
    if (!blocks) {
        fmt::print(stderr, "{}\n", blocks.error());
        return 1;
    }
    const credence::testing::TempDir work;
    const fs::path home = work.path() / "home";
    const fs::path dir = work.path() / "doc-test";
    fs::create_directories(home);
    fs::create_directories(dir);
    const fs::path script = dir / "script.sh";
    std::ofstream(script) << credence::docs::doc_script(*blocks);
    const fs::path state = dir / "state";
    const fs::path log = dir / "output.log";

    const char* path_env = std::getenv("PATH");
    std::map<std::string, std::string> env{
        {"PATH", fs::absolute(bin).string() + ":" + (path_env ? path_env : "/usr/bin:/bin")},
        {"HOME", home.string()},
        {"LANG", "C.UTF-8"},
        {"TERM", "dumb"},
        {"DOC_TEST_STATE", state.string()},
        {"DOC_TEST_DIR", dir.string()},
    };
    auto run = credence::docs::run_isolated_shell(script, home, env, log, kDocumentLimit);
    if (!run) {
        fmt::print(stderr, "{}: cannot run: {}\n", doc, run.error());
        return 1;
    }
    size_t ran = 0;
    for (const auto& b : *blocks)
        if (b.mode == BlockMode::run || b.mode == BlockMode::fails ||
            b.mode == BlockMode::background)
            ++ran;
    if (show_output) fmt::print("{}", read_text(log));
    if (run->exit_code == 0 && !run->timed_out) {
        fmt::print("{}: {} blocks ran as written\n", doc, ran);
        for (const auto& b : *blocks)
            if (b.mode == BlockMode::skip)
                fmt::print("not run: {}:{}: {}\n", doc, b.line, b.argument);
        return 0;
    }
    // The block that was running: the last index the script recorded.
    const std::string recorded = read_text(state);
    const size_t index = recorded.empty() ? 0 : std::stoul(recorded);
    const DocBlock& failed = (*blocks)[std::min(index, blocks->size() - 1)];
    fmt::print(stderr, "{}:{}: this block {}\n", doc, failed.line,
               run->timed_out ? fmt::format("did not finish within {} s", kDocumentLimit.count())
                              : fmt::format("failed (exit {})", run->exit_code));
    fmt::print(stderr, "```{}\n{}```\n--- output (last {} lines) ---\n{}", failed.language,
               failed.text, kTailLines, tail_lines(read_text(log), kTailLines));
    for (const auto& e : fs::directory_iterator(dir)) {
        if (!e.path().filename().string().starts_with("background-")) continue;
        fmt::print(stderr, "--- {} (last {} lines) ---\n{}", e.path().filename().string(),
                   kTailLines, tail_lines(read_text(e.path()), kTailLines));
    }
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app("Runs the shell blocks of Credence's documents");
    std::string source;
    std::string doc;
    std::string bin;
    bool list = false;
    bool show_output = false;
    app.add_option("--source", source, "The checkout (README.md and docs/)")->required();
    app.add_option("--doc", doc, "The document to run, relative to --source");
    app.add_option("--bin", bin, "The folder of the credence binary to put first on PATH");
    app.add_flag("--list", list, "List every block marked not runnable");
    app.add_flag("--show-output", show_output, "Print everything the blocks printed");
    CLI11_PARSE(app, argc, argv);
    if (list) return list_not_run(source);
    if (doc.empty() || bin.empty()) {
        fmt::print(stderr, "give --doc and --bin, or --list\n");
        return 1;
    }
    return run_document(source, doc, bin, show_output);
}
