#include <credence/api/static_files.hpp>

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include <credence/api/detail/json_body.hpp>

namespace credence::api {

namespace {

std::string_view content_type_for(const std::filesystem::path& path) {
    const std::string ext = path.extension().string();
    if (ext == ".html") return "text/html; charset=utf-8";
    if (ext == ".js" || ext == ".mjs") return "text/javascript; charset=utf-8";
    if (ext == ".css") return "text/css; charset=utf-8";
    if (ext == ".json" || ext == ".map") return "application/json";
    if (ext == ".svg") return "image/svg+xml";
    if (ext == ".png") return "image/png";
    if (ext == ".ico") return "image/x-icon";
    if (ext == ".woff2") return "font/woff2";
    if (ext == ".txt") return "text/plain; charset=utf-8";
    return "application/octet-stream";
}

std::optional<std::string> read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream out;
    out << in.rdbuf();
    if (!in && !in.eof()) return std::nullopt;
    return std::move(out).str();
}

}  // namespace

StaticFiles::StaticFiles(const std::filesystem::path& root) {
    if (root.empty()) return;
    std::error_code ec;
    root_ = std::filesystem::weakly_canonical(root, ec);
    if (ec) root_.clear();
}

HttpResponse StaticFiles::serve(const HttpRequest& request) const {
    if (root_.empty() || (request.method != "GET" && request.method != "HEAD")) {
        return detail::json_error(404, "no such route", "not_found");
    }
    // The path is decoded; resolve it under the root and refuse anything that escapes it.
    std::string relative = request.path;
    while (!relative.empty() && relative.front() == '/') relative.erase(0, 1);
    if (relative.find('\0') != std::string::npos) {
        return detail::json_error(400, "bad path", "bad_request");
    }
    std::error_code ec;
    std::filesystem::path candidate = std::filesystem::weakly_canonical(root_ / relative, ec);
    const auto [root_end, candidate_it] =
        std::mismatch(root_.begin(), root_.end(), candidate.begin(), candidate.end());
    const bool inside = !ec && root_end == root_.end();
    if (!inside) return detail::json_error(404, "not found", "not_found");
    if (std::filesystem::is_directory(candidate, ec)) candidate /= "index.html";
    if (!std::filesystem::is_regular_file(candidate, ec)) {
        // SPA fallback: an explorer route (no file extension) loads index.html.
        if (std::filesystem::path(relative).has_extension()) {
            return detail::json_error(404, "not found", "not_found");
        }
        candidate = root_ / "index.html";
    }
    auto body = read_file(candidate);
    if (!body) return detail::json_error(404, "not found", "not_found");
    return {200, std::string(content_type_for(candidate)), std::move(*body), {}};
}

}  // namespace credence::api
