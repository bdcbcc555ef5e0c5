// Typed, bounds-checked reads of one column of a query result (database.hpp DbRow): nullptr when
// the column is missing, NULL or of another type, so a caller turns any surprise into a
// DbError instead of a crash. Readers of the index (verify/, trust/, api/) share these.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include <credence/index/database.hpp>

namespace credence::index {

[[nodiscard]] inline const std::string* text_at(const DbRow& row, size_t i) noexcept {
    return i < row.size() ? std::get_if<std::string>(&row[i]) : nullptr;
}
[[nodiscard]] inline const int64_t* int_at(const DbRow& row, size_t i) noexcept {
    return i < row.size() ? std::get_if<int64_t>(&row[i]) : nullptr;
}
[[nodiscard]] inline const double* real_at(const DbRow& row, size_t i) noexcept {
    return i < row.size() ? std::get_if<double>(&row[i]) : nullptr;
}
[[nodiscard]] inline const core::Bytes* blob_at(const DbRow& row, size_t i) noexcept {
    return i < row.size() ? std::get_if<core::Bytes>(&row[i]) : nullptr;
}

/// The error for a row that does not have the shape the schema promises ("<where>: unreadable
/// <what>"): a corrupt or foreign database, never a user error.
[[nodiscard]] inline DbError unreadable(std::string_view where, std::string_view what) {
    return DbError{DbErrorKind::sql, std::string(where) + ": unreadable " + std::string(what)};
}

}  // namespace credence::index
