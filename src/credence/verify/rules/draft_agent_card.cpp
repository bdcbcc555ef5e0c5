#include <credence/verify/rules/draft_agent_card.hpp>

#include <algorithm>
#include <array>

#include <credence/core/json.hpp>

namespace credence::verify {
namespace {

using core::IssueSeverity;
using core::JsonValue;

/// ERC-8004 first draft §Agent Card Structure: `"trustModels": ["feedback",
/// "inference-validation", "tee-attestation"]`.
constexpr std::array<std::string_view, 3> kDraftTrustModels{"feedback", "inference-validation",
                                                            "tee-attestation"};

class DraftCardReader {
public:
    explicit DraftCardReader(DraftAgentCard& card) : card_(card) {}

    void run(const JsonValue& doc) {
        if (const JsonValue* n = doc.find("name"); n != nullptr && n->is_string()) {
            card_.name = n->as_string();
        }
        registrations(doc);
        trust_models(doc);
        if (const JsonValue* f = doc.find("FeedbackDataURI"); f != nullptr) {
            if (f->is_string()) {
                card_.feedback_data_uri = f->as_string();
            } else {
                error(DraftCardReason::wrong_json_type, "/FeedbackDataURI",
                      "FeedbackDataURI must be a string (a URL)");
            }
        }
    }

private:
    void add(DraftCardReason reason, IssueSeverity severity, std::string path,
             std::string message) {
        card_.issues.push_back({reason, severity, std::move(path), std::move(message)});
    }
    void error(DraftCardReason reason, std::string path, std::string message) {
        add(reason, IssueSeverity::error, std::move(path), std::move(message));
    }
    void warning(DraftCardReason reason, std::string path, std::string message) {
        add(reason, IssueSeverity::warning, std::move(path), std::move(message));
    }

    void registrations(const JsonValue& doc) {
        const JsonValue* v = doc.find("registrations");
        if (v == nullptr) {
            // ERC-8004 first draft §Agent Card Structure: registrations is a SHOULD.
            warning(DraftCardReason::no_registrations, "/registrations",
                    "the first draft says the card SHOULD include a registrations array");
            return;
        }
        if (!v->is_array()) {
            error(DraftCardReason::wrong_json_type, "/registrations", "must be an array");
            return;
        }
        const auto& arr = v->as_array();
        for (size_t i = 0; i < arr.size(); ++i)
            entry(arr[i], "/registrations/" + std::to_string(i));
        if (card_.registrations.empty()) {
            warning(DraftCardReason::no_registrations, "/registrations",
                    "no complete registration entry");
        }
    }

    void entry(const JsonValue& r, const std::string& base) {
        if (!r.is_object()) {
            error(DraftCardReason::not_an_object, base, "a registration must be an object");
            return;
        }
        DraftCardRegistration out;
        bool complete = true;
        // ERC-8004 first draft §Agent Card Structure: { "agentId": 12345, ... }, the registry's
        // AgentID as a JSON number.
        if (const JsonValue* id = r.find("agentId"); id == nullptr) {
            complete = false;
            error(DraftCardReason::missing_field, base + "/agentId", "\"agentId\" is missing");
        } else if (auto parsed = core::json_uint256(*id)) {
            out.agent_id = *parsed;
        } else {
            complete = false;
            error(DraftCardReason::bad_agent_id, base + "/agentId",
                  "agentId must be a non-negative integer number");
        }
        // §Agent Card Structure: agentAddress is a CAIP-10 account id.
        if (const JsonValue* a = r.find("agentAddress"); a == nullptr) {
            complete = false;
            error(DraftCardReason::missing_field, base + "/agentAddress",
                  "\"agentAddress\" is missing");
        } else if (!a->is_string()) {
            complete = false;
            error(DraftCardReason::wrong_json_type, base + "/agentAddress",
                  "agentAddress must be a string");
        } else if (auto acc = core::parse_account_id(a->as_string())) {
            out.agent_address = *acc;
        } else {
            complete = false;
            error(DraftCardReason::bad_agent_address, base + "/agentAddress",
                  "not a CAIP-10 account id {namespace}:{reference}:{address}: " +
                      std::string(core::to_string(acc.error().code)));
        }
        if (const JsonValue* s = r.find("signature"); s != nullptr) {
            if (!s->is_string()) {
                error(DraftCardReason::wrong_json_type, base + "/signature",
                      "signature must be a string");
            } else {
                out.signature = s->as_string();
                warning(DraftCardReason::signature_unspecified, base + "/signature",
                        "not checked: the first draft does not define the signed message or its "
                        "encoding");
            }
        }
        if (!complete) return;
        const auto same = [&](const DraftCardRegistration& e) {
            return e.agent_id == out.agent_id && e.agent_address == out.agent_address;
        };
        if (std::ranges::any_of(card_.registrations, same)) {
            warning(DraftCardReason::duplicate_entry, base, "the same registration twice");
            return;
        }
        card_.registrations.push_back(std::move(out));
    }

    void trust_models(const JsonValue& doc) {
        const JsonValue* v = doc.find("trustModels");
        if (v == nullptr) {
            // §Agent Card Structure: listing the trust models is a SHOULD.
            warning(DraftCardReason::no_trust_models, "/trustModels",
                    "the first draft says the card SHOULD list its trustModels");
            return;
        }
        if (!v->is_array()) {
            error(DraftCardReason::wrong_json_type, "/trustModels", "must be an array of strings");
            return;
        }
        const auto& arr = v->as_array();
        for (size_t i = 0; i < arr.size(); ++i) {
            const std::string path = "/trustModels/" + std::to_string(i);
            if (!arr[i].is_string()) {
                error(DraftCardReason::wrong_json_type, path, "a trust model must be a string");
                continue;
            }
            const std::string& model = arr[i].as_string();
            if (std::ranges::find(card_.trust_models, model) != card_.trust_models.end()) {
                warning(DraftCardReason::duplicate_entry, path, "\"" + model + "\" twice");
                continue;
            }
            if (std::ranges::find(kDraftTrustModels, model) == kDraftTrustModels.end()) {
                warning(DraftCardReason::unknown_trust_model, path,
                        "not one of feedback, inference-validation, tee-attestation");
            }
            card_.trust_models.push_back(model);
        }
    }

    DraftAgentCard& card_;
};

}  // namespace

std::string_view to_string(DraftCardReason r) noexcept {
    switch (r) {
        case DraftCardReason::not_an_object:
            return "not_an_object";
        case DraftCardReason::wrong_json_type:
            return "wrong_json_type";
        case DraftCardReason::missing_field:
            return "missing_field";
        case DraftCardReason::bad_agent_id:
            return "bad_agent_id";
        case DraftCardReason::bad_agent_address:
            return "bad_agent_address";
        case DraftCardReason::no_registrations:
            return "no_registrations";
        case DraftCardReason::no_trust_models:
            return "no_trust_models";
        case DraftCardReason::unknown_trust_model:
            return "unknown_trust_model";
        case DraftCardReason::duplicate_entry:
            return "duplicate_entry";
        case DraftCardReason::signature_unspecified:
            return "signature_unspecified";
        case DraftCardReason::no_feedback_data_uri:
            return "no_feedback_data_uri";
    }
    return "unknown";
}

std::string_view to_string(DraftCardMatch m) noexcept {
    switch (m) {
        case DraftCardMatch::matches:
            return "matches";
        case DraftCardMatch::no_registrations:
            return "no_registrations";
        case DraftCardMatch::wrong_address:
            return "wrong_address";
        case DraftCardMatch::wrong_agent_id:
            return "wrong_agent_id";
        case DraftCardMatch::wrong_chain:
            return "wrong_chain";
        case DraftCardMatch::no_matching_registration:
            return "no_matching_registration";
    }
    return "unknown";
}

bool DraftAgentCard::ok() const noexcept { return error_count() == 0; }

size_t DraftAgentCard::error_count() const noexcept {
    return static_cast<size_t>(std::ranges::count_if(
        issues, [](const DraftCardIssue& i) { return i.severity == IssueSeverity::error; }));
}

core::Result<DraftAgentCard, AgentCardError> parse_draft_agent_card(core::ByteView body) {
    core::ParseLimits limits;
    limits.max_depth = kAgentCardMaxDepth;
    auto doc = core::parse_json(body, limits);
    if (!doc) {
        return core::fail(AgentCardError::not_json,
                          std::string(core::to_string(doc.error().code)) +
                              (doc.error().detail.empty() ? "" : ": " + doc.error().detail));
    }
    if (!doc->is_object()) return core::fail(AgentCardError::not_an_object);
    DraftAgentCard card;
    DraftCardReader(card).run(*doc);
    return card;
}

DraftCardBinding match_draft_card(const DraftAgentCard& card, uint64_t chain_id,
                                  const core::Uint256& agent_id,
                                  const core::EvmAddress& agent_address) {
    if (card.registrations.empty()) return {DraftCardMatch::no_registrations, std::nullopt};
    bool same_id = false;
    bool same_address = false;
    bool other_chain = false;
    for (size_t i = 0; i < card.registrations.size(); ++i) {
        const DraftCardRegistration& r = card.registrations[i];
        // §Agent Card Structure: agentAddress is "{namespace}:{reference}:{address}"; the
        // registries are EVM contracts, so only eip155 entries can name them.
        const auto cid = core::eip155_chain_id(r.agent_address.chain);
        const auto addr = core::eip155_address(r.agent_address);
        if (!cid || !addr) continue;
        const bool id_ok = r.agent_id == agent_id;
        const bool address_ok = *addr == agent_address;
        if (*cid != chain_id) {
            other_chain = other_chain || (id_ok && address_ok);
            continue;
        }
        if (id_ok && address_ok) return {DraftCardMatch::matches, i};
        same_id = same_id || id_ok;
        same_address = same_address || address_ok;
    }
    if (same_id) return {DraftCardMatch::wrong_address, std::nullopt};
    if (same_address) return {DraftCardMatch::wrong_agent_id, std::nullopt};
    if (other_chain) return {DraftCardMatch::wrong_chain, std::nullopt};
    return {DraftCardMatch::no_matching_registration, std::nullopt};
}

core::Result<std::string, EndpointError> draft_agent_card_url(std::string_view agent_domain) {
    // The AgentDomain is a host name: anything a URL would read as more (a port, a path, a user)
    // makes the parsed host differ from the text.
    std::string domain(agent_domain);
    std::ranges::transform(domain, domain.begin(), [](char c) {
        return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    });
    if (!domain.empty() && domain.back() == '.') domain.pop_back();
    auto host = endpoint_domain("https://" + std::string(agent_domain) + "/");
    if (!host) return std::unexpected(host.error());
    if (*host != domain) return core::fail(EndpointError::bad_host, "not a bare domain name");
    return agent_card_url(*host);
}

}  // namespace credence::verify
