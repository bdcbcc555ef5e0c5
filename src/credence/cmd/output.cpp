#include <credence/cmd/commands.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/core.h>

#include <credence/core/data_uri.hpp>
#include <credence/core/detail/huge_pages.hpp>
#include <credence/core/json.hpp>

namespace credence::cmd {

void Output::add(const std::string& key, nlohmann::ordered_json value) {
    doc_[key] = std::move(value);
}

namespace {

std::string bare_text(const nlohmann::ordered_json& value) {
    return value.is_string() ? value.get<std::string>() : value.dump();
}

void print_bare(const nlohmann::ordered_json& doc) {
    for (const auto& [key, value] : doc.items()) {
        if (value.is_array()) {
            for (const auto& v : value) fmt::print("{}\n", bare_text(v));
        } else {
            fmt::print("{}\n", bare_text(value));
        }
    }
}

/// One labeled field: the value starts at `column`; an array's further elements and a text's
/// further lines start there too, so values line up.
void print_labeled(const std::string& key, const nlohmann::ordered_json& value, size_t column) {
    const std::string indent(column, ' ');
    std::vector<std::string> lines;
    if (value.is_null() || (value.is_string() && value.get_ref<const std::string&>().empty())) {
        lines.emplace_back("(none)");  // docs/cli.md §Output: never a blank that looks cut off
    } else if (value.is_array()) {
        for (const auto& v : value) lines.push_back(bare_text(v));
        if (lines.empty()) lines.emplace_back("(none)");
    } else {
        const std::string text = bare_text(value);
        size_t start = 0;
        for (size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', start)) {
            lines.push_back(text.substr(start, nl - start));
            start = nl + 1;
        }
        lines.push_back(text.substr(start));
    }
    fmt::print("{:<{}}{}\n", key, column, lines.front());
    for (size_t i = 1; i < lines.size(); ++i) fmt::print("{}{}\n", indent, lines[i]);
}

}  // namespace

void Output::flush() {
    if (json_) {
        fmt::print("{}\n", doc_.dump(2));
    } else if (style_ == OutputStyle::bare || doc_.size() == 1) {
        print_bare(doc_);
    } else {
        size_t column = 0;
        for (const auto& [key, value] : doc_.items()) column = std::max(column, key.size());
        column += 2;
        for (const auto& [key, value] : doc_.items()) print_labeled(key, value, column);
    }
    doc_ = nlohmann::ordered_json::object();
    // Out before any error line on stderr, also when stdout is a pipe or a file (fully buffered):
    // a report then its verdict, in that order, wherever they are read.
    std::fflush(stdout);
}

std::string read_input(const std::string& path) {
    std::ostringstream ss;
    if (path == "-") {
        ss << std::cin.rdbuf();
        return ss.str();
    }
    // One buffer sized from fstat and filled by fread: a stream copy would touch every byte
    // three times, which is most of `util jcs` on a large file (docs/benchmarks.md).
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!f) throw CliError(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
    std::string data;
    struct stat st{};
    if (::fstat(::fileno(f.get()), &st) == 0 && S_ISREG(st.st_mode))
        data.reserve(static_cast<size_t>(st.st_size) + 1);
    core::detail::advise_huge_pages(data.data(), data.capacity());
    constexpr size_t kChunk = size_t{1} << 20;
    for (;;) {
        const size_t had = data.size();
        // Within the reserved capacity while it lasts, so a regular file is never copied.
        const size_t want =
            data.capacity() > had ? std::min(kChunk, data.capacity() - had) : kChunk;
        data.resize_and_overwrite(had + want, [&](char* p, size_t) {
            return had + std::fread(p + had, 1, want, f.get());
        });
        if (data.size() == had) break;
    }
    if (std::ferror(f.get()) != 0)
        throw CliError(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
    return data;
}

std::string data_uri_of(std::string_view bytes) {
    const bool json = core::parse_json(bytes).has_value();
    auto uri = core::encode_base64_data_uri(json ? "application/json" : "application/octet-stream",
                                            core::as_bytes(bytes));
    if (!uri) throw CliError(fmt::format("data: URI: {}", core::to_string(uri.error().code)));
    return std::move(*uri);
}

}  // namespace credence::cmd
