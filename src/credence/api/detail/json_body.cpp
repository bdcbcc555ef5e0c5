#include <credence/api/detail/json_body.hpp>

namespace credence::api::detail {

std::string dump_replacing(const nlohmann::ordered_json& json) {
    return json.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

HttpResponse json_error(int status, std::string_view message, std::string_view code) {
    const nlohmann::json body{{"error", message}, {"code", code}};
    return {status,
            "application/json",
            body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
            {}};
}

}  // namespace credence::api::detail
