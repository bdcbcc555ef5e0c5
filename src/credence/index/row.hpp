// Typed, bounds-checked reads of one column of a query result (database.hpp DbRow): nullptr when
// the column is missing, NULL or of another type, so a caller turns any surprise into a
// DbError instead of a crash. Readers of the index (verify/, trust/, api/) share these.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <variant>

#include <credence/core/bytes.hpp>
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

/// Query parameters: an unsigned integer as the databases' signed 64-bit INTEGER/BIGINT (chain
/// ids, block numbers and indices are far below the cap; larger values saturate, never wrap), and
/// bytes as a BLOB/bytea.
[[nodiscard]] inline DbValue int_value(uint64_t v) {
    return static_cast<int64_t>(std::min<uint64_t>(v, std::numeric_limits<int64_t>::max()));
}
[[nodiscard]] inline DbValue blob_value(core::ByteView b) {
    return core::Bytes(b.begin(), b.end());
}

/// The error for a row that does not have the shape the schema promises ("<where>: unreadable
/// <what>"): a corrupt or foreign database, never a user error.
[[nodiscard]] inline DbError unreadable(std::string_view where, std::string_view what) {
    return DbError{DbErrorKind::sql, std::string(where) + ": unreadable " + std::string(what)};
}

}  // namespace credence::index
