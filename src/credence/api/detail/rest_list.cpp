#include <credence/api/detail/rest_list.hpp>

#include <charconv>

#include <fmt/format.h>

#include <credence/index/verification_table.hpp>

namespace credence::api::detail {

size_t SqlWhere::bind(index::DbValue value) {
    params_.push_back(std::move(value));
    return params_.size();
}

void SqlWhere::add(std::string_view clause) {
    if (!sql_.empty()) sql_ += " AND ";
    sql_ += clause;
}

void SqlWhere::add(std::string_view clause, index::DbValue value) {
    const size_t n = bind(std::move(value));
    add(fmt::format(fmt::runtime(clause), n));
}

void SqlWhere::add_in(std::string_view column, std::span<const core::Address> addresses) {
    if (addresses.empty()) return;
    add(fmt::format("{} IN {}", column, placeholders(params_.size() + 1, addresses.size())));
    for (const auto& a : addresses) params_.push_back(blob(a));
}

ChainKeys::ChainKeys(SqlWhere& where, std::span<const ApiScope> chains,
                     const ContractsOf& contracts) {
    for (size_t i = 0; i < chains.size(); ++i) {
        Key key;
        key.chain_n = i == 0 ? 1 : where.bind(static_cast<int64_t>(chains[i].chain_id));
        for (const core::Address& a : contracts(chains[i])) {
            key.contract_ns.push_back(where.bind(blob(a)));
        }
        keys_.push_back(std::move(key));
    }
}

std::string ChainKeys::clause(std::string_view alias, std::string_view column) const {
    std::string out;
    for (const Key& key : keys_) {
        std::string term = fmt::format("{}.chain_id = ${}", alias, key.chain_n);
        if (key.contract_ns.size() == 1) {
            term += fmt::format(" AND {}.{} = ${}", alias, column, key.contract_ns.front());
        } else if (!key.contract_ns.empty()) {
            std::string list;
            for (const size_t n : key.contract_ns) {
                list += fmt::format("{}${}", list.empty() ? "" : ", ", n);
            }
            term += fmt::format(" AND {}.{} IN ({})", alias, column, list);
        }
        if (keys_.size() == 1) return term;
        out += fmt::format("{}({})", out.empty() ? "(" : " OR ", term);
    }
    return out + ")";
}

ApiResult<void> add_list_filters(const HttpRequest& request, std::span<const ListFilter> filters,
                                 const TermTable& terms, SqlWhere& where) {
    size_t aliases = 0;
    for (const ListFilter& filter : filters) {
        auto value = text_param(request, filter.param);
        if (!value) return std::unexpected(value.error());
        const std::optional<std::string> text = std::move(*value);
        if (!text.has_value() || text->empty()) continue;
        if (filter.substring) {
            // CAST: the same text, but no longer a bare parameter, so SQLite's LIKE optimization
            // does not tie the plan to the bound pattern; with a bare "LIKE $n" every new pattern
            // re-prepared the cached statement (sqlite3Reprepare: 11 % of search CPU, perf).
            where.add(fmt::format("{} LIKE CAST(${{}} AS TEXT) ESCAPE '\\'", filter.target),
                      like_substring(*text));
            continue;
        }
        // A whole entry: one row of the term table, found through its (list, term) index
        // instead of LIKE '%,entry,%' over every profile. Entries are stored lowercase without
        // commas (verify/store/profile_store.hpp), so a value with a comma matches nothing.
        const std::string alias = fmt::format("lf{}", ++aliases);
        const size_t term_n = where.bind(ascii_lower(*text));
        where.add(
            fmt::format("EXISTS (SELECT 1 FROM {} {} WHERE {} AND {}.list = '{}' AND "
                        "{}.term = ${})",
                        terms.table, alias, fmt::format(fmt::runtime(terms.subject_match), alias),
                        alias, filter.target, alias, term_n));
    }
    return {};
}

ApiResult<void> add_verification_filter(const HttpRequest& request, std::string_view column,
                                        SqlWhere& where) {
    const std::string* status = request.param("verification");
    if (status == nullptr) return {};
    if (*status == "none") {
        where.add(fmt::format("{} IS NULL", column));
    } else if (index::verification_status_from_string(*status)) {
        where.add(fmt::format("{} = ${{}}", column), *status);
    } else {
        return std::unexpected(
            bad_parameter("verification must be verified, unverified, unreachable or none"));
    }
    return {};
}

ApiResult<size_t> choice_param(const HttpRequest& request, std::string_view name,
                               std::span<const std::string_view> choices, size_t fallback,
                               std::string_view message, bool fold_case) {
    const std::string* value = request.param(name);
    if (value == nullptr) return fallback;
    const std::string compared = fold_case ? ascii_lower(*value) : *value;
    const auto found = std::ranges::find(choices, std::string_view(compared));
    if (found == choices.end()) return std::unexpected(bad_parameter(std::string(message)));
    return static_cast<size_t>(found - choices.begin());
}

ApiError bad_cursor() { return ApiError{400, "bad_cursor", "bad cursor"}; }

ApiResult<std::optional<std::vector<std::string>>> cursor_param(const HttpRequest& request,
                                                                std::string_view route,
                                                                size_t parts) {
    const std::string* cursor = request.param("cursor");
    if (cursor == nullptr) return std::optional<std::vector<std::string>>{};
    auto decoded = decode_cursor(*cursor, route, parts);
    if (!decoded) return std::unexpected(decoded.error());
    return std::optional<std::vector<std::string>>{std::move(*decoded)};
}

std::optional<int64_t> cursor_int(const std::string& part) {
    int64_t value = 0;
    const char* end = part.data() + part.size();
    const auto [ptr, ec] = std::from_chars(part.data(), end, value);
    if (part.empty() || ec != std::errc{} || ptr != end) return std::nullopt;
    return value;
}

std::optional<double> cursor_double(const std::string& part) {
    double value = 0;
    const char* end = part.data() + part.size();
    const auto [ptr, ec] = std::from_chars(part.data(), end, value);
    if (part.empty() || ec != std::errc{} || ptr != end) return std::nullopt;
    return value;
}

std::optional<core::Bytes> cursor_bytes(const std::string& part, size_t size) {
    auto bytes = core::from_hex(part);
    if (!bytes || bytes->size() != size) return std::nullopt;
    return std::move(*bytes);
}

}  // namespace credence::api::detail
