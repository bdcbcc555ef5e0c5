#include <credence/cmd/commands.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/core.h>

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
    std::ifstream in(path, std::ios::binary);
    if (!in) throw CliError(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace credence::cmd
