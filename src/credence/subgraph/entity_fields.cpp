#include <credence/subgraph/entity_fields.hpp>

#include <algorithm>
#include <array>
#include <charconv>

#include <fmt/format.h>

#include <credence/subgraph/file_fields.hpp>

namespace credence::subgraph {
namespace {

using graphql::ByteString;
using graphql::Cell;
using graphql::ScalarList;
using K = graphql::ScalarKind;
using S = Snapshot;

Cell bytes_cell(std::span<const uint8_t> b) { return ByteString{{b.begin(), b.end()}}; }
Cell text_cell(const std::optional<std::string>& s) { return s ? Cell(*s) : Cell(); }
Cell flag_cell(const std::optional<bool>& b) { return b ? Cell(*b) : Cell(); }
Cell list_cell(const std::vector<std::string>& v) {
    ScalarList out;
    out.reserve(v.size());
    for (const auto& s : v) out.emplace_back(s);
    return out;
}

std::string agent_id_of(const S& s, uint32_t agent) {
    return s.chain_prefix + s.agents[agent].agent_id;
}
std::string feedback_id_of(const S& s, uint32_t f) {
    const FeedbackRecord& r = s.feedback[f];
    return fmt::format("{}:{}:{}", agent_id_of(s, r.agent), r.client.to_lower_hex(), r.feedback_index);
}
Cell agent_ref(const S& s, uint32_t agent) {
    return agent == kNone ? Cell() : Cell(agent_id_of(s, agent));
}

// Getters of one optional text or list member of a file record.
template <auto Member>
Cell rf_text(const S& s, uint32_t r) {
    return text_cell(s.registration_files[r].*Member);
}
template <auto Member>
Cell rf_list(const S& s, uint32_t r) {
    return list_cell(s.registration_files[r].*Member);
}
template <auto Member>
Cell ff_text(const S& s, uint32_t r) {
    return text_cell(s.feedback_files[r].*Member);
}
template <auto Member>
Cell ff_list(const S& s, uint32_t r) {
    return list_cell(s.feedback_files[r].*Member);
}

// ---- Agent ------------------------------------------------------------------------------------

const std::vector<FieldSpec>& agent_fields() {
    static const std::vector<FieldSpec> kFields{
        {"id", K::id, false, [](const S& s, uint32_t r) -> Cell { return agent_id_of(s, r); }},
        {"chainId", K::big_int, false,
         [](const S& s, uint32_t) -> Cell { return static_cast<int64_t>(s.chain_id); }},
        {"agentId", K::big_int, false,
         [](const S& s, uint32_t r) -> Cell { return s.agents[r].agent_id; }},
        {"agentURI", K::string, false,
         [](const S& s, uint32_t r) -> Cell { return text_cell(s.agents[r].agent_uri); }},
        {"agentURIType", K::string, false,
         [](const S& s, uint32_t r) -> Cell {
             const auto& uri = s.agents[r].agent_uri;
             return uri ? Cell(uri_type(*uri)) : Cell();
         }},
        {"owner", K::bytes, false,
         [](const S& s, uint32_t r) -> Cell { return bytes_cell(s.agents[r].owner.bytes); }},
        {"agentWallet", K::bytes, false,
         [](const S& s, uint32_t r) -> Cell {
             const auto& w = s.agents[r].wallet;
             return w ? bytes_cell(w->bytes) : Cell();
         }},
        {"operators", K::bytes, true,
         [](const S& s, uint32_t r) -> Cell {
             ScalarList out;
             for (const auto& a : s.agents[r].operators)
                 out.emplace_back(ByteString{{a.bytes.begin(), a.bytes.end()}});
             return out;
         }},
        {"createdAt", K::big_int, false,
         [](const S& s, uint32_t r) -> Cell { return s.agents[r].created_at; }},
        {"updatedAt", K::big_int, false,
         [](const S& s, uint32_t r) -> Cell { return s.agents[r].updated_at; }},
        {"registrationFile", K::id, false,
         [](const S& s, uint32_t r) -> Cell {
             const uint32_t f = s.agents[r].registration_file;
             return f == kNone ? Cell() : Cell(s.registration_files[f].id);
         },
         Entity::registration_file,
         [](const S& s, uint32_t r) { return s.agents[r].registration_file; }},
        {"totalFeedback", K::big_int, false,
         [](const S& s, uint32_t r) -> Cell { return s.agents[r].total_feedback; }},
        {"lastActivity", K::big_int, false,
         [](const S& s, uint32_t r) -> Cell { return s.agents[r].last_activity; }},
    };
    return kFields;
}

// ---- AgentRegistrationFile --------------------------------------------------------------------

const std::vector<FieldSpec>& registration_file_fields() {
    static const std::vector<FieldSpec> kFields{
        {"id", K::id, false,
         [](const S& s, uint32_t r) -> Cell { return s.registration_files[r].id; }},
        {"cid", K::string, false,
         [](const S& s, uint32_t r) -> Cell { return s.registration_files[r].cid; }},
        {"agentId", K::string, false,
         [](const S& s, uint32_t r) -> Cell {
             return agent_id_of(s, s.registration_files[r].agent);
         }},
        {"name", K::string, false, &rf_text<&RegistrationFileRecord::name>},
        {"description", K::string, false, &rf_text<&RegistrationFileRecord::description>},
        {"image", K::string, false, &rf_text<&RegistrationFileRecord::image>},
        {"active", K::boolean, false,
         [](const S& s, uint32_t r) -> Cell { return flag_cell(s.registration_files[r].active); }},
        {"x402Support", K::boolean, false,
         [](const S& s, uint32_t r) -> Cell {
             return flag_cell(s.registration_files[r].x402_support);
         }},
        {"supportedTrusts", K::string, true, &rf_list<&RegistrationFileRecord::supported_trusts>},
        {"endpointsRawJson", K::string, false, &rf_text<&RegistrationFileRecord::endpoints_raw_json>},
        {"mcpEndpoint", K::string, false, &rf_text<&RegistrationFileRecord::mcp_endpoint>},
        {"mcpVersion", K::string, false, &rf_text<&RegistrationFileRecord::mcp_version>},
        {"a2aEndpoint", K::string, false, &rf_text<&RegistrationFileRecord::a2a_endpoint>},
        {"a2aVersion", K::string, false, &rf_text<&RegistrationFileRecord::a2a_version>},
        {"webEndpoint", K::string, false, &rf_text<&RegistrationFileRecord::web_endpoint>},
        {"oasfEndpoint", K::string, false, &rf_text<&RegistrationFileRecord::oasf_endpoint>},
        {"oasfVersion", K::string, false, &rf_text<&RegistrationFileRecord::oasf_version>},
        {"oasfSkills", K::string, true, &rf_list<&RegistrationFileRecord::oasf_skills>},
        {"oasfDomains", K::string, true, &rf_list<&RegistrationFileRecord::oasf_domains>},
        {"hasOASF", K::boolean, false,
         [](const S& s, uint32_t r) -> Cell {
             const auto& f = s.registration_files[r];
             return !f.oasf_skills.empty() || !f.oasf_domains.empty();
         }},
        {"emailEndpoint", K::string, false, &rf_text<&RegistrationFileRecord::email_endpoint>},
        {"ens", K::string, false, &rf_text<&RegistrationFileRecord::ens>},
        {"did", K::string, false, &rf_text<&RegistrationFileRecord::did>},
        {"mcpTools", K::string, true, &rf_list<&RegistrationFileRecord::mcp_tools>},
        {"mcpPrompts", K::string, true, &rf_list<&RegistrationFileRecord::mcp_prompts>},
        {"mcpResources", K::string, true, &rf_list<&RegistrationFileRecord::mcp_resources>},
        {"a2aSkills", K::string, true, &rf_list<&RegistrationFileRecord::a2a_skills>},
        {"createdAt", K::big_int, false,
         [](const S& s, uint32_t r) -> Cell { return s.registration_files[r].created_at; }},
    };
    return kFields;
}

// ---- Feedback ---------------------------------------------------------------------------------

const std::vector<FieldSpec>& feedback_fields() {
    static const std::vector<FieldSpec> kFields{
        {"id", K::id, false, [](const S& s, uint32_t r) -> Cell { return feedback_id_of(s, r); }},
        {"agent", K::id, false,
         [](const S& s, uint32_t r) -> Cell { return agent_ref(s, s.feedback[r].agent); },
         Entity::agent, [](const S& s, uint32_t r) { return s.feedback[r].agent; }},
        {"clientAddress", K::bytes, false,
         [](const S& s, uint32_t r) -> Cell { return bytes_cell(s.feedback[r].client.bytes); }},
        {"feedbackIndex", K::big_int, false,
         [](const S& s, uint32_t r) -> Cell {
             return static_cast<int64_t>(s.feedback[r].feedback_index);
         }},
        {"value", K::big_decimal, false,
         [](const S& s, uint32_t r) -> Cell { return s.feedback[r].value; }},
        {"tag1", K::string, false, [](const S& s, uint32_t r) -> Cell { return s.feedback[r].tag1; }},
        {"tag2", K::string, false, [](const S& s, uint32_t r) -> Cell { return s.feedback[r].tag2; }},
        {"endpoint", K::string, false,
         [](const S& s, uint32_t r) -> Cell { return s.feedback[r].endpoint; }},
        {"feedbackURI", K::string, false,
         [](const S& s, uint32_t r) -> Cell { return s.feedback[r].feedback_uri; }},
        {"feedbackURIType", K::string, false,
         [](const S& s, uint32_t r) -> Cell {
             const std::string& uri = s.feedback[r].feedback_uri;
             return uri.empty() ? std::string("unknown") : uri_type(uri);
         }},
        {"feedbackHash", K::bytes, false,
         [](const S& s, uint32_t r) -> Cell { return bytes_cell(s.feedback[r].feedback_hash); }},
        {"isRevoked", K::boolean, false,
         [](const S& s, uint32_t r) -> Cell { return s.feedback[r].revoked; }},
        {"createdAt", K::big_int, false,
         [](const S& s, uint32_t r) -> Cell { return s.feedback[r].created_at; }},
        {"revokedAt", K::big_int, false,
         [](const S& s, uint32_t r) -> Cell {
             const auto& t = s.feedback[r].revoked_at;
             return t ? Cell(*t) : Cell();
         }},
        {"feedbackFile", K::id, false,
         [](const S& s, uint32_t r) -> Cell {
             const uint32_t f = s.feedback[r].file;
             return f == kNone ? Cell() : Cell(s.feedback_files[f].id);
         },
         Entity::feedback_file, [](const S& s, uint32_t r) { return s.feedback[r].file; }},
    };
    return kFields;
}

// ---- FeedbackFile -----------------------------------------------------------------------------

const std::vector<FieldSpec>& feedback_file_fields() {
    static const std::vector<FieldSpec> kFields{
        {"id", K::id, false, [](const S& s, uint32_t r) -> Cell { return s.feedback_files[r].id; }},
        {"cid", K::string, false,
         [](const S& s, uint32_t r) -> Cell { return s.feedback_files[r].cid; }},
        {"feedbackId", K::string, false,
         [](const S& s, uint32_t r) -> Cell {
             return feedback_id_of(s, s.feedback_files[r].feedback);
         }},
        {"agentRegistry", K::string, false, &ff_text<&FeedbackFileRecord::agent_registry>},
        {"agentId", K::big_int, false,
         [](const S& s, uint32_t r) -> Cell { return text_cell(s.feedback_files[r].agent_id); }},
        {"clientAddress", K::string, false, &ff_text<&FeedbackFileRecord::client_address>},
        {"createdAtIso", K::string, false, &ff_text<&FeedbackFileRecord::created_at_iso>},
        {"valueRaw", K::big_int, false,
         [](const S& s, uint32_t r) -> Cell { return text_cell(s.feedback_files[r].value_raw); }},
        {"valueDecimals", K::int_value, false,
         [](const S& s, uint32_t r) -> Cell {
             const auto& d = s.feedback_files[r].value_decimals;
             return d ? Cell(*d) : Cell();
         }},
        {"text", K::string, false, &ff_text<&FeedbackFileRecord::text>},
        {"mcpTool", K::string, false, &ff_text<&FeedbackFileRecord::mcp_tool>},
        {"mcpPrompt", K::string, false, &ff_text<&FeedbackFileRecord::mcp_prompt>},
        {"mcpResource", K::string, false, &ff_text<&FeedbackFileRecord::mcp_resource>},
        {"a2aSkills", K::string, true, &ff_list<&FeedbackFileRecord::a2a_skills>},
        {"a2aContextId", K::string, false, &ff_text<&FeedbackFileRecord::a2a_context_id>},
        {"a2aTaskId", K::string, false, &ff_text<&FeedbackFileRecord::a2a_task_id>},
        {"oasfSkills", K::string, true, &ff_list<&FeedbackFileRecord::oasf_skills>},
        {"oasfDomains", K::string, true, &ff_list<&FeedbackFileRecord::oasf_domains>},
        {"proofOfPaymentFromAddress", K::string, false, &ff_text<&FeedbackFileRecord::proof_from>},
        {"proofOfPaymentToAddress", K::string, false, &ff_text<&FeedbackFileRecord::proof_to>},
        {"proofOfPaymentChainId", K::string, false, &ff_text<&FeedbackFileRecord::proof_chain_id>},
        {"proofOfPaymentTxHash", K::string, false, &ff_text<&FeedbackFileRecord::proof_txn_hash>},
        {"tag1", K::string, false, &ff_text<&FeedbackFileRecord::tag1>},
        {"tag2", K::string, false, &ff_text<&FeedbackFileRecord::tag2>},
        {"createdAt", K::big_int, false,
         [](const S& s, uint32_t r) -> Cell { return s.feedback_files[r].created_at; }},
    };
    return kFields;
}

// ---- FeedbackResponse, Validation, AgentMetadata, Protocol ------------------------------------

const std::vector<FieldSpec>& response_fields() {
    static const std::vector<FieldSpec> kFields{
        {"id", K::id, false,
         [](const S& s, uint32_t r) -> Cell {
             const ResponseRecord& x = s.responses[r];
             return fmt::format("{}:{}:{}", feedback_id_of(s, x.feedback), core::to_hex(x.txn_hash),
                                x.log_index);
         }},
        {"feedback", K::id, false,
         [](const S& s, uint32_t r) -> Cell { return feedback_id_of(s, s.responses[r].feedback); },
         Entity::feedback, [](const S& s, uint32_t r) { return s.responses[r].feedback; }},
        {"responder", K::bytes, false,
         [](const S& s, uint32_t r) -> Cell { return bytes_cell(s.responses[r].responder.bytes); }},
        {"responseUri", K::string, false,
         [](const S& s, uint32_t r) -> Cell { return s.responses[r].response_uri; }},
        {"responseHash", K::bytes, false,
         [](const S& s, uint32_t r) -> Cell { return bytes_cell(s.responses[r].response_hash); }},
        {"createdAt", K::big_int, false,
         [](const S& s, uint32_t r) -> Cell { return s.responses[r].created_at; }},
    };
    return kFields;
}

const std::vector<FieldSpec>& validation_fields() {
    static const std::vector<FieldSpec> kFields{
        {"id", K::id, false,
         [](const S& s, uint32_t r) -> Cell { return core::to_hex(s.validations[r].request_hash); }},
        {"agent", K::id, false,
         [](const S& s, uint32_t r) -> Cell { return agent_ref(s, s.validations[r].agent); },
         Entity::agent, [](const S& s, uint32_t r) { return s.validations[r].agent; }},
        {"validatorAddress", K::bytes, false,
         [](const S& s, uint32_t r) -> Cell { return bytes_cell(s.validations[r].validator.bytes); }},
        {"requestUri", K::string, false,
         [](const S& s, uint32_t r) -> Cell { return s.validations[r].request_uri; }},
        {"requestHash", K::bytes, false,
         [](const S& s, uint32_t r) -> Cell { return bytes_cell(s.validations[r].request_hash); }},
        {"response", K::int_value, false,
         [](const S& s, uint32_t r) -> Cell { return s.validations[r].response; }},
        {"responseUri", K::string, false,
         [](const S& s, uint32_t r) -> Cell { return s.validations[r].response_uri; }},
        {"responseHash", K::bytes, false,
         [](const S& s, uint32_t r) -> Cell { return bytes_cell(s.validations[r].response_hash); }},
        {"tag", K::string, false, [](const S& s, uint32_t r) -> Cell { return s.validations[r].tag; }},
        {"status", K::string, false,
         [](const S& s, uint32_t r) -> Cell {
             return std::string(s.validations[r].completed ? "COMPLETED" : "PENDING");
         }},
        {"createdAt", K::big_int, false,
         [](const S& s, uint32_t r) -> Cell { return s.validations[r].created_at; }},
        {"updatedAt", K::big_int, false,
         [](const S& s, uint32_t r) -> Cell { return s.validations[r].updated_at; }},
    };
    return kFields;
}

const std::vector<FieldSpec>& metadata_fields() {
    static const std::vector<FieldSpec> kFields{
        {"id", K::id, false,
         [](const S& s, uint32_t r) -> Cell {
             return agent_id_of(s, s.metadata[r].agent) + ":" + s.metadata[r].key;
         }},
        {"agent", K::id, false,
         [](const S& s, uint32_t r) -> Cell { return agent_ref(s, s.metadata[r].agent); },
         Entity::agent, [](const S& s, uint32_t r) { return s.metadata[r].agent; }},
        {"key", K::string, false, [](const S& s, uint32_t r) -> Cell { return s.metadata[r].key; }},
        {"value", K::bytes, false,
         [](const S& s, uint32_t r) -> Cell { return bytes_cell(s.metadata[r].value); }},
        {"updatedAt", K::big_int, false,
         [](const S& s, uint32_t r) -> Cell { return s.metadata[r].updated_at; }},
    };
    return kFields;
}

const std::vector<FieldSpec>& protocol_fields() {
    static const std::vector<FieldSpec> kFields{
        {"id", K::id, false,
         [](const S& s, uint32_t) -> Cell { return std::to_string(s.chain_id); }},
        {"chainId", K::big_int, false,
         [](const S& s, uint32_t) -> Cell { return static_cast<int64_t>(s.chain_id); }},
        {"name", K::string, false, [](const S& s, uint32_t r) -> Cell { return s.protocols[r].name; }},
        {"identityRegistry", K::bytes, false,
         [](const S& s, uint32_t r) -> Cell {
             return bytes_cell(s.protocols[r].identity_registry.bytes);
         }},
        {"reputationRegistry", K::bytes, false,
         [](const S& s, uint32_t r) -> Cell {
             return bytes_cell(s.protocols[r].reputation_registry.bytes);
         }},
        {"validationRegistry", K::bytes, false,
         [](const S& s, uint32_t r) -> Cell {
             return bytes_cell(s.protocols[r].validation_registry.bytes);
         }},
        {"createdAt", K::big_int, false,
         [](const S& s, uint32_t r) -> Cell { return s.protocols[r].created_at; }},
        {"updatedAt", K::big_int, false,
         [](const S& s, uint32_t r) -> Cell { return s.protocols[r].updated_at; }},
    };
    return kFields;
}

constexpr std::array<std::string_view, 8> kEntityNames = {
    "Agent",    "AgentRegistrationFile", "Feedback",      "FeedbackFile",
    "FeedbackResponse", "Validation",   "AgentMetadata", "Protocol"};

const std::array<Relation, 4> kRelations{{
    {Entity::agent, Entity::feedback, "agent",
     [](const S& s, uint32_t p) -> const std::vector<uint32_t>& { return s.feedback_by_agent[p]; }},
    {Entity::agent, Entity::validation, "agent",
     [](const S& s, uint32_t p) -> const std::vector<uint32_t>& {
         return s.validations_by_agent[p];
     }},
    {Entity::agent, Entity::metadata, "agent",
     [](const S& s, uint32_t p) -> const std::vector<uint32_t>& { return s.metadata_by_agent[p]; }},
    {Entity::feedback, Entity::response, "feedback",
     [](const S& s, uint32_t p) -> const std::vector<uint32_t>& {
         return s.responses_by_feedback[p];
     }},
}};

// "chainId:agentId" -> the agent's row.
uint32_t agent_row(const S& s, std::string_view id) {
    if (!id.starts_with(s.chain_prefix)) return kNone;
    auto it = s.agent_by_id.find(std::string(id.substr(s.chain_prefix.size())));
    return it == s.agent_by_id.end() ? kNone : it->second;
}

// "chainId:agentId:0xclient:index" -> the feedback's row.
uint32_t feedback_row(const S& s, std::string_view id) {
    const auto index_at = id.rfind(':');
    if (index_at == std::string_view::npos) return kNone;
    const auto client_at = id.rfind(':', index_at - 1);
    if (client_at == std::string_view::npos || client_at == 0) return kNone;
    const uint32_t agent = agent_row(s, id.substr(0, client_at));
    uint64_t index = 0;
    const auto digits = id.substr(index_at + 1);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (agent == kNone || ec != std::errc{} || end != digits.data() + digits.size()) return kNone;
    const auto client = id.substr(client_at + 1, index_at - client_at - 1);
    for (uint32_t f : s.feedback_by_agent[agent]) {
        const FeedbackRecord& r = s.feedback[f];
        if (r.feedback_index == index && r.client.to_lower_hex() == client) return f;
    }
    return kNone;
}

}  // namespace

std::optional<Entity> entity_named(std::string_view type_name) {
    for (size_t i = 0; i < kEntityNames.size(); ++i)
        if (kEntityNames[i] == type_name) return static_cast<Entity>(i);
    return std::nullopt;
}

std::string_view entity_name(Entity e) { return kEntityNames[static_cast<size_t>(e)]; }

size_t row_count(const Snapshot& s, Entity e) {
    switch (e) {
        case Entity::agent: return s.agents.size();
        case Entity::registration_file: return s.registration_files.size();
        case Entity::feedback: return s.feedback.size();
        case Entity::feedback_file: return s.feedback_files.size();
        case Entity::response: return s.responses.size();
        case Entity::validation: return s.validations.size();
        case Entity::metadata: return s.metadata.size();
        case Entity::protocol: return s.protocols.size();
    }
    return 0;
}

std::span<const FieldSpec> entity_fields(Entity e) {
    switch (e) {
        case Entity::agent: return agent_fields();
        case Entity::registration_file: return registration_file_fields();
        case Entity::feedback: return feedback_fields();
        case Entity::feedback_file: return feedback_file_fields();
        case Entity::response: return response_fields();
        case Entity::validation: return validation_fields();
        case Entity::metadata: return metadata_fields();
        case Entity::protocol: return protocol_fields();
    }
    return {};
}

const FieldSpec* entity_field(Entity e, std::string_view name) {
    for (const FieldSpec& f : entity_fields(e))
        if (f.name == name) return &f;
    return nullptr;
}

const Relation* relation_of(Entity child, std::string_view back_field) {
    for (const Relation& r : kRelations)
        if (r.child == child && r.back_field == back_field) return &r;
    return nullptr;
}

uint32_t row_by_id(const Snapshot& s, Entity e, std::string_view id) {
    switch (e) {
        case Entity::agent: return agent_row(s, id);
        case Entity::registration_file: {
            auto it = s.registration_file_by_id.find(std::string(id));
            return it == s.registration_file_by_id.end() ? kNone : it->second;
        }
        case Entity::feedback: return feedback_row(s, id);
        case Entity::feedback_file: {
            auto it = s.feedback_file_by_id.find(std::string(id));
            return it == s.feedback_file_by_id.end() ? kNone : it->second;
        }
        case Entity::response: {
            // "<feedbackId>:<txHash>:<logIndex>"
            const auto log_at = id.rfind(':');
            if (log_at == std::string_view::npos || log_at == 0) return kNone;
            const auto txn_at = id.rfind(':', log_at - 1);
            if (txn_at == std::string_view::npos) return kNone;
            const uint32_t f = feedback_row(s, id.substr(0, txn_at));
            if (f == kNone) return kNone;
            for (uint32_t r : s.responses_by_feedback[f]) {
                const ResponseRecord& x = s.responses[r];
                if (fmt::format("{}:{}", core::to_hex(x.txn_hash), x.log_index) ==
                    id.substr(txn_at + 1))
                    return r;
            }
            return kNone;
        }
        case Entity::validation: {
            if (id.size() != 66 || !id.starts_with("0x")) return kNone;
            auto bytes = core::from_hex(id);
            if (!bytes || bytes->size() != 32) return kNone;
            core::Hash32 h{};
            std::copy(bytes->begin(), bytes->end(), h.begin());
            auto it = s.validation_by_hash.find(h);
            return it == s.validation_by_hash.end() ? kNone : it->second;
        }
        case Entity::metadata: {
            // "<chainId>:<agentId>:<key>" (the key may hold ':')
            const auto key_at = id.find(':', s.chain_prefix.size());
            if (key_at == std::string_view::npos) return kNone;
            const uint32_t agent = agent_row(s, id.substr(0, key_at));
            if (agent == kNone) return kNone;
            for (uint32_t m : s.metadata_by_agent[agent])
                if (s.metadata[m].key == id.substr(key_at + 1)) return m;
            return kNone;
        }
        case Entity::protocol:
            return !s.protocols.empty() && id == std::to_string(s.chain_id) ? 0 : kNone;
    }
    return kNone;
}

}  // namespace credence::subgraph
