#include <credence/index/integrity.hpp>

#include <string>
#include <variant>

#include <fmt/format.h>

namespace credence::index {

std::optional<IntegrityCheck> parse_integrity_check(std::string_view text) {
    if (text == "off") return IntegrityCheck::off;
    if (text == "quick") return IntegrityCheck::quick;
    if (text == "full") return IntegrityCheck::full;
    return std::nullopt;
}

std::string_view to_string(IntegrityCheck check) noexcept {
    switch (check) {
        case IntegrityCheck::off:
            return "off";
        case IntegrityCheck::quick:
            return "quick";
        case IntegrityCheck::full:
            return "full";
    }
    return "off";
}

DbResult<void> check_integrity(Database& db, IntegrityCheck check) {
    if (check == IntegrityCheck::off || db.dialect() != Dialect::sqlite) return {};
    const std::string_view pragma =
        check == IntegrityCheck::full ? "integrity_check" : "quick_check";
    // The first problem is enough to refuse the file; the argument bounds the rows SQLite lists.
    auto rows = db.query(fmt::format("PRAGMA {}(1)", pragma));
    if (!rows) {
        // A schema too damaged to read fails the check itself.
        if (rows.error().kind != DbErrorKind::corrupt) return std::unexpected(rows.error());
        return std::unexpected(
            DbError{DbErrorKind::corrupt, fmt::format("{}: {}", pragma, rows.error().message)});
    }
    if (rows->size() == 1 && rows->front().size() == 1) {
        if (const auto* text = std::get_if<std::string>(&rows->front().front()); text != nullptr) {
            if (*text == "ok") return {};
            // SQLite's report may span lines ("*** in database main ***\nPage 5: ..."): one line.
            std::string line = *text;
            for (char& c : line) {
                if (c == '\n' || c == '\r') c = ' ';
            }
            return std::unexpected(
                DbError{DbErrorKind::corrupt, fmt::format("{}: {}", pragma, line)});
        }
    }
    return std::unexpected(DbError{DbErrorKind::corrupt, fmt::format("{}: no verdict", pragma)});
}

}  // namespace credence::index
