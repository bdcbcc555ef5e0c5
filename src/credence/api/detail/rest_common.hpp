// Shared pieces of the REST handlers (api/rest_*.cpp): the error type every handler returns, the
// strict query-parameter readers (unknown parameters, bad numbers, bad UTF-8 and bad cursors are
// 400s, never 5xx), opaque cursors, and readers of index column values.
//
// Thread-safety: free functions over values; a Ctx borrows one request and one connection.
#pragma once

#include <cstdint>
#include <expected>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/api/http_types.hpp>
#include <credence/api/rest_api.hpp>
#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/index/database.hpp>
#include <credence/index/feedback_table.hpp>

namespace credence::index {
struct VerificationRecord;
}  // namespace credence::index

namespace credence::api::detail {

using Json = nlohmann::ordered_json;

/// A 4xx (or 503 for a database failure) with a stable snake_case code (docs/api.md §Errors).
struct ApiError {
    int status = 400;
    std::string code;
    std::string message;   ///< sent to the client
    std::string detail;    ///< logged, never sent (a database error's text quotes SQL)
    bool corrupt = false;  ///< the index is damaged (index::DbErrorKind::corrupt)

    ApiError() = default;
    ApiError(int http_status, std::string error_code, std::string client_text,
             std::string logged_text = {}, bool index_damaged = false)
        : status(http_status),
          code(std::move(error_code)),
          message(std::move(client_text)),
          detail(std::move(logged_text)),
          corrupt(index_damaged) {}
};

template <typename T>
using ApiResult = std::expected<T, ApiError>;

[[nodiscard]] ApiError bad_parameter(std::string message);
[[nodiscard]] ApiError not_found(std::string message);
[[nodiscard]] ApiError unavailable(const index::DbError& error);

/// What a route handler sees: the scope, one connection, the request and the path captures.
/// `scope` is the chain the route answers for (the one named in the path, else the default
/// chain); `chains` are the scopes a list route spans (`?chain=`, else every followed chain,
/// with `?revision=` applied), and every followed chain on the other routes. Never empty; a list
/// route's `scope` is its first.
struct Ctx {
    const ApiScope& scope;
    index::Database& db;
    const HttpRequest& request;
    std::vector<std::string> captures;
    std::span<const ApiScope> chains;
};

/// ERC-8004 §Identity Registry: agentRegistry, "eip155:<chainId>:<identityRegistry>".
[[nodiscard]] std::string agent_registry_of(uint64_t chain_id, const core::Address& identity);
/// A chain id in a path or `?chain=`: canonical decimal in 1..2^63-1 (the index's BIGINT), else
/// 400 bad_parameter.
[[nodiscard]] ApiResult<uint64_t> parse_chain_id(std::string_view text);
/// 404 unknown_chain: the node follows no chain `chain_id` (docs/api.md §Chains).
[[nodiscard]] ApiError unknown_chain(uint64_t chain_id);

/// The scope's chain id as a bound value ($1 of every query).
[[nodiscard]] index::DbValue chain(const Ctx& ctx);

/// 400 unknown_parameter unless every query parameter is in `allowed`.
[[nodiscard]] ApiResult<void> check_params(const HttpRequest& request,
                                           std::initializer_list<std::string_view> allowed);
/// A text parameter: valid UTF-8, at most 256 bytes; nullopt when absent.
[[nodiscard]] ApiResult<std::optional<std::string>> text_param(const HttpRequest& request,
                                                               std::string_view name);
/// "true"/"1" or "false"/"0"; nullopt when absent.
[[nodiscard]] ApiResult<std::optional<bool>> bool_param(const HttpRequest& request,
                                                        std::string_view name);
/// An integer in [min, max]; `fallback` when absent.
[[nodiscard]] ApiResult<int64_t> int_param(const HttpRequest& request, std::string_view name,
                                           int64_t min, int64_t max, int64_t fallback);
/// A finite number; nullopt when absent.
[[nodiscard]] ApiResult<std::optional<double>> number_param(const HttpRequest& request,
                                                            std::string_view name);
/// `limit`: 1..100, default 20.
[[nodiscard]] ApiResult<size_t> limit_param(const HttpRequest& request);
/// Every value of `name` (repeated and/or comma-separated) as addresses; at most 1000.
[[nodiscard]] ApiResult<std::vector<core::Address>> address_list(const HttpRequest& request,
                                                                 std::string_view name);
[[nodiscard]] ApiResult<core::Address> parse_address(std::string_view text, std::string_view what);
/// A uint256 id (decimal or 0x-hex) as the index stores it: 32 bytes, big-endian.
[[nodiscard]] ApiResult<core::Bytes> parse_uint256_id(std::string_view text, std::string_view what);
/// A bytes32 ("0x" + 64 hex digits).
[[nodiscard]] ApiResult<core::Bytes> parse_hash32(std::string_view text, std::string_view what);
[[nodiscard]] bool is_valid_utf8(std::string_view text) noexcept;

/// Opaque cursors: hex of "<route>|<part>|<part>...". decode_cursor checks the route and the
/// number of parts (400 bad_cursor otherwise).
[[nodiscard]] std::string encode_cursor(std::string_view route, std::span<const std::string> parts);
[[nodiscard]] ApiResult<std::vector<std::string>> decode_cursor(std::string_view cursor,
                                                                std::string_view route,
                                                                size_t parts);

/// SQL LIKE pattern matching `value` as a substring; lowercased, with % _ and \ escaped (use
/// ESCAPE '\').
[[nodiscard]] std::string like_substring(std::string_view value);
[[nodiscard]] std::string ascii_lower(std::string_view text);
/// ",a,b," -> ["a","b"].
[[nodiscard]] Json comma_list(std::string_view wrapped);

// Column readers (NULL -> nullopt / null).
[[nodiscard]] std::optional<int64_t> as_int(const index::DbValue& value) noexcept;
[[nodiscard]] std::optional<double> as_real(const index::DbValue& value) noexcept;
[[nodiscard]] std::optional<std::string> as_text(const index::DbValue& value);
[[nodiscard]] core::Bytes as_bytes(const index::DbValue& value);
[[nodiscard]] Json int_or_null(const index::DbValue& value);
[[nodiscard]] Json real_or_null(const index::DbValue& value);
[[nodiscard]] Json text_or_null(const index::DbValue& value);
/// The same, and null for an empty text too: for a profile's name, description and image, which
/// are unknown (docs/api.md) when the registration file could not be read.
[[nodiscard]] Json nonempty_text_or_null(const index::DbValue& value);
/// A 20-byte BLOB as a checksummed address, else null.
[[nodiscard]] Json address_or_null(const index::DbValue& value);
/// A BLOB as 0x-hex, else null.
[[nodiscard]] Json hex_or_null(const index::DbValue& value);
/// A 32-byte big-endian uint256 BLOB as a decimal string, else null.
[[nodiscard]] Json uint256_or_null(const index::DbValue& value);

[[nodiscard]] index::DbValue blob(const core::Address& address);
[[nodiscard]] index::DbValue blob(core::ByteView bytes);
/// JSON text from the index (a report, a score's tags): parsed, or the text itself when invalid.
[[nodiscard]] Json stored_json(const std::string& text);

/// The stored latest check of a subject (index/verification_table.hpp) as the API shows it.
[[nodiscard]] Json verification_json(const index::VerificationRecord& record);

/// "($k, $k+1, ...)" for `count` placeholders starting at `first`.
[[nodiscard]] std::string placeholders(size_t first, size_t count);

// Route handlers (rest_agents.cpp, rest_catalog.cpp).
[[nodiscard]] ApiResult<Json> list_agents(Ctx& ctx);
[[nodiscard]] ApiResult<Json> get_agent(Ctx& ctx);
[[nodiscard]] ApiResult<Json> list_feedback(Ctx& ctx);
[[nodiscard]] ApiResult<Json> get_reputation(Ctx& ctx);
[[nodiscard]] ApiResult<Json> get_reputation_history(Ctx& ctx);
[[nodiscard]] ApiResult<Json> list_validations(Ctx& ctx);
[[nodiscard]] ApiResult<Json> list_tools(Ctx& ctx);
[[nodiscard]] ApiResult<Json> get_tool(Ctx& ctx);
[[nodiscard]] ApiResult<Json> list_runs(Ctx& ctx);
[[nodiscard]] ApiResult<Json> get_run(Ctx& ctx);
[[nodiscard]] ApiResult<Json> resolve_address(Ctx& ctx);
[[nodiscard]] ApiResult<Json> resolve_domain(Ctx& ctx);
[[nodiscard]] ApiResult<Json> chain_status(Ctx& ctx, const Json& node_status);
[[nodiscard]] ApiResult<Json> home(Ctx& ctx, const Json& node_status);

// The earlier ERC-8004 revisions (rest_agents_legacy.cpp, docs/api.md §Earlier ERC-8004
// revisions).
/// The identity registry of `revision` in `scope`, nullopt when the node follows none.
[[nodiscard]] std::optional<core::Address> identity_of(const ApiScope& scope,
                                                       core::Erc8004Revision revision);
/// The records of the same agent in the other revisions' identity registries, oldest first.
[[nodiscard]] ApiResult<Json> agent_history(Ctx& ctx, const core::Bytes& agent_id);
/// The records of the same agent on the other followed chains (rest_same_agent.cpp, docs/api.md
/// §The same agent on several chains).
[[nodiscard]] ApiResult<Json> same_agent(Ctx& ctx, const core::Bytes& agent_id);
/// The first draft's feedback: its AuthFeedback authorizations of this (server) agent.
[[nodiscard]] ApiResult<Json> list_feedback_authorizations(Ctx& ctx, const core::Bytes& agent_id);
/// The reputation route's `feedback` counts: all of an agent's feedback, the revoked, the
/// distinct clients (rest_agents.cpp).
[[nodiscard]] Json feedback_counts_json(std::span<const index::FeedbackEntry> feedback);
/// The intermediate revision's getSummary (trust/legacy_summary.hpp) as the reputation route's
/// answer.
[[nodiscard]] ApiResult<Json> score_reputation(Ctx& ctx, const core::Bytes& agent_id);

/// The OpenAPI 3.1 document (openapi.cpp).
[[nodiscard]] const Json& openapi_document();

}  // namespace credence::api::detail
