#include <credence/cmd/commands.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <sstream>

#include <fmt/core.h>

#include <credence/core/detail/huge_pages.hpp>

namespace credence::cmd {

void Output::add(const std::string& key, nlohmann::ordered_json value) {
    doc_[key] = std::move(value);
}

void Output::flush() {
    if (json_) {
        fmt::print("{}\n", doc_.dump(2));
    } else {
        for (const auto& [key, value] : doc_.items()) {
            if (value.is_string()) {
                fmt::print("{}\n", value.get<std::string>());
            } else if (value.is_array()) {
                for (const auto& v : value)
                    fmt::print("{}\n", v.is_string() ? v.get<std::string>() : v.dump());
            } else {
                fmt::print("{}\n", value.dump());
            }
        }
    }
    doc_ = nlohmann::ordered_json::object();
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
    struct stat st {};
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

}  // namespace credence::cmd
