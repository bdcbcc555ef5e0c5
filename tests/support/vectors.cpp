#include "support/vectors.hpp"

#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace credence::testing {
namespace {

[[noreturn]] void die(const std::string& msg) {
    std::fprintf(stderr, "test vectors: %s\n", msg.c_str());
    std::abort();
}

std::string gunzip(const std::string& compressed) {
    z_stream zs{};
    if (inflateInit2(&zs, 15 + 32) != Z_OK) die("inflateInit2 failed");
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
    zs.avail_in = static_cast<uInt>(compressed.size());
    std::string out;
    char buf[1 << 16];
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
        zs.next_out = reinterpret_cast<Bytef*>(buf);
        zs.avail_out = sizeof buf;
        rc = inflate(&zs, Z_NO_FLUSH);
        if (rc != Z_OK && rc != Z_STREAM_END) die("corrupt gzip data");
        out.append(buf, sizeof buf - zs.avail_out);
    }
    inflateEnd(&zs);
    return out;
}

}  // namespace

std::filesystem::path vectors_dir() {
    if (const char* env = std::getenv("CREDENCE_VECTORS"); env != nullptr && *env != '\0')
        return env;
    return CREDENCE_VECTORS_DEFAULT;
}

std::string read_vector_file(const std::string& relative_path) {
    const auto path = vectors_dir() / relative_path;
    std::ifstream in(path, std::ios::binary);
    if (!in) die("cannot open " + path.string());
    std::ostringstream ss;
    ss << in.rdbuf();
    std::string data = ss.str();
    if (path.extension() == ".gz") return gunzip(data);
    return data;
}

nlohmann::json read_vector_json(const std::string& relative_path) {
    return nlohmann::json::parse(read_vector_file(relative_path));
}

}  // namespace credence::testing
