#include "support/spec_text.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/vectors.hpp"

namespace credence::testing {

std::string read_spec(const std::string& name) {
    const char* env = std::getenv("CREDENCE_SPECS");
    const std::filesystem::path dir =
        env != nullptr ? std::filesystem::path(env) : vectors_dir().parent_path() / "specs";
    std::ifstream in(dir / name, std::ios::binary);
    EXPECT_TRUE(in.good()) << "missing spec " << (dir / name);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string spec_json_block(const std::string& spec, const std::string& heading) {
    const auto h = spec.find(heading);
    if (h == std::string::npos) return {};
    const auto open = spec.find("```json", h);
    const auto body = spec.find('\n', open) + 1;
    const auto close = spec.find("```", body);
    return spec.substr(body, close - body);
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
