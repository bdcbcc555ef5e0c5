// JSON bodies of HTTP answers. Their strings may come from outside (a client's bytes, names from
// registration files) and need not be UTF-8: bad bytes are replaced, never thrown, so that no
// answer to user input turns into a 5xx.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include <credence/api/http_types.hpp>

namespace credence::api::detail {

/// The document as compact JSON text, with invalid UTF-8 replaced by U+FFFD.
std::string dump_replacing(const nlohmann::ordered_json& json);

/// `{"code": code, "error": message}` with the given status.
HttpResponse json_error(int status, std::string_view message, std::string_view code);

}  // namespace credence::api::detail
