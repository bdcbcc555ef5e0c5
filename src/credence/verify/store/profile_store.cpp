#include <credence/verify/store/profile_store.hpp>

#include <algorithm>
#include <array>
#include <span>

#include <fmt/format.h>

#include <credence/core/json_lenient.hpp>

namespace credence::verify {

namespace {

using index::DbRow;
using index::DbValue;
using Json = nlohmann::json;

std::string lower(std::string_view text) {
    std::string out(text);
    std::ranges::transform(out, out.begin(), [](char c) {
        return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    });
    return out;
}

using core::lenient::append_strings;
using core::lenient::bool_at;
using core::lenient::member;
using core::lenient::string_at;

DbValue blob(const core::Address& address) {
    return core::Bytes(address.bytes.begin(), address.bytes.end());
}

DbValue optional_flag(std::optional<bool> value) {
    if (!value) return std::monostate{};
    return int64_t{*value ? 1 : 0};
}

std::string search_text(std::initializer_list<std::string_view> parts) {
    std::string out;
    for (auto part : parts) {
        if (part.empty()) continue;
        if (!out.empty()) out += ' ';
        out += lower(part);
    }
    return out;
}

std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) {
        if (!out.empty()) out += ' ';
        out += item;
    }
    return out;
}

}  // namespace

namespace {

/// The entries a list keeps: lowercase, commas dropped, empties and duplicates removed, in order.
std::vector<std::string> list_entries(const std::vector<std::string>& entries) {
    std::vector<std::string> clean;
    for (const auto& entry : entries) {
        std::string e = lower(entry);
        std::erase(e, ',');
        if (!e.empty() && std::ranges::find(clean, e) == clean.end()) clean.push_back(std::move(e));
    }
    return clean;
}

}  // namespace

std::string wrap_list(const std::vector<std::string>& entries) {
    std::string out = ",";
    for (const auto& e : list_entries(entries)) out += e + ",";
    return out;
}

AgentProfile agent_profile_from_report(const Json& report) {
    AgentProfile p;
    try {
        p.status = string_at(report, "status");
        if (string_at(report, "revision") == "draft") {
            // A first-draft agent (DraftAgentVerification::to_json): its Agent Card's name and
            // trustModels (ERC-8004 first draft §Agent Card Structure), and the AgentDomain when
            // the card there names the agent.
            const Json& card = member(report, "agentCard");
            p.has_document = member(card, "parsed").is_boolean() && card["parsed"].get<bool>();
            if (p.has_document) {
                p.name = string_at(card, "name");
                append_strings(member(card, "trustModels"), p.trust_models);
            }
            append_strings(member(report, "verifiedDomains"), p.domains);
            return p;
        }
        const Json& file = member(report, "registrationFile");
        p.has_document = member(file, "parsed").is_boolean() && file["parsed"].get<bool>() &&
                         member(file, "name").is_string();
        if (p.has_document) {
            // ERC-8004 §Agent URI and Agent Registration File: name, description, image,
            // services[], x402Support, active, supportedTrust.
            p.name = string_at(file, "name");
            p.description = string_at(file, "description");
            p.image = string_at(file, "image");
            p.active = bool_at(file, "active");
            p.x402_support = bool_at(file, "x402Support");
            const Json& services = member(file, "services");
            p.services_json = services.is_array() ? services.dump() : "[]";
            if (services.is_array()) {
                for (const auto& s : services) {
                    const std::string name = string_at(s, "name");
                    if (!name.empty()) p.service_names.push_back(name);
                    append_strings(member(s, "skills"), p.skills);  // OASF skills
                }
            }
            append_strings(member(file, "supportedTrust"), p.trust_models);
        }
        append_strings(member(report, "verifiedDomains"), p.domains);
        const Json& cards = member(report, "agentCards");
        if (cards.is_array()) {
            for (const auto& card : cards) {
                const Json& skills = member(card, "skills");
                if (!skills.is_array()) continue;
                for (const auto& skill : skills) {
                    const std::string id = string_at(skill, "id");
                    const std::string name = string_at(skill, "name");
                    if (!id.empty()) p.skills.push_back(id);
                    if (!name.empty() && name != id) p.skills.push_back(name);
                }
            }
        }
    } catch (const Json::exception&) {
        // A report of an unexpected shape: keep the stored contents, record only the check.
        p.has_document = false;
    }
    return p;
}

namespace {

AgentProfile agent_profile(const AgentVerification& verification, int64_t checked_at) {
    AgentProfile p = agent_profile_from_report(
        Json::parse(verification.to_json().dump(-1, ' ', false,
                                                nlohmann::ordered_json::error_handler_t::replace),
                    nullptr, false));
    p.checked_at = checked_at;
    return p;
}

}  // namespace

ToolProfile tool_profile_from_report(const Json& report) {
    ToolProfile p;
    try {
        // ERC-8257 §7: a canonical tool is verified; the reason code otherwise.
        const std::string verdict = string_at(report, "verdict");
        const std::string reason = string_at(report, "reason");
        p.status = verdict == "canonical" ? "verified" : "unverified";
        p.reason = verdict == "canonical" || reason == "none" ? "" : reason;
        const Json& summary = member(report, "manifestSummary");
        p.has_document = summary.is_object();
        if (p.has_document) {
            p.name = string_at(summary, "name");
            p.description = string_at(summary, "description");
            p.version = string_at(summary, "version");
            append_strings(member(summary, "tags"), p.tags);
            append_strings(member(summary, "pricingProtocols"), p.pricing_protocols);
            append_strings(member(summary, "assets"), p.assets);
            append_strings(member(summary, "accessKinds"), p.access_kinds);
        }
    } catch (const Json::exception&) {
        // A report of an unexpected shape: keep the stored contents, record only the check.
        p.has_document = false;
    }
    return p;
}

namespace {

/// One list of a profile under its name in the term table (index/schema.cpp migration 6).
struct NamedList {
    std::string_view list;
    const std::vector<std::string>* entries;
};

/// Replaces the subject's rows in `table` (agent_profile_terms or tool_profile_terms, subject
/// column `id_column`) by the entries of `lists`, exactly those wrap_list() keeps.
index::DbResult<void> replace_terms(index::Database& db, std::string_view table,
                                    std::string_view id_column, int64_t chain,
                                    const core::Address& registry, const core::Bytes& id,
                                    std::span<const NamedList> lists) {
    const std::array<DbValue, 3> key{chain, blob(registry), id};
    if (auto r = db.exec(fmt::format("DELETE FROM {} WHERE chain_id = $1 AND registry = $2 AND "
                                     "{} = $3",
                                     table, id_column),
                         key);
        !r) {
        return r;
    }
    const std::string insert = fmt::format(
        "INSERT INTO {} (chain_id, registry, {}, list, term) VALUES ($1, $2, $3, $4, $5)", table,
        id_column);
    for (const NamedList& named : lists) {
        for (std::string& term : list_entries(*named.entries)) {
            const std::array<DbValue, 5> row{chain, blob(registry), id, std::string(named.list),
                                             std::move(term)};
            if (auto r = db.exec(insert, row); !r) return r;
        }
    }
    return {};
}

/// Runs `write` in the caller's transaction, or in one of its own when there is none, so that a
/// profile row and its terms are never seen apart.
template <typename Write>
index::DbResult<void> in_transaction(index::Database& db, const Write& write) {
    if (db.in_transaction()) return write();
    if (auto r = db.begin(); !r) return r;
    if (auto r = write(); !r) {
        index::ignore_failure(db.rollback());
        return r;
    }
    return db.commit();
}

index::DbResult<void> write_agent_profile(index::Database& db, uint64_t chain_id,
                                          const core::Address& registry,
                                          const core::Bytes& agent_id, const AgentProfile& p) {
    const auto chain = static_cast<int64_t>(chain_id);
    if (!p.has_document) {
        // Nothing read: keep the last contents (and so their terms), record the check (a first
        // check inserts an empty profile so that status filters see the agent).
        const std::array<DbValue, 5> params{chain, blob(registry), agent_id, p.status,
                                            p.checked_at};
        return db.exec(
            "INSERT INTO agent_profiles (chain_id, registry, agent_id, name, description, image, "
            "active, x402_support, services, service_names, skills, domains, trust_models, "
            "search_text, status, checked_at) VALUES ($1, $2, $3, '', '', '', NULL, NULL, '[]', "
            "',', ',', ',', ',', '', $4, $5) ON CONFLICT (chain_id, registry, agent_id) DO UPDATE "
            "SET status = excluded.status, checked_at = excluded.checked_at",
            params);
    }
    const std::string text =
        search_text({p.name, p.description, join(p.skills), join(p.service_names)});
    const std::array<DbValue, 16> params{chain,
                                         blob(registry),
                                         agent_id,
                                         p.name,
                                         p.description,
                                         p.image,
                                         optional_flag(p.active),
                                         optional_flag(p.x402_support),
                                         p.services_json,
                                         wrap_list(p.service_names),
                                         wrap_list(p.skills),
                                         wrap_list(p.domains),
                                         wrap_list(p.trust_models),
                                         text,
                                         p.status,
                                         p.checked_at};
    if (auto r = db.exec(
            "INSERT INTO agent_profiles (chain_id, registry, agent_id, name, description, image, "
            "active, x402_support, services, service_names, skills, domains, trust_models, "
            "search_text, status, checked_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, "
            "$11, $12, $13, $14, $15, $16) ON CONFLICT (chain_id, registry, agent_id) DO UPDATE "
            "SET name = excluded.name, description = excluded.description, image = "
            "excluded.image, active = excluded.active, x402_support = excluded.x402_support, "
            "services = excluded.services, service_names = excluded.service_names, skills = "
            "excluded.skills, domains = excluded.domains, trust_models = excluded.trust_models, "
            "search_text = excluded.search_text, status = excluded.status, checked_at = "
            "excluded.checked_at",
            params);
        !r) {
        return r;
    }
    // The names are the API's filter parameters (api/rest_agents.cpp list_agents).
    const std::array<NamedList, 4> lists{{{"service", &p.service_names},
                                          {"skill", &p.skills},
                                          {"domain", &p.domains},
                                          {"trust_model", &p.trust_models}}};
    return replace_terms(db, "agent_profile_terms", "agent_id", chain, registry, agent_id, lists);
}

index::DbResult<void> write_tool_profile(index::Database& db, uint64_t chain_id,
                                         const core::Address& registry, const core::Bytes& tool_id,
                                         const ToolProfile& p) {
    const auto chain = static_cast<int64_t>(chain_id);
    if (!p.has_document) {
        const std::array<DbValue, 6> params{chain,    blob(registry), tool_id,
                                            p.status, p.reason,       p.checked_at};
        return db.exec(
            "INSERT INTO tool_profiles (chain_id, registry, tool_id, name, description, version, "
            "tags, pricing_protocols, assets, access_kinds, search_text, status, reason, "
            "checked_at) VALUES ($1, $2, $3, '', '', '', ',', ',', ',', ',', '', $4, $5, $6) "
            "ON CONFLICT (chain_id, registry, tool_id) DO UPDATE SET status = excluded.status, "
            "reason = excluded.reason, checked_at = excluded.checked_at",
            params);
    }
    const std::string text = search_text({p.name, p.description, join(p.tags)});
    const std::array<DbValue, 14> params{chain,
                                         blob(registry),
                                         tool_id,
                                         p.name,
                                         p.description,
                                         p.version,
                                         wrap_list(p.tags),
                                         wrap_list(p.pricing_protocols),
                                         wrap_list(p.assets),
                                         wrap_list(p.access_kinds),
                                         text,
                                         p.status,
                                         p.reason,
                                         p.checked_at};
    if (auto r = db.exec(
            "INSERT INTO tool_profiles (chain_id, registry, tool_id, name, description, version, "
            "tags, pricing_protocols, assets, access_kinds, search_text, status, reason, "
            "checked_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON "
            "CONFLICT (chain_id, registry, tool_id) DO UPDATE SET name = excluded.name, "
            "description = excluded.description, version = excluded.version, tags = "
            "excluded.tags, pricing_protocols = excluded.pricing_protocols, assets = "
            "excluded.assets, access_kinds = excluded.access_kinds, search_text = "
            "excluded.search_text, status = excluded.status, reason = excluded.reason, "
            "checked_at = excluded.checked_at",
            params);
        !r) {
        return r;
    }
    // The names are the API's filter parameters (api/rest_catalog.cpp list_tools).
    const std::array<NamedList, 4> lists{{{"tag", &p.tags},
                                          {"pricing", &p.pricing_protocols},
                                          {"asset", &p.assets},
                                          {"access", &p.access_kinds}}};
    return replace_terms(db, "tool_profile_terms", "tool_id", chain, registry, tool_id, lists);
}

}  // namespace

index::DbResult<void> save_agent_profile(index::Database& db, uint64_t chain_id,
                                         const core::Address& registry, const core::Bytes& agent_id,
                                         const AgentProfile& p) {
    return in_transaction(db,
                          [&] { return write_agent_profile(db, chain_id, registry, agent_id, p); });
}

index::DbResult<void> save_agent_profile(index::Database& db, uint64_t chain_id,
                                         const core::Address& registry, const core::Bytes& agent_id,
                                         const AgentVerification& verification,
                                         int64_t checked_at) {
    return save_agent_profile(db, chain_id, registry, agent_id,
                              agent_profile(verification, checked_at));
}

index::DbResult<void> save_tool_profile(index::Database& db, uint64_t chain_id,
                                        const core::Address& registry, const core::Bytes& tool_id,
                                        const ToolProfile& p) {
    return in_transaction(db,
                          [&] { return write_tool_profile(db, chain_id, registry, tool_id, p); });
}

index::DbResult<void> save_profile(index::Database& db, uint64_t chain_id,
                                   const VerificationRecord& record) {
    if (record.subject.kind != SubjectKind::agent && record.subject.kind != SubjectKind::tool) {
        return {};
    }
    const Json report = Json::parse(record.report_json, nullptr, false);
    if (record.subject.kind == SubjectKind::agent) {
        AgentProfile p = agent_profile_from_report(report);
        p.status = std::string(to_string(record.status));
        p.checked_at = record.checked_at;
        return save_agent_profile(db, chain_id, record.subject.contract, record.subject.id, p);
    }
    ToolProfile p = tool_profile_from_report(report);
    p.status = std::string(to_string(record.status));
    p.reason = record.reason;
    p.checked_at = record.checked_at;
    return save_tool_profile(db, chain_id, record.subject.contract, record.subject.id, p);
}

namespace {

std::vector<std::string> unwrap(const DbValue& value) {
    std::vector<std::string> out;
    const auto* text = std::get_if<std::string>(&value);
    if (text == nullptr) return out;
    size_t start = 0;
    while (start < text->size()) {
        const size_t comma = text->find(',', start);
        const size_t end = comma == std::string::npos ? text->size() : comma;
        if (end > start) out.push_back(text->substr(start, end - start));
        start = end + 1;
    }
    return out;
}

std::string text_of(const DbValue& value) {
    const auto* text = std::get_if<std::string>(&value);
    return text == nullptr ? std::string{} : *text;
}

std::optional<bool> flag_of(const DbValue& value) {
    const auto* v = std::get_if<int64_t>(&value);
    if (v == nullptr) return std::nullopt;
    return *v != 0;
}

int64_t int_of(const DbValue& value) {
    const auto* v = std::get_if<int64_t>(&value);
    return v == nullptr ? 0 : *v;
}

}  // namespace

index::DbResult<std::optional<AgentProfile>> load_agent_profile(index::Database& db,
                                                                uint64_t chain_id,
                                                                const core::Address& registry,
                                                                const core::Bytes& agent_id) {
    const std::array<DbValue, 3> params{static_cast<int64_t>(chain_id), blob(registry), agent_id};
    auto rows = db.query(
        "SELECT name, description, image, active, x402_support, services, service_names, skills, "
        "domains, trust_models, status, checked_at FROM agent_profiles WHERE chain_id = $1 AND "
        "registry = $2 AND agent_id = $3",
        params);
    if (!rows) return std::unexpected(rows.error());
    if (rows->empty()) return std::optional<AgentProfile>{};
    const DbRow& r = rows->front();
    AgentProfile p;
    p.name = text_of(r[0]);
    p.description = text_of(r[1]);
    p.image = text_of(r[2]);
    p.active = flag_of(r[3]);
    p.x402_support = flag_of(r[4]);
    p.services_json = text_of(r[5]);
    p.service_names = unwrap(r[6]);
    p.skills = unwrap(r[7]);
    p.domains = unwrap(r[8]);
    p.trust_models = unwrap(r[9]);
    p.status = text_of(r[10]);
    p.checked_at = int_of(r[11]);
    p.has_document = true;
    return std::optional<AgentProfile>{std::move(p)};
}

index::DbResult<std::optional<ToolProfile>> load_tool_profile(index::Database& db,
                                                              uint64_t chain_id,
                                                              const core::Address& registry,
                                                              const core::Bytes& tool_id) {
    const std::array<DbValue, 3> params{static_cast<int64_t>(chain_id), blob(registry), tool_id};
    auto rows = db.query(
        "SELECT name, description, version, tags, pricing_protocols, assets, access_kinds, "
        "status, reason, checked_at FROM tool_profiles WHERE chain_id = $1 AND registry = $2 AND "
        "tool_id = $3",
        params);
    if (!rows) return std::unexpected(rows.error());
    if (rows->empty()) return std::optional<ToolProfile>{};
    const DbRow& r = rows->front();
    ToolProfile p;
    p.name = text_of(r[0]);
    p.description = text_of(r[1]);
    p.version = text_of(r[2]);
    p.tags = unwrap(r[3]);
    p.pricing_protocols = unwrap(r[4]);
    p.assets = unwrap(r[5]);
    p.access_kinds = unwrap(r[6]);
    p.status = text_of(r[7]);
    p.reason = text_of(r[8]);
    p.checked_at = int_of(r[9]);
    p.has_document = true;
    return std::optional<ToolProfile>{std::move(p)};
}

}  // namespace credence::verify
