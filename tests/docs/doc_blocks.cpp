#include "docs/doc_blocks.hpp"

#include <optional>

namespace credence::docs {
namespace {

constexpr std::string_view kDirectiveOpen = "<!-- doc-test:";
constexpr std::string_view kDirectiveClose = "-->";

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

/// The fence of a line: its character repeated at least three times, after at most three spaces
/// (CommonMark §4.5).
struct Fence {
    char mark = '`';
    size_t length = 0;
    std::string_view info;
};

std::optional<Fence> fence_of(std::string_view line) {
    size_t indent = 0;
    while (indent < line.size() && line[indent] == ' ') ++indent;
    if (indent > 3 || indent >= line.size()) return std::nullopt;
    const char mark = line[indent];
    if (mark != '`' && mark != '~') return std::nullopt;
    size_t n = indent;
    while (n < line.size() && line[n] == mark) ++n;
    if (n - indent < 3) return std::nullopt;
    return Fence{mark, n - indent, trim(line.substr(n))};
}

/// Applies the directive of `comment` (the text between "doc-test:" and "-->") to `block`.
std::expected<void, std::string> apply_directive(std::string_view comment, DocBlock& block) {
    comment = trim(comment);
    auto word_end = comment.find_first_of(" :");
    const std::string_view word = comment.substr(0, word_end);
    std::string_view rest =
        word_end == std::string_view::npos ? std::string_view() : trim(comment.substr(word_end));
    if (rest.starts_with(':')) rest = trim(rest.substr(1));
    if (word == "skip") {
        if (rest.empty())
            return std::unexpected("skip needs a reason: <!-- doc-test: skip: why -->");
        block.mode = BlockMode::skip;
        block.argument = rest;
    } else if (word == "background") {
        constexpr std::string_view kUntil = "until \"";
        if (!rest.starts_with(kUntil) || !rest.ends_with('"') || rest.size() <= kUntil.size() + 1)
            return std::unexpected("background needs until \"<text>\"");
        block.mode = BlockMode::background;
        block.argument = rest.substr(kUntil.size(), rest.size() - kUntil.size() - 1);
    } else if (word == "fails") {
        block.mode = BlockMode::fails;
    } else if (word == "file") {
        if (rest.empty() || rest.find_first_of("/ ") != std::string_view::npos)
            return std::unexpected("file needs a plain file name");
        block.mode = BlockMode::file;
        block.argument = rest;
    } else {
        return std::unexpected("unknown doc-test directive '" + std::string(word) + "'");
    }
    return {};
}

}  // namespace

std::expected<std::vector<DocBlock>, std::string> parse_doc_blocks(std::string_view markdown) {
    std::vector<DocBlock> blocks;
    std::optional<DocBlock> open;
    std::optional<Fence> open_fence;
    std::string_view previous;  // the line above, for a directive
    size_t line_no = 0;
    auto fail = [&line_no](const std::string& what) {
        return std::unexpected(std::to_string(line_no) + ": " + what);
    };
    while (!markdown.empty()) {
        const size_t eol = markdown.find('\n');
        const std::string_view line = markdown.substr(0, eol);
        markdown.remove_prefix(eol == std::string_view::npos ? markdown.size() : eol + 1);
        ++line_no;
        const auto fence = fence_of(line);
        if (open) {
            if (fence && fence->mark == open_fence->mark && fence->length >= open_fence->length &&
                fence->info.empty()) {
                blocks.push_back(std::move(*open));
                open.reset();
            } else {
                open->text.append(line);
                open->text.push_back('\n');
            }
            continue;
        }
        if (fence) {
            DocBlock block;
            block.line = line_no;
            block.language = std::string(fence->info.substr(0, fence->info.find(' ')));
            if (block.language.empty())
                return fail("a code block without a language: tag it sh to run it, or text");
            block.mode = block.language == "sh" || block.language == "bash" ? BlockMode::run
                                                                            : BlockMode::show;
            const std::string_view above = trim(previous);
            if (above.starts_with(kDirectiveOpen)) {
                if (!above.ends_with(kDirectiveClose))
                    return fail("a doc-test comment must end on its line");
                const auto inner =
                    above.substr(kDirectiveOpen.size(),
                                 above.size() - kDirectiveOpen.size() - kDirectiveClose.size());
                if (auto applied = apply_directive(inner, block); !applied)
                    return fail(applied.error());
            }
            open = std::move(block);
            open_fence = fence;
        }
        previous = line;
    }
    if (open) return std::unexpected(std::to_string(open->line) + ": a code block never closed");
    return blocks;
}

}  // namespace credence::docs
