#include <credence/verify/verifiers/draft_agent_verifier.hpp>

#include <map>
#include <utility>

#include <credence/chain/bindings/draft_identity_registry.hpp>
#include <credence/core/caip.hpp>

namespace credence::verify {
namespace {

using Json = nlohmann::ordered_json;

Json draft_fetch_error_json(const std::optional<FetchError>& e) {
    return e ? Json(std::string(to_string(*e))) : Json(nullptr);
}

DraftAgentReason draft_reason_of(DraftCardMatch m) noexcept {
    switch (m) {
        case DraftCardMatch::matches:
            return DraftAgentReason::none;
        case DraftCardMatch::no_registrations:
            return DraftAgentReason::no_registrations;
        case DraftCardMatch::wrong_address:
            return DraftAgentReason::wrong_address;
        case DraftCardMatch::wrong_agent_id:
            return DraftAgentReason::wrong_agent_id;
        case DraftCardMatch::wrong_chain:
            return DraftAgentReason::wrong_chain;
        case DraftCardMatch::no_matching_registration:
            return DraftAgentReason::no_matching_registration;
    }
    return DraftAgentReason::no_matching_registration;
}

std::string draft_match_detail(DraftCardMatch m, const DraftOnChainAgent& a) {
    const std::string who = "agentId " + a.agent_id.to_dec() +
                            " with agentAddress eip155:" + std::to_string(a.chain_id) + ":" +
                            a.agent_address.to_checksum_hex();
    switch (m) {
        case DraftCardMatch::matches:
            return {};
        case DraftCardMatch::no_registrations:
            return "the card lists no complete registrations entry";
        case DraftCardMatch::wrong_address:
            return "the card's entry for agentId " + a.agent_id.to_dec() +
                   " on this chain names another agentAddress";
        case DraftCardMatch::wrong_agent_id:
            return "the card names this agentAddress with another agentId (another agent)";
        case DraftCardMatch::wrong_chain:
            return "the card names agentId " + a.agent_id.to_dec() +
                   " and this agentAddress on another chain only";
        case DraftCardMatch::no_matching_registration:
            return "no registrations entry names " + who;
    }
    return {};
}

/// Step 5 (see the header): every card's FeedbackDataURI, each distinct URI fetched once.
void check_feedback_data(std::vector<DraftAgentVerification>& out, Fetcher& fetcher) {
    std::vector<std::string> uris;
    std::map<std::string, size_t> uri_index;
    for (auto& v : out) {
        if (!v.card || !v.card->feedback_data_uri) continue;
        const std::string& uri = *v.card->feedback_data_uri;
        v.feedback_data = DraftFeedbackDataCheck{uri, false, std::nullopt, {}, std::nullopt, {}};
        if (uri_index.emplace(uri, uris.size()).second) uris.push_back(uri);
    }
    if (uris.empty()) return;
    auto results = fetcher.fetch_all(uris, feedback_policy());
    while (results.size() < uris.size()) {
        results.emplace_back(core::fail(FetchError::transport, "no result from fetch_all"));
    }
    for (auto& v : out) {
        if (!v.feedback_data) continue;
        DraftFeedbackDataCheck& f = *v.feedback_data;
        const auto& r = results[uri_index.at(f.uri)];
        if (!r) {
            f.fetch_error = r.error().code;
            f.detail = std::string(to_string(r.error().code)) +
                       (r.error().detail.empty() ? "" : ": " + r.error().detail);
            continue;
        }
        f.fetched = true;
        auto data = parse_draft_feedback_data(r->body);
        if (!data) {
            f.detail = "the feedback file is not JSON: " + data.error().detail;
            continue;
        }
        f.data = std::move(*data);
        if (v.agent.feedback_auth_ids) {
            f.authorized =
                match_authorizations(*f.data, v.agent.chain_id, *v.agent.feedback_auth_ids);
        }
    }
}

Json draft_feedback_data_json(const std::optional<DraftFeedbackDataCheck>& check) {
    if (!check) return nullptr;
    const DraftFeedbackDataCheck& f = *check;
    Json j{{"uri", f.uri},
           {"fetched", f.fetched},
           {"fetchError", draft_fetch_error_json(f.fetch_error)},
           {"detail", f.detail},
           {"parsed", f.data.has_value()},
           {"valid", f.data && f.data->ok()},
           {"authorized", f.authorized ? Json(*f.authorized) : Json(nullptr)}};
    Json entries = Json::array();
    Json issues = Json::array();
    if (f.data) {
        for (const auto& e : f.data->entries) {
            Json je{{"feedbackAuthId", core::to_string(e.feedback_auth_id)}};
            je["rating"] = e.rating ? Json(*e.rating) : Json(nullptr);
            je["agentSkillId"] = e.agent_skill_id ? Json(*e.agent_skill_id) : Json(nullptr);
            je["taskId"] = e.task_id ? Json(*e.task_id) : Json(nullptr);
            je["contextId"] = e.context_id ? Json(*e.context_id) : Json(nullptr);
            entries.push_back(std::move(je));
        }
        for (const auto& i : f.data->issues) {
            issues.push_back({{"severity", std::string(core::to_string(i.severity))},
                              {"reason", std::string(to_string(i.reason))},
                              {"path", i.path},
                              {"message", i.message}});
        }
    }
    j["entries"] = std::move(entries);
    j["issues"] = std::move(issues);
    return j;
}

}  // namespace

std::string_view to_string(DraftAgentReason r) noexcept {
    switch (r) {
        case DraftAgentReason::none:
            return "none";
        case DraftAgentReason::bad_domain:
            return "bad_domain";
        case DraftAgentReason::fetch_failed:
            return "fetch_failed";
        case DraftAgentReason::not_json:
            return "not_json";
        case DraftAgentReason::not_an_object:
            return "not_an_object";
        case DraftAgentReason::no_registrations:
            return "no_registrations";
        case DraftAgentReason::wrong_address:
            return "wrong_address";
        case DraftAgentReason::wrong_agent_id:
            return "wrong_agent_id";
        case DraftAgentReason::wrong_chain:
            return "wrong_chain";
        case DraftAgentReason::no_matching_registration:
            return "no_matching_registration";
    }
    return "unknown";
}

nlohmann::ordered_json DraftOnChainAgent::to_json() const {
    Json j;
    j["agentId"] = agent_id.to_dec();
    j["identityRegistry"] =
        "eip155:" + std::to_string(chain_id) + ":" + identity_registry.to_checksum_hex();
    j["revision"] = "draft";
    j["agentDomain"] = agent_domain;
    j["agentAddress"] = agent_address.to_checksum_hex();
    return j;
}

chain::CallResult<DraftOnChainAgent> read_draft_onchain_agent(chain::RpcClient& rpc,
                                                              uint64_t chain_id,
                                                              const core::Address& registry,
                                                              const core::Uint256& agent_id) {
    namespace did = chain::bindings::draft_identity_registry;
    chain::ContractCaller caller(rpc);
    auto info = did::call::get_agent(caller, registry, agent_id);
    if (!info) return std::unexpected(std::move(info.error()));
    DraftOnChainAgent a;
    a.chain_id = chain_id;
    a.identity_registry = registry;
    a.agent_id = info->agent_id;
    a.agent_domain = std::move(info->agent_domain);
    a.agent_address = info->agent_address;
    return a;
}

void judge_draft_card_bytes(core::ByteView body, DraftAgentVerification& out) {
    auto card = parse_draft_agent_card(body);
    if (!card) {
        out.status = AgentStatus::unverified;
        out.reason = card.error().code == AgentCardError::not_json
                         ? DraftAgentReason::not_json
                         : DraftAgentReason::not_an_object;
        out.detail = card.error().detail.empty()
                         ? "the Agent Card is not a JSON object"
                         : "the Agent Card is not JSON: " + card.error().detail;
        return;
    }
    const DraftOnChainAgent& a = out.agent;
    const DraftCardBinding b =
        match_draft_card(*card, a.chain_id, a.agent_id, a.agent_address.bytes);
    out.card = std::move(*card);
    // ERC-8004 first draft §Feedback Data Structure: each feedback-providing Client Agent's card
    // MUST include a FeedbackDataURI. A rule broken, not another identity: the verdict stays.
    if (a.feedback_client() && !out.card->feedback_data_uri) {
        out.card->issues.push_back({DraftCardReason::no_feedback_data_uri,
                                    core::IssueSeverity::error, "/FeedbackDataURI",
                                    "the agent gave feedback (AuthFeedback names it as the client) "
                                    "but its card has no FeedbackDataURI"});
    }
    out.registration_index = b.index;
    out.reason = draft_reason_of(b.match);
    out.status =
        b.match == DraftCardMatch::matches ? AgentStatus::verified : AgentStatus::unverified;
    out.detail = draft_match_detail(b.match, a);
}

std::vector<DraftAgentVerification> verify_draft_agents(
    const std::vector<DraftOnChainAgent>& agents, Fetcher& fetcher, const FetchPolicy& policy) {
    std::vector<DraftAgentVerification> out(agents.size());
    std::vector<std::string> urls;
    std::map<std::string, size_t> url_index;
    std::vector<std::optional<size_t>> fetch_of(agents.size());
    for (size_t i = 0; i < agents.size(); ++i) {
        out[i].agent = agents[i];
        auto url = draft_agent_card_url(agents[i].agent_domain);
        if (!url) {
            out[i].status = AgentStatus::unverified;
            out[i].reason = DraftAgentReason::bad_domain;
            out[i].detail = "AgentDomain \"" + agents[i].agent_domain +
                            "\" is not a DNS name: " + std::string(to_string(url.error().code));
            continue;
        }
        out[i].url = *url;
        const auto [it, added] = url_index.emplace(*url, urls.size());
        if (added) urls.push_back(*url);
        fetch_of[i] = it->second;
    }
    auto results = urls.empty() ? std::vector<core::Result<FetchResponse, FetchError>>{}
                                : fetcher.fetch_all(urls, policy);
    // A Fetcher that answers short is a bug in it; never index past its answer.
    while (results.size() < urls.size()) {
        results.emplace_back(core::fail(FetchError::transport, "no result from fetch_all"));
    }
    for (size_t i = 0; i < agents.size(); ++i) {
        const std::optional<size_t> at = fetch_of[i];
        if (!at.has_value()) continue;
        const auto& r = results[at.value()];
        DraftAgentVerification& v = out[i];
        if (!r) {
            v.status = AgentStatus::unreachable;
            v.reason = DraftAgentReason::fetch_failed;
            v.fetch_error = r.error().code;
            v.detail = std::string(to_string(r.error().code)) +
                       (r.error().detail.empty() ? "" : ": " + r.error().detail);
            continue;
        }
        v.fetched = true;
        v.final_url = r->final_url;
        v.bytes = r->body.size();
        judge_draft_card_bytes(r->body, v);
    }
    check_feedback_data(out, fetcher);
    return out;
}

DraftAgentVerification verify_draft_agent(const DraftOnChainAgent& agent, Fetcher& fetcher,
                                          const FetchPolicy& policy) {
    auto all = verify_draft_agents({agent}, fetcher, policy);
    return std::move(all.front());
}

std::vector<std::string> DraftAgentVerification::verified_domains() const {
    if (status != AgentStatus::verified || url.empty()) return {};
    // The host of the card URL: the AgentDomain, lowercased.
    auto host = endpoint_domain(url);
    return host ? std::vector<std::string>{*host} : std::vector<std::string>{};
}

nlohmann::ordered_json DraftAgentVerification::to_json() const {
    Json j = agent.to_json();
    j["status"] = std::string(to_string(status));
    j["reason"] = std::string(to_string(reason));
    j["detail"] = detail;
    Json jc;
    jc["url"] = url;
    jc["fetched"] = fetched;
    jc["fetchError"] = draft_fetch_error_json(fetch_error);
    jc["finalUrl"] = final_url;
    jc["bytes"] = bytes;
    jc["parsed"] = card.has_value();
    jc["valid"] = card && card->ok();
    Json issues = Json::array();
    Json regs = Json::array();
    if (card) {
        jc["name"] = card->name;
        for (const auto& r : card->registrations) {
            Json e{{"agentId", r.agent_id.to_dec()},
                   {"agentAddress", core::to_string(r.agent_address)}};
            e["signature"] = r.signature ? Json(*r.signature) : Json(nullptr);
            regs.push_back(std::move(e));
        }
        jc["trustModels"] = card->trust_models;
        for (const auto& i : card->issues) {
            issues.push_back({{"severity", std::string(core::to_string(i.severity))},
                              {"reason", std::string(to_string(i.reason))},
                              {"path", i.path},
                              {"message", i.message}});
        }
    }
    jc["registrations"] = std::move(regs);
    jc["issues"] = std::move(issues);
    j["agentCard"] = std::move(jc);
    Json match{{"matches", registration_index.has_value()}};
    match["index"] = registration_index ? Json(*registration_index) : Json(nullptr);
    // ERC-8004 first draft §Agent Card Structure gives the signature no message to check.
    match["signatureChecked"] = false;
    j["registration"] = std::move(match);
    j["verifiedDomains"] = verified_domains();
    j["feedbackData"] = draft_feedback_data_json(feedback_data);
    return j;
}

}  // namespace credence::verify
