// Lenient reads of a nlohmann::json document: a missing member or one of the wrong type reads as
// empty. For summaries and read models built from documents whose verdict is another module's
// job (a schema check, a verifier's report), so a malformed field never throws. Thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace credence::core::lenient {

/// `j[key]` when `j` is an object holding it; otherwise a null value.
[[nodiscard]] inline const nlohmann::json& member(const nlohmann::json& j, std::string_view key) {
    static const nlohmann::json kNull;
    if (!j.is_object()) return kNull;
    auto it = j.find(key);
    return it == j.end() ? kNull : *it;
}

/// `j[key]` when it is a string; otherwise "".
[[nodiscard]] inline std::string string_at(const nlohmann::json& j, std::string_view key) {
    const auto& v = member(j, key);
    return v.is_string() ? v.get<std::string>() : std::string{};
}

/// `j[key]` when it is a boolean; otherwise nullopt.
[[nodiscard]] inline std::optional<bool> bool_at(const nlohmann::json& j, std::string_view key) {
    const auto& v = member(j, key);
    if (!v.is_boolean()) return std::nullopt;
    return v.get<bool>();
}

/// Appends the string items of `array` to `out`, skipping the others; nothing when it is not an
/// array.
inline void append_strings(const nlohmann::json& array, std::vector<std::string>& out) {
    if (!array.is_array()) return;
    for (const auto& item : array) {
        if (item.is_string()) out.push_back(item.get<std::string>());
    }
}

}  // namespace credence::core::lenient
