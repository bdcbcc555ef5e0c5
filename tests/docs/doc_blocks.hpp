// The code blocks of a Markdown document, for the docs runner (docs_runner.cpp).
//
// A fenced block (``` or ~~~, CommonMark §4.5) must name its language: `sh` and `bash` blocks are
// run, any other tag (`text`, `json`, `toml`, ...) is shown only. An untagged block is an error,
// so a command cannot hide from the runner by forgetting its tag.
//
// The line right above a fence may give the runner a directive, an HTML comment that Markdown
// renders as nothing:
//   <!-- doc-test: skip: <why> -->           not run, and listed with its reason
//   <!-- doc-test: background until "<text>" -->
//                                             run in the background (a reader's second terminal);
//                                             the next block waits for <text> in its output
//   <!-- doc-test: fails -->                  must exit non-zero (an example of an error)
//   <!-- doc-test: file <name> -->            not run: written to <name> in the working
//                                             directory (a JSON or TOML example later blocks use)
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <vector>

namespace credence::docs {

enum class BlockMode { run, show, skip, background, fails, file };

struct DocBlock {
    size_t line = 0;       ///< the opening fence's line, from 1
    std::string language;  ///< the info string's first word
    std::string text;      ///< the content, each line ending in '\n'
    BlockMode mode = BlockMode::show;
    std::string argument;  ///< skip: the reason; background: the text to wait for; file: the name
};

/// The blocks of `markdown`, or "<line>: <what is wrong>" for an untagged or unclosed fence or a
/// directive the runner does not know.
[[nodiscard]] std::expected<std::vector<DocBlock>, std::string> parse_doc_blocks(
    std::string_view markdown);

}  // namespace credence::docs
