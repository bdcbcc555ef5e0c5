// The explorer's static files (docs/node.md): GET/HEAD of a file under one root directory,
// index.html for a directory, and index.html for unknown paths without a file extension (the
// single-page app's routes). A path that resolves outside the root is a 404.
//
// Thread-safety: serve() is const and may run on many threads. Ownership: plain value.
#pragma once

#include <filesystem>

#include <credence/api/http_types.hpp>

namespace credence::api {

class StaticFiles {
public:
    /// An empty or unusable `root` serves nothing (every request is a JSON 404).
    explicit StaticFiles(const std::filesystem::path& root);

    [[nodiscard]] HttpResponse serve(const HttpRequest& request) const;

private:
    std::filesystem::path root_;
};

}  // namespace credence::api
