#include <credence/subgraph/snapshot_loader.hpp>

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <credence/core/uint256.hpp>
#include <credence/index/row.hpp>
#include <credence/subgraph/file_fields.hpp>

namespace credence::subgraph {
namespace {

using index::blob_at;
using index::blob_value;
using index::DbError;
using index::DbResult;
using index::DbRow;
using index::DbValue;
using index::int_at;
using index::int_value;
using index::text_at;
using Json = nlohmann::json;

std::unexpected<DbError> bad_row(std::string_view table) {
    return std::unexpected(index::unreadable("subgraph snapshot", table));
}

std::optional<core::Address> address_at(const DbRow& row, size_t i) {
    const core::Bytes* b = blob_at(row, i);
    if (b == nullptr) return std::nullopt;
    auto a = core::Address::from_bytes(*b);
    return a ? std::optional(*a) : std::nullopt;
}

std::optional<core::Hash32> hash_at(const DbRow& row, size_t i) {
    const core::Bytes* b = blob_at(row, i);
    if (b == nullptr || b->size() != 32) return std::nullopt;
    core::Hash32 h{};
    std::copy(b->begin(), b->end(), h.begin());
    return h;
}

std::optional<std::string> decimal_id_at(const DbRow& row, size_t i) {
    const core::Bytes* b = blob_at(row, i);
    if (b == nullptr) return std::nullopt;
    auto v = core::Uint256::from_be_bytes(*b);
    return v ? std::optional(v->to_dec()) : std::nullopt;
}

// Times of blocks: block_times (blocks holding a log), then the remembered recent headers.
class BlockClock {
public:
    DbResult<void> load(index::Database& db, uint64_t chain_id) {
        const std::array<DbValue, 1> p{int_value(chain_id)};
        for (std::string_view sql :
             {"SELECT block_num, timestamp FROM block_hashes WHERE chain_id = $1",
              "SELECT block_num, timestamp FROM block_times WHERE chain_id = $1"}) {
            auto rows = db.query(sql, p);
            if (!rows) return std::unexpected(rows.error());
            for (const DbRow& r : *rows) {
                const int64_t* num = int_at(r, 0);
                const int64_t* ts = int_at(r, 1);
                if (num == nullptr || ts == nullptr) return bad_row("block_times");
                times_[*num] = *ts;
            }
        }
        return {};
    }
    /// 0 when unknown (a block indexed before block_times existed).
    [[nodiscard]] int64_t at(const int64_t* block_num) const {
        if (block_num == nullptr) return 0;
        auto it = times_.find(*block_num);
        return it == times_.end() ? 0 : it->second;
    }

private:
    std::unordered_map<int64_t, int64_t> times_;
};

struct Loader {
    Loader(index::Database& d, const SnapshotSources& s, Snapshot& o) : db(d), src(s), out(o) {}

    index::Database& db;
    const SnapshotSources& src;
    Snapshot& out;
    BlockClock clock;
    // Per agent: the transaction and log index of the event that set its URI, and its time.
    std::vector<std::pair<core::Hash32, int64_t>> uri_event;
    std::vector<int64_t> uri_time;
    // Per feedback row: its transaction.
    std::vector<core::Hash32> feedback_txn;

    DbResult<std::vector<DbRow>> rows(std::string_view sql, const core::Address& registry) {
        const std::array<DbValue, 2> p{int_value(src.chain_id), blob_value(registry.bytes)};
        return db.query(sql, p);
    }

    void touch(uint32_t agent, int64_t time, bool activity) {
        AgentRecord& a = out.agents[agent];
        a.updated_at = std::max(a.updated_at, time);
        if (activity) a.last_activity = std::max(a.last_activity, time);
    }

    uint32_t agent_row(const DbRow& row, size_t i) {
        auto id = decimal_id_at(row, i);
        if (!id) return kNone;
        auto it = out.agent_by_id.find(*id);
        return it == out.agent_by_id.end() ? kNone : it->second;
    }

    DbResult<void> cursor() {
        const std::array<DbValue, 1> p{int_value(src.chain_id)};
        auto rows = db.query("SELECT block_num FROM cursors WHERE chain_id = $1", p);
        if (!rows) return std::unexpected(rows.error());
        if (rows->empty()) return {};
        const int64_t* num = int_at(rows->front(), 0);
        if (num == nullptr) return bad_row("cursors");
        out.block_num = static_cast<uint64_t>(*num);
        const std::array<DbValue, 2> q{int_value(src.chain_id), int_value(out.block_num)};
        auto head = db.query(
            "SELECT hash, timestamp FROM block_hashes WHERE chain_id = $1 AND block_num = $2", q);
        if (!head) return std::unexpected(head.error());
        if (!head->empty()) {
            if (auto h = hash_at(head->front(), 0)) out.block_hash = *h;
            if (const int64_t* ts = int_at(head->front(), 1)) out.block_timestamp = *ts;
        }
        return {};
    }

    DbResult<void> agents() {
        auto found = rows(
            "SELECT agent_id, owner, agent_uri, wallet, registered_block_num, updated_block_num "
            "FROM agents WHERE chain_id = $1 AND registry = $2 ORDER BY agent_id",
            src.identity_registry);
        if (!found) return std::unexpected(found.error());
        out.agents.reserve(found->size());
        for (const DbRow& r : *found) {
            auto id = decimal_id_at(r, 0);
            auto owner = address_at(r, 1);
            if (!id) return bad_row("agents");
            AgentRecord a;
            a.agent_id = std::move(*id);
            a.owner = owner.value_or(core::Address{});
            if (const std::string* uri = text_at(r, 2)) a.agent_uri = *uri;
            a.wallet = address_at(r, 3);
            const int64_t* registered = int_at(r, 4);
            a.created_at = clock.at(registered != nullptr ? registered : int_at(r, 5));
            a.updated_at = std::max(a.created_at, clock.at(int_at(r, 5)));
            a.last_activity = a.created_at;
            out.agent_by_id.emplace(a.agent_id, static_cast<uint32_t>(out.agents.size()));
            out.agents.push_back(std::move(a));
        }
        const size_t n = out.agents.size();
        out.feedback_by_agent.resize(n);
        out.validations_by_agent.resize(n);
        out.metadata_by_agent.resize(n);
        uri_event.assign(n, {core::Hash32{}, -1});
        uri_time.assign(n, 0);
        return {};
    }

    DbResult<void> approvals_and_history() {
        // ERC-721 Approval: the subgraph lists each approved address once (identity-registry.ts
        // handleApproval); a zero address clears nothing it had listed.
        auto approvals = rows(
            "SELECT agent_id, approved, block_num FROM agent_approvals WHERE chain_id = $1 AND "
            "registry = $2 ORDER BY block_num, log_index",
            src.identity_registry);
        if (!approvals) return std::unexpected(approvals.error());
        for (const DbRow& r : *approvals) {
            const uint32_t agent = agent_row(r, 0);
            auto approved = address_at(r, 1);
            if (agent == kNone || !approved) continue;
            auto& ops = out.agents[agent].operators;
            if (*approved != core::Address{} && std::ranges::find(ops, *approved) == ops.end())
                ops.push_back(*approved);
            touch(agent, clock.at(int_at(r, 2)), false);
        }
        // The transaction of the event that set each agent's URI: the registration file's id.
        auto uris = rows(
            "SELECT agent_id, txn_hash, log_index, block_num FROM agent_history WHERE chain_id = "
            "$1 AND registry = $2 AND event IN ('Registered', 'URIUpdated') ORDER BY block_num, "
            "log_index",
            src.identity_registry);
        if (!uris) return std::unexpected(uris.error());
        for (const DbRow& r : *uris) {
            const uint32_t agent = agent_row(r, 0);
            auto txn = hash_at(r, 1);
            const int64_t* log_index = int_at(r, 2);
            if (agent == kNone || !txn || log_index == nullptr) continue;
            uri_event[agent] = {*txn, *log_index};
            uri_time[agent] = clock.at(int_at(r, 3));
        }
        return {};
    }

    DbResult<void> metadata() {
        auto meta = rows(
            "SELECT agent_id, metadata_key, metadata_value, block_num FROM agent_metadata WHERE "
            "chain_id = $1 AND registry = $2 ORDER BY agent_id, metadata_key",
            src.identity_registry);
        if (!meta) return std::unexpected(meta.error());
        for (const DbRow& r : *meta) {
            const uint32_t agent = agent_row(r, 0);
            const std::string* key = text_at(r, 1);
            const core::Bytes* value = blob_at(r, 2);
            if (agent == kNone || key == nullptr || value == nullptr) continue;
            out.metadata_by_agent[agent].push_back(static_cast<uint32_t>(out.metadata.size()));
            out.metadata.push_back({agent, *key, *value, clock.at(int_at(r, 3))});
        }
        return {};
    }

    DbResult<void> registration_files() {
        const std::array<DbValue, 2> p{int_value(src.chain_id),
                                       blob_value(src.identity_registry.bytes)};
        auto checks = db.query(
            "SELECT subject_id, report FROM verifications WHERE chain_id = $1 AND subject_kind = "
            "'agent' AND contract = $2",
            p);
        if (!checks) return std::unexpected(checks.error());
        for (const DbRow& r : *checks) {
            const uint32_t agent = agent_row(r, 0);
            const std::string* report_text = text_at(r, 1);
            if (agent == kNone || report_text == nullptr) continue;
            AgentRecord& a = out.agents[agent];
            const Json report = Json::parse(*report_text, nullptr, false);
            if (!report.is_object()) continue;
            // Only a check of the agent's current URI describes its current file.
            auto uri = report.find("agentURI");
            if (uri == report.end() || !uri->is_string() || !a.agent_uri ||
                uri->get<std::string>() != *a.agent_uri)
                continue;
            auto file = report.find("registrationFile");
            if (file == report.end() || !file->is_object()) continue;
            auto doc = file->find("document");
            if (doc == file->end() || !doc->is_object()) continue;
            RegistrationFileRecord rf;
            const auto& [txn, log_index] = uri_event[agent];
            const std::string txn_hex = core::to_hex(txn);
            const std::string cid = ipfs_cid(*a.agent_uri);
            // identity-registry.ts: "txHash:cid" for IPFS files, "txHash:datauri:logIndex" for
            // data URIs; other URLs (which the subgraph does not read) as "txHash:url:logIndex".
            if (!cid.empty()) {
                rf.id = txn_hex + ":" + cid;
                rf.cid = cid;
            } else if (a.agent_uri->starts_with("data:")) {
                rf.id = fmt::format("{}:datauri:{}", txn_hex, log_index);
                rf.cid = fmt::format("datauri:{}:{}", txn_hex, log_index);
            } else {
                rf.id = fmt::format("{}:url:{}", txn_hex, log_index);
                rf.cid = *a.agent_uri;
            }
            rf.agent = agent;
            rf.created_at = uri_time[agent];
            read_registration_document(*doc, rf);
            a.registration_file = static_cast<uint32_t>(out.registration_files.size());
            out.registration_file_by_id.emplace(rf.id, a.registration_file);
            out.registration_files.push_back(std::move(rf));
        }
        return {};
    }

    DbResult<void> feedback() {
        if (!src.reputation_registry) return {};
        auto fb = rows(
            "SELECT agent_id, client, feedback_index, value, value_decimals, tag1, tag2, "
            "endpoint, feedback_uri, feedback_hash, revoked, revoked_block_num, block_num, "
            "txn_hash FROM feedback WHERE chain_id = $1 AND registry = $2 ORDER BY block_num, "
            "log_index",
            *src.reputation_registry);
        if (!fb) return std::unexpected(fb.error());
        out.feedback.reserve(fb->size());
        feedback_txn.reserve(fb->size());
        for (const DbRow& r : *fb) {
            const uint32_t agent = agent_row(r, 0);
            if (agent == kNone) continue;  // reputation-registry.ts: feedback for unknown agent
            auto client = address_at(r, 1);
            const int64_t* index = int_at(r, 2);
            const std::string* value = text_at(r, 3);
            const int64_t* decimals = int_at(r, 4);
            const int64_t* revoked = int_at(r, 10);
            auto hash = hash_at(r, 9);
            if (!client || index == nullptr || value == nullptr || decimals == nullptr ||
                revoked == nullptr)
                return bad_row("feedback");
            FeedbackRecord f;
            f.agent = agent;
            f.client = *client;
            f.feedback_index = static_cast<uint64_t>(*index);
            f.value = decimal_text(*value, *decimals);
            for (auto [field, i] : {std::pair{&f.tag1, 5}, {&f.tag2, 6}, {&f.endpoint, 7},
                                    {&f.feedback_uri, 8}})
                if (const std::string* t = text_at(r, static_cast<size_t>(i))) *field = *t;
            f.feedback_hash = hash.value_or(core::Hash32{});
            f.revoked = *revoked != 0;
            f.created_at = clock.at(int_at(r, 12));
            if (f.revoked) f.revoked_at = clock.at(int_at(r, 11));
            AgentRecord& a = out.agents[agent];
            if (!f.revoked) ++a.total_feedback;
            touch(agent, f.created_at, true);
            if (f.revoked_at) touch(agent, *f.revoked_at, false);
            out.feedback_by_agent[agent].push_back(static_cast<uint32_t>(out.feedback.size()));
            out.feedback.push_back(std::move(f));
            feedback_txn.push_back(hash_at(r, 13).value_or(core::Hash32{}));
        }
        out.responses_by_feedback.resize(out.feedback.size());
        return {};
    }

    uint32_t feedback_row(uint32_t agent, const core::Address& client, int64_t index) const {
        if (agent == kNone) return kNone;
        for (uint32_t f : out.feedback_by_agent[agent]) {
            const FeedbackRecord& r = out.feedback[f];
            if (r.client == client && static_cast<int64_t>(r.feedback_index) == index) return f;
        }
        return kNone;
    }

    DbResult<void> feedback_files() {
        if (!src.reputation_registry) return {};
        const std::array<DbValue, 2> p{int_value(src.chain_id),
                                       blob_value(src.reputation_registry->bytes)};
        auto checks = db.query(
            "SELECT subject_id, client, feedback_index, report FROM verifications WHERE "
            "chain_id = $1 AND subject_kind = 'feedback' AND contract = $2",
            p);
        if (!checks) return std::unexpected(checks.error());
        for (const DbRow& r : *checks) {
            auto client = address_at(r, 1);
            const int64_t* index = int_at(r, 2);
            const std::string* report_text = text_at(r, 3);
            if (!client || index == nullptr || report_text == nullptr) continue;
            const uint32_t f = feedback_row(agent_row(r, 0), *client, *index);
            if (f == kNone) continue;
            const Json report = Json::parse(*report_text, nullptr, false);
            if (!report.is_object()) continue;
            auto doc = report.find("document");
            if (doc == report.end() || !doc->is_object()) continue;
            FeedbackRecord& fb = out.feedback[f];
            FeedbackFileRecord file;
            const std::string txn_hex = core::to_hex(feedback_txn[f]);
            const std::string cid = ipfs_cid(fb.feedback_uri);
            // reputation-registry.ts: "txHash:cid"; files at other URLs as "txHash:<feedbackId>".
            file.cid = cid.empty() ? fb.feedback_uri : cid;
            file.id = txn_hex + ":" + (cid.empty() ? feedback_id(f) : cid);
            file.feedback = f;
            file.created_at = fb.created_at;
            read_feedback_document(*doc, fb, file);
            fb.file = static_cast<uint32_t>(out.feedback_files.size());
            out.feedback_file_by_id.emplace(file.id, fb.file);
            out.feedback_files.push_back(std::move(file));
        }
        return {};
    }

    std::string feedback_id(uint32_t f) const {
        const FeedbackRecord& r = out.feedback[f];
        return fmt::format("{}{}:{}:{}", out.chain_prefix, out.agents[r.agent].agent_id,
                           r.client.to_lower_hex(), r.feedback_index);
    }

    DbResult<void> responses() {
        if (!src.reputation_registry) return {};
        auto rs = rows(
            "SELECT agent_id, client, feedback_index, block_num, log_index, responder, "
            "response_uri, response_hash, txn_hash FROM feedback_responses WHERE chain_id = $1 "
            "AND registry = $2 ORDER BY block_num, log_index",
            *src.reputation_registry);
        if (!rs) return std::unexpected(rs.error());
        for (const DbRow& r : *rs) {
            auto client = address_at(r, 1);
            const int64_t* index = int_at(r, 2);
            const int64_t* log_index = int_at(r, 4);
            auto responder = address_at(r, 5);
            const std::string* uri = text_at(r, 6);
            if (!client || index == nullptr || log_index == nullptr || !responder ||
                uri == nullptr)
                return bad_row("feedback_responses");
            const uint32_t f = feedback_row(agent_row(r, 0), *client, *index);
            if (f == kNone) continue;  // reputation-registry.ts: response for unknown feedback
            ResponseRecord resp;
            resp.feedback = f;
            resp.txn_hash = hash_at(r, 8).value_or(core::Hash32{});
            resp.log_index = static_cast<uint64_t>(*log_index);
            resp.responder = *responder;
            resp.response_uri = *uri;
            resp.response_hash = hash_at(r, 7).value_or(core::Hash32{});
            resp.created_at = clock.at(int_at(r, 3));
            out.responses_by_feedback[f].push_back(static_cast<uint32_t>(out.responses.size()));
            out.responses.push_back(std::move(resp));
        }
        return {};
    }

    DbResult<void> validations() {
        if (!src.validation_registry) return {};
        auto vs = rows(
            "SELECT request_hash, validator, agent_id, request_uri, block_num, response, "
            "response_uri, response_hash, response_tag, response_block_num FROM "
            "validation_requests WHERE chain_id = $1 AND registry = $2 AND block_num IS NOT NULL "
            "ORDER BY block_num, log_index",
            *src.validation_registry);
        if (!vs) return std::unexpected(vs.error());
        for (const DbRow& r : *vs) {
            const uint32_t agent = agent_row(r, 2);
            if (agent == kNone) continue;  // validation-registry.ts: request for unknown agent
            auto hash = hash_at(r, 0);
            auto validator = address_at(r, 1);
            if (!hash || !validator) return bad_row("validation_requests");
            ValidationRecord v;
            v.request_hash = *hash;
            v.agent = agent;
            v.validator = *validator;
            if (const std::string* uri = text_at(r, 3)) v.request_uri = *uri;
            v.created_at = clock.at(int_at(r, 4));
            v.updated_at = v.created_at;
            touch(agent, v.created_at, true);
            if (const int64_t* response = int_at(r, 5)) {
                v.completed = true;
                v.response = *response;
                if (const std::string* uri = text_at(r, 6)) v.response_uri = *uri;
                v.response_hash = hash_at(r, 7).value_or(core::Hash32{});
                if (const std::string* tag = text_at(r, 8)) v.tag = *tag;
                v.updated_at = clock.at(int_at(r, 9));
                touch(agent, v.updated_at, true);
            }
            out.validations_by_agent[agent].push_back(
                static_cast<uint32_t>(out.validations.size()));
            out.validation_by_hash.emplace(v.request_hash,
                                           static_cast<uint32_t>(out.validations.size()));
            out.validations.push_back(std::move(v));
        }
        return {};
    }

    void protocol() {
        if (out.agents.empty()) return;
        ProtocolRecord p;
        p.name = chain_name(src.chain_id);
        p.identity_registry = src.identity_registry;
        p.reputation_registry = src.reputation_registry.value_or(core::Address{});
        p.validation_registry = src.validation_registry.value_or(core::Address{});
        p.created_at = out.agents.front().created_at;
        for (const AgentRecord& a : out.agents) {
            p.created_at = std::min(p.created_at, a.created_at);
            p.updated_at = std::max(p.updated_at, a.updated_at);
        }
        out.protocols.push_back(std::move(p));
    }
};

}  // namespace

std::string chain_name(uint64_t chain_id) {
    static const std::array<std::pair<uint64_t, std::string_view>, 12> kNames{{
        {1, "Ethereum Mainnet"},
        {11155111, "Ethereum Sepolia"},
        {8453, "Base Mainnet"},
        {84532, "Base Sepolia"},
        {137, "Polygon Mainnet"},
        {80002, "Polygon Amoy"},
        {56, "BSC Mainnet"},
        {97, "BSC Testnet"},
        {42161, "Arbitrum One"},
        {421614, "Arbitrum Sepolia"},
        {143, "Monad Mainnet"},
        {31337, "Anvil"},
    }};
    for (const auto& [id, name] : kNames)
        if (id == chain_id) return std::string(name);
    return fmt::format("Chain {}", chain_id);
}

DbResult<Snapshot> load_snapshot(index::Database& db, const SnapshotSources& sources) {
    Snapshot out;
    out.chain_id = sources.chain_id;
    out.chain_prefix = fmt::format("{}:", sources.chain_id);
    if (auto r = db.begin_read(); !r) return std::unexpected(r.error());
    Loader loader(db, sources, out);
    const auto steps = [&]() -> DbResult<void> {
        for (auto step : {&Loader::cursor, &Loader::agents, &Loader::approvals_and_history,
                          &Loader::metadata, &Loader::registration_files, &Loader::feedback,
                          &Loader::feedback_files, &Loader::responses, &Loader::validations}) {
            if (step == &Loader::agents) {
                if (auto r = loader.clock.load(db, sources.chain_id); !r) return r;
            }
            if (auto r = (loader.*step)(); !r) return r;
        }
        loader.protocol();
        return {};
    }();
    index::ignore_failure(db.rollback());
    if (!steps) return std::unexpected(steps.error());
    return out;
}

}  // namespace credence::subgraph
