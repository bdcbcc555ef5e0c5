// The plumbing every list route shares (agents, feedback, tools, runs; docs/api.md §Paging): a
// WHERE clause that numbers its placeholders as values are bound, the comma-wrapped profile
// filters, the verification filter, enumerated parameters (sort, status), opaque keyset cursors
// and the {"items", "next_cursor"} page built from limit + 1 rows.
//
// Every malformed input is a 400 (bad_parameter or bad_cursor), never a 5xx.
// Thread-safety: values and free functions; a SqlWhere belongs to one request.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <credence/api/detail/rest_common.hpp>

namespace credence::api::detail {

/// A WHERE clause and the values it binds; `$n` is the n-th bound value, so clauses can be added
/// in any order and a copy can be extended differently (list_agents' two phases).
class SqlWhere {
public:
    /// An empty `first_clause`: the first add() starts the clause.
    SqlWhere(std::string first_clause, std::vector<index::DbValue> params)
        : sql_(std::move(first_clause)), params_(std::move(params)) {}

    /// Binds `value`; returns its placeholder number.
    size_t bind(index::DbValue value);
    /// Appends " AND <clause>" (a clause without new values, or naming bound numbers itself).
    void add(std::string_view clause);
    /// Binds `value` and appends " AND <clause>" with its "${}" replaced by the value's number.
    void add(std::string_view clause, index::DbValue value);
    /// " AND <column> IN (...)" over `addresses`; nothing when the list is empty (any contract).
    void add_in(std::string_view column, std::span<const core::Address> addresses);

    [[nodiscard]] const std::string& sql() const noexcept { return sql_; }
    [[nodiscard]] const std::vector<index::DbValue>& params() const noexcept { return params_; }

private:
    std::string sql_;
    std::vector<index::DbValue> params_;
};

/// The rows of the chains a list spans (Ctx::chains, docs/api.md §Chains): each chain's id with
/// one of its contracts (its identity registry, tool registries or workflows; any contract when
/// the list is empty). The caller binds the first chain's id as $1; the rest is bound here.
class ChainKeys {
public:
    using ContractsOf = std::function<std::vector<core::Address>(const ApiScope&)>;
    ChainKeys(SqlWhere& where, std::span<const ApiScope> chains, const ContractsOf& contracts);

    /// "(<alias>.chain_id = $c AND <alias>.<column> IN (...)) OR ...", one term per chain; for
    /// one chain and one contract the plain equalities the key's index answers.
    [[nodiscard]] std::string clause(std::string_view alias, std::string_view column) const;
    /// More than one chain: paging needs the chain in its order and cursor.
    [[nodiscard]] bool several() const noexcept { return keys_.size() > 1; }

private:
    struct Key {
        size_t chain_n = 0;
        std::vector<size_t> contract_ns;
    };
    std::vector<Key> keys_;
};

/// A text parameter matched against the subject's profile, ASCII case-insensitively: as one whole
/// entry of a profile list (`target` names the list in the term table, index/schema.cpp migration
/// 6), or, when `substring`, as a substring of the lowercased search text (`target` is its column).
struct ListFilter {
    std::string_view param;
    std::string_view target;
    bool substring = false;
};

/// Where the whole-entry filters look: the term table (agent_profile_terms, tool_profile_terms)
/// and the condition tying its row, aliased "{0}", to the subject of the outer query.
struct TermTable {
    std::string_view table;
    std::string_view subject_match;
};

/// For every non-empty filter parameter present: an EXISTS over the term table (an index lookup),
/// or a LIKE on the search text for the substring filter.
[[nodiscard]] ApiResult<void> add_list_filters(const HttpRequest& request,
                                               std::span<const ListFilter> filters,
                                               const TermTable& terms, SqlWhere& where);

/// `verification`: verified, unverified or unreachable (the latest check's status in `column`),
/// or none (never checked).
[[nodiscard]] ApiResult<void> add_verification_filter(const HttpRequest& request,
                                                      std::string_view column, SqlWhere& where);

/// The index in `choices` of parameter `name` (`fallback` when absent); 400 `message` otherwise.
/// `fold_case` compares ASCII-lowercased.
[[nodiscard]] ApiResult<size_t> choice_param(const HttpRequest& request, std::string_view name,
                                             std::span<const std::string_view> choices,
                                             size_t fallback, std::string_view message,
                                             bool fold_case = false);

[[nodiscard]] ApiError bad_cursor();
/// The `cursor` parameter's parts (route and count checked: 400 bad_cursor), nullopt when absent.
[[nodiscard]] ApiResult<std::optional<std::vector<std::string>>> cursor_param(
    const HttpRequest& request, std::string_view route, size_t parts);
/// One cursor part as a whole integer, a finite double, or hex of exactly `size` bytes; nullopt
/// when malformed.
[[nodiscard]] std::optional<int64_t> cursor_int(const std::string& part);
[[nodiscard]] std::optional<double> cursor_double(const std::string& part);
[[nodiscard]] std::optional<core::Bytes> cursor_bytes(const std::string& part, size_t size);

/// Keyset paging: a handler fetches `limit` + 1 rows (index::DbRow, or a table owner's typed
/// rows); the extra one only says that a next page exists. Sets out["items"] (item(row) for the
/// first `limit` rows; it may return Json or ApiResult<Json>) and out["next_cursor"]
/// (cursor_parts(index of the last shown row) under `route`, or null).
template <typename Row, typename ItemFn, typename CursorFn>
[[nodiscard]] ApiResult<void> put_page(Json& out, const std::vector<Row>& rows, size_t limit,
                                       std::string_view route, ItemFn&& item,
                                       CursorFn&& cursor_parts) {
    Json items = Json::array();
    const size_t shown = std::min(rows.size(), limit);
    for (size_t i = 0; i < shown; ++i) {
        if constexpr (std::is_same_v<std::invoke_result_t<ItemFn&, const Row&>, ApiResult<Json>>) {
            auto made = item(rows[i]);
            if (!made) return std::unexpected(made.error());
            items.push_back(std::move(*made));
        } else {
            items.push_back(item(rows[i]));
        }
    }
    Json next = nullptr;
    if (rows.size() > limit && shown > 0) {
        const auto parts = cursor_parts(shown - 1);
        next = encode_cursor(route, parts);
    }
    out["items"] = std::move(items);
    out["next_cursor"] = std::move(next);
    return {};
}

}  // namespace credence::api::detail
