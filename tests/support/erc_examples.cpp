#include "support/erc_examples.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace credence::testing {

std::string read_erc_example(const std::string& name) {
    const char* env = std::getenv("CREDENCE_SOURCE_DIR");
    const std::filesystem::path root =
        env != nullptr && *env != '\0' ? std::filesystem::path(env) : CREDENCE_TEST_SOURCE_DIR;
    const auto path = root / "tests/data/erc-examples" / name;
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(in.good()) << "missing ERC example " << path;
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string strip_jsonc_comments(const std::string& in) {
    std::string out;
    bool in_string = false;
    for (size_t i = 0; i < in.size(); ++i) {
        const char c = in[i];
        if (in_string) {
            out += c;
            if (c == '\\' && i + 1 < in.size()) {
                out += in[++i];
            } else if (c == '"') {
                in_string = false;
            }
            continue;
        }
        if (c == '"') in_string = true;
        if (c == '/' && i + 1 < in.size() && in[i + 1] == '/') {
            while (i < in.size() && in[i] != '\n') ++i;
            out += '\n';
            continue;
        }
        out += c;
    }
    return out;
}

std::string drop_trailing_commas(const std::string& in) {
    std::string res;
    for (size_t i = 0; i < in.size(); ++i) {
        if (in[i] == ',') {
            size_t j = i + 1;
            while (j < in.size() && std::isspace(static_cast<unsigned char>(in[j]))) ++j;
            if (j < in.size() && (in[j] == '}' || in[j] == ']')) continue;
        }
        res += in[i];
    }
    return res;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) {
        s.replace(p, from.size(), to);
    }
}

}  // namespace credence::testing
