#include <credence/verify/rules/agent_card.hpp>

#include <credence/core/json.hpp>
#include <credence/core/registration_file.hpp>

namespace credence::verify {
namespace {

using core::JsonValue;

class CardReader {
public:
    explicit CardReader(AgentCard& card) : card_(card) {}

    void run(const JsonValue& doc) {
        // A2A AgentCard: name, description, url, version and skills are required members.
        card_.name = text(doc, "name", "", true);
        card_.description = text(doc, "description", "", true);
        card_.url = text(doc, "url", "", true);
        card_.version = text(doc, "version", "", true);
        card_.protocol_version = text(doc, "protocolVersion", "", false);
        skills(doc);
        registrations(doc);
        if (const JsonValue* t = doc.find("trustModels")) {
            card_.trust_models = strings(*t, "/trustModels");
        }
    }

private:
    void issue(std::string path, std::string message) {
        card_.issues.push_back({std::move(path), std::move(message)});
    }

    std::string text(const JsonValue& obj, std::string_view key, const std::string& base,
                     bool required) {
        const std::string path = base + "/" + core::json_pointer_token(key);
        const JsonValue* v = obj.find(key);
        if (v == nullptr) {
            if (required) issue(path, "A2A requires \"" + std::string(key) + "\"");
            return {};
        }
        if (!v->is_string()) {
            issue(path, "must be a string");
            return {};
        }
        return v->as_string();
    }

    std::vector<std::string> strings(const JsonValue& v, const std::string& path) {
        std::vector<std::string> out;
        if (!v.is_array()) {
            issue(path, "must be an array of strings");
            return out;
        }
        const auto& arr = v.as_array();
        for (size_t i = 0; i < arr.size(); ++i) {
            if (arr[i].is_string()) {
                out.push_back(arr[i].as_string());
            } else {
                issue(path + "/" + std::to_string(i), "must be a string");
            }
        }
        return out;
    }

    void skills(const JsonValue& doc) {
        const JsonValue* v = doc.find("skills");
        if (v == nullptr) {
            issue("/skills", "A2A requires \"skills\"");
            return;
        }
        if (!v->is_array()) {
            issue("/skills", "must be an array of AgentSkill objects");
            return;
        }
        const auto& arr = v->as_array();
        for (size_t i = 0; i < arr.size(); ++i) {
            const std::string base = "/skills/" + std::to_string(i);
            if (!arr[i].is_object()) {
                issue(base, "an AgentSkill must be an object");
                continue;
            }
            AgentSkill skill;
            // A2A AgentSkill: id, name, description and tags are required; a skill without an id
            // cannot be referred to (feedback files name skills by id), so it is not kept.
            skill.id = text(arr[i], "id", base, true);
            skill.name = text(arr[i], "name", base, true);
            skill.description = text(arr[i], "description", base, true);
            if (const JsonValue* t = arr[i].find("tags")) {
                skill.tags = strings(*t, base + "/tags");
            } else {
                issue(base + "/tags", "A2A requires \"tags\"");
            }
            if (const JsonValue* e = arr[i].find("examples")) {
                skill.examples = strings(*e, base + "/examples");
            }
            if (skill.id.empty()) {
                issue(base + "/id", "a skill without an id is skipped");
                continue;
            }
            card_.skills.push_back(std::move(skill));
        }
    }

    void registrations(const JsonValue& doc) {
        const JsonValue* v = doc.find("registrations");
        if (v == nullptr) return;  // first draft: SHOULD, not MUST
        if (!v->is_array()) {
            issue("/registrations", "must be an array");
            return;
        }
        const auto& arr = v->as_array();
        for (size_t i = 0; i < arr.size(); ++i) {
            const std::string base = "/registrations/" + std::to_string(i);
            const JsonValue& r = arr[i];
            if (!r.is_object()) {
                issue(base, "a registration must be an object");
                continue;
            }
            CardRegistration entry;
            const JsonValue* id = r.find("agentId");
            auto parsed_id = id == nullptr ? std::nullopt : core::json_uint256(*id);
            if (!parsed_id) {
                issue(base + "/agentId", "agentId must be a non-negative integer");
                continue;
            }
            entry.agent_id = *parsed_id;
            if (const JsonValue* a = r.find("agentAddress"); a != nullptr && a->is_string()) {
                // First draft: "The agentAddress field follows the CAIP-10 account identifier".
                if (auto acc = core::parse_account_id(a->as_string())) {
                    entry.agent_address = *acc;
                } else {
                    issue(base + "/agentAddress", "not a CAIP-10 account id");
                }
            }
            if (const JsonValue* g = r.find("agentRegistry"); g != nullptr && g->is_string()) {
                if (auto reg = core::parse_agent_registry(g->as_string())) {
                    entry.agent_registry = *reg;
                } else {
                    issue(base + "/agentRegistry", "not {namespace}:{chainId}:{identityRegistry}");
                }
            }
            entry.has_signature = r.find("signature") != nullptr;
            if (!entry.agent_address && !entry.agent_registry) {
                issue(base, "neither agentAddress nor agentRegistry is usable");
                continue;
            }
            card_.registrations.push_back(std::move(entry));
        }
    }

    AgentCard& card_;
};

}  // namespace

std::string_view to_string(AgentCardError e) noexcept {
    switch (e) {
        case AgentCardError::not_json:
            return "not_json";
        case AgentCardError::not_an_object:
            return "not_an_object";
    }
    return "unknown";
}

std::string_view to_string(CardBinding b) noexcept {
    switch (b) {
        case CardBinding::none:
            return "none";
        case CardBinding::card_domain:
            return "card_domain";
        case CardBinding::agent_registry:
            return "agent_registry";
        case CardBinding::agent_address:
            return "agent_address";
    }
    return "unknown";
}

core::Result<AgentCard, AgentCardError> parse_agent_card(core::ByteView body) {
    core::ParseLimits limits;
    limits.max_depth = kAgentCardMaxDepth;
    auto doc = core::parse_json(body, limits);
    if (!doc) {
        return core::fail(AgentCardError::not_json,
                          std::string(core::to_string(doc.error().code)) +
                              (doc.error().detail.empty() ? "" : ": " + doc.error().detail));
    }
    if (!doc->is_object()) return core::fail(AgentCardError::not_an_object);
    AgentCard card;
    CardReader(card).run(*doc);
    return card;
}

CardBinding card_entry_binding(const AgentCard& card, uint64_t chain_id,
                               const core::EvmAddress& identity_registry,
                               const core::Uint256& agent_id, const core::Address& owner,
                               const std::optional<core::Address>& wallet) {
    const core::AgentRegistry ours{chain_id, identity_registry};
    CardBinding best = CardBinding::none;
    for (const auto& r : card.registrations) {
        if (r.agent_id != agent_id) continue;
        if (r.agent_registry && *r.agent_registry == ours) return CardBinding::agent_registry;
        if (!r.agent_address) continue;
        // First draft §Agent Card Structure: agentAddress is "{namespace}:{reference}:{address}"
        // of the agent's address on the registry's chain.
        const auto cid = core::eip155_chain_id(r.agent_address->chain);
        const auto addr = core::eip155_address(*r.agent_address);
        if (!cid || !addr || *cid != chain_id) continue;
        if (*addr == owner.bytes || (wallet && *addr == wallet->bytes)) {
            best = CardBinding::agent_address;
        }
    }
    return best;
}

}  // namespace credence::verify
