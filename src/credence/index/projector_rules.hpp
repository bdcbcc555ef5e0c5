// Private to the projector files (projector*.cpp): the per-family projection rules and the small
// helpers that turn decoded ABI values into DbValue parameters with the encodings of schema.hpp.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <expected>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <credence/chain/rpc_types.hpp>
#include <credence/core/abi_type.hpp>
#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/error.hpp>
#include <credence/core/uint256.hpp>
#include <credence/index/projector.hpp>

namespace credence::index::rules {

/// What every rule gets: the log, its chain and its getAgentTask / getAgentReply detail.
struct LogInput {
    int64_t chain_id = 0;
    const RawLog* log = nullptr;
    core::ByteView detail;
};

using RuleResult = std::expected<Projection, std::string>;

/// NewFeedback's upsert of its feedback row (projector_erc8004.cpp), run several rows at once.
[[nodiscard]] const MultiRowInsert& feedback_upsert();

[[nodiscard]] RuleResult project_identity(const LogInput& in);
[[nodiscard]] RuleResult project_reputation(const LogInput& in);
[[nodiscard]] RuleResult project_validation(const LogInput& in);
[[nodiscard]] RuleResult project_tool(const LogInput& in);
[[nodiscard]] RuleResult project_workflow(const LogInput& in);
[[nodiscard]] RuleResult project_verifier(const LogInput& in);
// The earlier ERC-8004 revisions (projector_erc8004_legacy.cpp).
[[nodiscard]] RuleResult project_identity_score(const LogInput& in);
[[nodiscard]] RuleResult project_reputation_score(const LogInput& in);
[[nodiscard]] RuleResult project_validation_score(const LogInput& in);
[[nodiscard]] RuleResult project_identity_draft(const LogInput& in);
[[nodiscard]] RuleResult project_reputation_draft(const LogInput& in);
[[nodiscard]] RuleResult project_validation_draft(const LogInput& in);

/// readFeedback(agentId, client, feedbackIndex) for an intermediate-revision NewFeedback (its tag1
/// is indexed, so the text is read back; store.hpp detail_call), nullopt for any other log.
[[nodiscard]] std::optional<chain::CallRequest> score_feedback_detail_call(const RawLog& log);

[[nodiscard]] inline DbValue blob(const core::Address& a) {
    return core::Bytes(a.bytes.begin(), a.bytes.end());
}
[[nodiscard]] inline DbValue blob(const core::Hash32& h) { return core::Bytes(h.begin(), h.end()); }
[[nodiscard]] inline DbValue blob(core::ByteView b) { return core::Bytes(b.begin(), b.end()); }
/// A uint256 id as 32 bytes big-endian (schema.hpp: byte order = numeric order).
[[nodiscard]] inline DbValue blob(const core::Uint256& v) { return blob(v.to_word()); }
/// The zero address stands for "none" (ERC-721 approval cleared, wallet unset).
[[nodiscard]] inline DbValue blob_or_null(const core::Address& a) {
    return a.is_zero() ? DbValue{} : blob(a);
}
[[nodiscard]] inline DbValue integer(uint64_t v) {
    constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    return static_cast<int64_t>(v > kMax ? kMax : v);
}
/// uint256 timestamps and counters, saturated at 2^63 - 1 (schema.hpp).
[[nodiscard]] inline DbValue integer(const core::Uint256& v) {
    return v.fits_u64() ? integer(v.limbs[0]) : integer(std::numeric_limits<uint64_t>::max());
}
[[nodiscard]] inline DbValue flag(bool b) { return int64_t{b ? 1 : 0}; }
[[nodiscard]] inline DbValue text(std::string s) { return DbValue(std::move(s)); }

[[nodiscard]] inline core::Bytes entity_of(const core::Uint256& id) {
    const auto w = id.to_word();
    return {w.begin(), w.end()};
}
[[nodiscard]] inline core::Bytes entity_of(const core::Hash32& h) { return {h.begin(), h.end()}; }
[[nodiscard]] inline core::Bytes entity_of(const core::Address& a) {
    return {a.bytes.begin(), a.bytes.end()};
}

/// "<event>: <abi error>: <detail>", the rejection reason of a log that does not decode.
[[nodiscard]] std::string decode_failure(std::string_view event,
                                         const core::Error<core::AbiError>& e);
/// The rejection reason of a log whose topic0 is not in its kind's catalog.
[[nodiscard]] std::string unknown_event(std::string_view kind, const RawLog& log);

/// The common parameters of position-keyed rows: $1 chain_id, $2 contract, $3 entity id.
[[nodiscard]] std::vector<DbValue> key_params(const LogInput& in, DbValue entity_id);

/// A contract_events row (name, entity, optional run id, args JSON).
[[nodiscard]] Projection generic_event(const LogInput& in, std::string_view name,
                                       core::Bytes entity, DbValue run_id, std::string args_json);

/// Builds the args JSON of generic events: {"name":"value",...} with values already formatted
/// (hex, decimal string) or raw JSON (booleans).
class JsonArgs {
public:
    JsonArgs& str(std::string_view name, std::string_view value);
    JsonArgs& raw(std::string_view name, std::string_view json);
    JsonArgs& hex(std::string_view name, core::ByteView bytes) {
        return str(name, core::to_hex(bytes));
    }
    JsonArgs& address(std::string_view name, const core::Address& a) {
        return str(name, a.to_lower_hex());
    }
    JsonArgs& uint(std::string_view name, const core::Uint256& v) { return str(name, v.to_dec()); }
    JsonArgs& boolean(std::string_view name, bool b) { return raw(name, b ? "true" : "false"); }
    [[nodiscard]] std::string done() { return std::move(out_) + "}"; }

private:
    void key(std::string_view name);
    std::string out_ = "{";
};

}  // namespace credence::index::rules
