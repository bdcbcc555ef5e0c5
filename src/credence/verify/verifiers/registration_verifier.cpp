#include <credence/verify/verifiers/registration_verifier.hpp>

#include <algorithm>
#include <map>
#include <utility>

#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/score_identity_registry.hpp>
#include <credence/core/caip.hpp>
#include <credence/core/json.hpp>

namespace credence::verify {
namespace {

using Json = nlohmann::ordered_json;

constexpr size_t kNone = static_cast<size_t>(-1);

/// Distinct URLs, each fetched once per verify_agents call.
class UrlSet {
public:
    size_t add(const std::string& url) {
        auto [it, inserted] = index_.try_emplace(url, urls_.size());
        if (inserted) urls_.push_back(url);
        return it->second;
    }
    [[nodiscard]] std::vector<core::Result<FetchResponse, FetchError>> fetch(
        Fetcher& fetcher, const FetchPolicy& policy) const {
        if (urls_.empty()) return {};
        auto results = fetcher.fetch_all(urls_, policy);
        // A Fetcher that answers short is a bug in it; never index past its answer.
        while (results.size() < urls_.size()) {
            results.emplace_back(core::fail(FetchError::transport, "no result from fetch_all"));
        }
        return results;
    }

private:
    std::vector<std::string> urls_;
    std::map<std::string, size_t> index_;
};

AgentReason agent_reason(DomainFileError e) noexcept {
    switch (e) {
        case DomainFileError::not_json:
        case DomainFileError::not_an_object:
            return AgentReason::not_json;
        case DomainFileError::no_registrations:
            return AgentReason::no_registrations;
        case DomainFileError::wrong_agent_id:
            return AgentReason::wrong_agent_id;
        case DomainFileError::wrong_registry:
            return AgentReason::wrong_registry;
        case DomainFileError::no_matching_registration:
            return AgentReason::no_matching_registration;
    }
    return AgentReason::no_matching_registration;
}

DomainReason domain_reason(DomainFileError e) noexcept {
    switch (e) {
        case DomainFileError::not_json:
        case DomainFileError::not_an_object:
            return DomainReason::not_json;
        case DomainFileError::no_registrations:
            return DomainReason::no_registrations;
        case DomainFileError::wrong_agent_id:
            return DomainReason::wrong_agent_id;
        case DomainFileError::wrong_registry:
            return DomainReason::wrong_registry;
        case DomainFileError::no_matching_registration:
            return DomainReason::no_matching_registration;
    }
    return DomainReason::no_matching_registration;
}

std::string fetch_detail(const core::Error<FetchError>& e) {
    return std::string(to_string(e.code)) + (e.detail.empty() ? "" : ": " + e.detail);
}

bool ascii_iequals(std::string_view a, std::string_view b) noexcept {
    const auto low = [](char c) {
        return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    };
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                              [&](char x, char y) { return low(x) == low(y); });
}

/// The domain that served the agentURI, when the same-domain shortcut can rest on it: the agentURI
/// is https, was fetched without leaving its host, and its file names this agent. ERC-8004
/// §Endpoint Domain Verification: "if the endpoint-domain is the same domain that serves the
/// agent's primary registration file referenced by agentURI, this additional check is not needed
/// because domain control is already demonstrated there". Control is demonstrated only by a
/// matching file served by that host itself, so a cross-host redirect or a non-matching file gives
/// no shortcut.
std::optional<std::string> serving_domain(const AgentVerification& v) {
    if (!v.fetched || !v.registration_matches) return std::nullopt;
    auto on_chain = parse_endpoint_url(v.agent.agent_uri);
    auto served = parse_endpoint_url(v.final_url);
    if (!on_chain || !served || on_chain->host != served->host) return std::nullopt;
    return on_chain->host;
}

struct PendingDomain {
    size_t agent = 0;
    size_t check = 0;
    size_t url = 0;
};

struct PendingCard {
    size_t agent = 0;
    size_t check = 0;
    size_t url = 0;
};

/// Step 4's list of endpoint-domains for one agent (before any fetch).
void collect_domains(const std::vector<core::RegistrationService>& services, AgentVerification& v) {
    std::map<std::string, size_t> by_domain;
    for (const auto& svc : services) {
        auto url = parse_endpoint_url(svc.endpoint);
        if (!url) {
            const EndpointError e = url.error().code;
            // ENS names, DIDs, e-mail addresses, ipfs:// and other schemes have no HTTPS
            // endpoint-domain to verify; only http:// is flagged, since it looks like one.
            const bool http = e == EndpointError::not_https && svc.endpoint.size() > 7 &&
                              ascii_iequals(std::string_view(svc.endpoint).substr(0, 7), "http://");
            if (e == EndpointError::not_a_url || (e == EndpointError::not_https && !http)) {
                continue;
            }
            DomainCheck bad;
            bad.services.push_back(svc.name);
            bad.endpoints.push_back(svc.endpoint);
            bad.reason = http ? DomainReason::not_https : DomainReason::bad_host;
            bad.detail = url.error().detail;
            v.domains.push_back(std::move(bad));
            continue;
        }
        auto [it, inserted] = by_domain.try_emplace(url->host, v.domains.size());
        if (inserted) {
            DomainCheck check;
            check.domain = url->host;
            v.domains.push_back(std::move(check));
        }
        v.domains[it->second].services.push_back(svc.name);
        v.domains[it->second].endpoints.push_back(svc.endpoint);
    }
}

Json fetch_error_json(const std::optional<FetchError>& e) {
    return e ? Json(std::string(to_string(*e))) : Json(nullptr);
}

}  // namespace

std::string OnChainAgent::agent_registry() const {
    return core::to_string(core::AgentRegistry{chain_id, identity_registry.bytes});
}

nlohmann::ordered_json OnChainAgent::to_json() const {
    Json j;
    j["agentId"] = agent_id.to_dec();
    j["agentRegistry"] = agent_registry();
    j["owner"] = owner.to_checksum_hex();
    j["agentWallet"] = wallet ? Json(wallet->to_checksum_hex()) : Json(nullptr);
    j["agentURI"] = agent_uri;
    return j;
}

std::string_view to_string(AgentStatus s) noexcept {
    switch (s) {
        case AgentStatus::verified:
            return "verified";
        case AgentStatus::unverified:
            return "unverified";
        case AgentStatus::unreachable:
            return "unreachable";
    }
    return "unknown";
}

std::string_view to_string(AgentReason r) noexcept {
    switch (r) {
        case AgentReason::none:
            return "";
        case AgentReason::empty_agent_uri:
            return "empty_agent_uri";
        case AgentReason::fetch_failed:
            return "fetch_failed";
        case AgentReason::not_json:
            return "not_json";
        case AgentReason::invalid_registration_file:
            return "invalid_registration_file";
        case AgentReason::no_registrations:
            return "no_registrations";
        case AgentReason::wrong_agent_id:
            return "wrong_agent_id";
        case AgentReason::wrong_registry:
            return "wrong_registry";
        case AgentReason::no_matching_registration:
            return "no_matching_registration";
    }
    return "unknown";
}

std::string_view to_string(DomainReason r) noexcept {
    switch (r) {
        case DomainReason::verified:
            return "verified";
        case DomainReason::same_domain:
            return "same_domain";
        case DomainReason::fetch_failed:
            return "fetch_failed";
        case DomainReason::not_found:
            return "not_found";
        case DomainReason::not_json:
            return "not_json";
        case DomainReason::no_registrations:
            return "no_registrations";
        case DomainReason::wrong_agent_id:
            return "wrong_agent_id";
        case DomainReason::wrong_registry:
            return "wrong_registry";
        case DomainReason::no_matching_registration:
            return "no_matching_registration";
        case DomainReason::not_https:
            return "not_https";
        case DomainReason::bad_host:
            return "bad_host";
    }
    return "unknown";
}

void judge_registration_bytes(core::ByteView body, AgentVerification& out) {
    auto doc = core::parse_json(body);
    if (!doc) {
        out.status = AgentStatus::unverified;
        out.reason = AgentReason::not_json;
        out.detail = std::string(core::to_string(doc.error().code)) +
                     (doc.error().detail.empty() ? "" : ": " + doc.error().detail);
        return;
    }
    out.registration = core::validate_registration_file(*doc);
    // core::parse_json bounded the nesting, so the second parse cannot recurse deeply.
    auto document = nlohmann::ordered_json::parse(body.begin(), body.end(), nullptr, false);
    if (document.is_object()) out.document = std::move(document);
    const OnChainAgent& a = out.agent;
    auto matched = match_registration(out.registration->file, a.chain_id, a.identity_registry.bytes,
                                      a.agent_id);
    if (matched) {
        out.registration_matches = true;
        out.registration_index = *matched;
    }
    // ERC-8004 §Agent URI and Agent Registration File: "The registration file MUST have the
    // following structure"; an error-severity issue is a broken MUST.
    if (!out.registration->ok()) {
        const auto& issues = out.registration->issues;
        const auto first = std::find_if(issues.begin(), issues.end(), [](const auto& i) {
            return i.severity == core::IssueSeverity::error;
        });
        out.status = AgentStatus::unverified;
        out.reason = AgentReason::invalid_registration_file;
        out.detail = std::to_string(out.registration->error_count()) +
                     " error(s); first: " + (first->path.empty() ? "/" : first->path) + ": " +
                     first->message;
        return;
    }
    if (!matched) {
        out.status = AgentStatus::unverified;
        out.reason = agent_reason(matched.error().code);
        out.detail = matched.error().detail;
        return;
    }
    out.status = AgentStatus::verified;
    out.reason = AgentReason::none;
    out.detail.clear();
}

std::optional<std::string> agent_card_url_for(std::string_view a2a_endpoint) {
    auto url = parse_endpoint_url(a2a_endpoint);
    if (!url) return std::nullopt;
    if (url->path == kAgentCardPath) return std::string(a2a_endpoint);
    return agent_card_url(url->host);
}

std::vector<AgentVerification> verify_agents(const std::vector<OnChainAgent>& agents,
                                             Fetcher& fetcher, const AgentVerifyOptions& options) {
    std::vector<AgentVerification> out(agents.size());

    // Step 1: every agentURI at once.
    UrlSet uris;
    std::vector<size_t> uri_of(agents.size(), kNone);
    for (size_t i = 0; i < agents.size(); ++i) {
        out[i].agent = agents[i];
        if (agents[i].agent_uri.empty()) {
            out[i].status = AgentStatus::unverified;
            out[i].reason = AgentReason::empty_agent_uri;
            out[i].detail = "the agent has no agentURI";
            continue;
        }
        uri_of[i] = uris.add(agents[i].agent_uri);
    }
    const auto fetched = uris.fetch(fetcher, options.policy);
    for (size_t i = 0; i < agents.size(); ++i) {
        if (uri_of[i] == kNone) continue;
        AgentVerification& v = out[i];
        const auto& r = fetched[uri_of[i]];
        if (!r) {
            // ERC-8004: "The agentURI MUST resolve to the agent registration file".
            v.status = AgentStatus::unreachable;
            v.reason = AgentReason::fetch_failed;
            v.fetch_error = r.error().code;
            v.detail = fetch_detail(r.error());
            continue;
        }
        v.fetched = true;
        v.final_url = r->final_url;
        v.bytes = r->body.size();
        // Steps 2-3.
        judge_registration_bytes(r->body, v);
    }

    // Step 4: endpoint-domains.
    UrlSet domain_urls;
    std::vector<PendingDomain> pending_domains;
    if (options.check_domains) {
        for (size_t i = 0; i < out.size(); ++i) {
            AgentVerification& v = out[i];
            if (!v.registration) continue;
            collect_domains(v.registration->file.services, v);
            const auto shortcut = serving_domain(v);
            for (size_t c = 0; c < v.domains.size(); ++c) {
                DomainCheck& check = v.domains[c];
                if (check.domain.empty()) continue;  // not_https / bad_host: nothing to fetch
                if (shortcut && *shortcut == check.domain) {
                    check.verified = true;
                    check.reason = DomainReason::same_domain;
                    check.detail = "the domain serves the agentURI, whose file names this agent";
                    continue;
                }
                check.url = agent_registration_url(check.domain);
                pending_domains.push_back({i, c, domain_urls.add(check.url)});
            }
        }
    }
    const auto domain_files = domain_urls.fetch(fetcher, options.policy);
    for (const auto& p : pending_domains) {
        AgentVerification& v = out[p.agent];
        DomainCheck& check = v.domains[p.check];
        const auto& r = domain_files[p.url];
        if (!r) {
            check.fetch_error = r.error().code;
            check.reason = r.error().code == FetchError::http_status ? DomainReason::not_found
                                                                     : DomainReason::fetch_failed;
            check.detail = fetch_detail(r.error());
            continue;
        }
        // "reachable over HTTPS": a redirect that left https does not count.
        if (!parse_endpoint_url(r->final_url)) {
            check.reason = DomainReason::fetch_failed;
            check.detail = "served from " + r->final_url + ", not over https";
            continue;
        }
        const OnChainAgent& a = v.agent;
        auto ok = check_domain_file(r->body, a.chain_id, a.identity_registry.bytes, a.agent_id);
        if (!ok) {
            check.reason = domain_reason(ok.error().code);
            check.detail = ok.error().detail;
            continue;
        }
        check.verified = true;
        check.reason = DomainReason::verified;
        check.detail.clear();
    }

    // Step 5: A2A agent cards.
    UrlSet card_urls;
    std::vector<PendingCard> pending_cards;
    if (options.fetch_agent_cards) {
        for (size_t i = 0; i < out.size(); ++i) {
            AgentVerification& v = out[i];
            if (!v.registration) continue;
            for (const auto& svc : v.registration->file.services) {
                if (!ascii_iequals(svc.name, "A2A")) continue;
                AgentCardCheck check;
                check.service_endpoint = svc.endpoint;
                if (auto url = agent_card_url_for(svc.endpoint)) {
                    check.url = *url;
                    pending_cards.push_back({i, v.agent_cards.size(), card_urls.add(*url)});
                } else {
                    check.detail = "the A2A endpoint is not an https URL";
                }
                v.agent_cards.push_back(std::move(check));
            }
        }
    }
    const auto cards = card_urls.fetch(fetcher, options.policy);
    for (const auto& p : pending_cards) {
        AgentVerification& v = out[p.agent];
        AgentCardCheck& check = v.agent_cards[p.check];
        const auto& r = cards[p.url];
        if (!r) {
            check.fetch_error = r.error().code;
            check.detail = fetch_detail(r.error());
            continue;
        }
        check.fetched = true;
        auto card = parse_agent_card(r->body);
        if (!card) {
            check.parse_error = card.error().code;
            check.detail = std::string(to_string(card.error().code)) +
                           (card.error().detail.empty() ? "" : ": " + card.error().detail);
            continue;
        }
        const OnChainAgent& a = v.agent;
        check.binding = card_entry_binding(*card, a.chain_id, a.identity_registry.bytes, a.agent_id,
                                           a.owner, a.wallet);
        if (check.binding == CardBinding::none) {
            // ERC-8004 §Endpoint Domain Verification: a card on a verified endpoint-domain is
            // published by whoever controls a domain the agent proved.
            auto host = parse_endpoint_url(r->final_url);
            const auto verified = v.verified_domains();
            if (host && std::find(verified.begin(), verified.end(), host->host) != verified.end()) {
                check.binding = CardBinding::card_domain;
            }
        }
        check.card = std::move(*card);
    }
    return out;
}

chain::CallResult<OnChainAgent> read_onchain_agent(chain::RpcClient& rpc, uint64_t chain_id,
                                                   const core::Address& registry,
                                                   const core::Uint256& agent_id,
                                                   core::Erc8004Revision revision) {
    namespace idr = chain::bindings::identity_registry;
    chain::ContractCaller caller(rpc);
    OnChainAgent a;
    a.chain_id = chain_id;
    a.identity_registry = registry;
    a.agent_id = agent_id;
    auto owner = idr::call::owner_of(caller, registry, agent_id);
    if (!owner) return std::unexpected(std::move(owner.error()));
    a.owner = *owner;
    auto uri = idr::call::token_uri(caller, registry, agent_id);
    if (!uri) return std::unexpected(std::move(uri.error()));
    a.agent_uri = std::move(*uri);
    if (revision == core::Erc8004Revision::score) {
        auto packed = chain::bindings::score_identity_registry::call::get_metadata(
            caller, registry, agent_id, "agentWallet");
        if (!packed) return std::unexpected(std::move(packed.error()));
        if (auto wallet = core::Address::from_bytes(*packed); wallet && !wallet->is_zero()) {
            a.wallet = *wallet;
        }
        return a;
    }
    auto wallet = idr::call::get_agent_wallet(caller, registry, agent_id);
    if (!wallet) return std::unexpected(std::move(wallet.error()));
    // ERC-8004 §On-chain metadata: the zero address means the wallet is unset.
    if (!wallet->is_zero()) a.wallet = *wallet;
    return a;
}

AgentVerification verify_agent(const OnChainAgent& agent, Fetcher& fetcher,
                               const AgentVerifyOptions& options) {
    auto all = verify_agents({agent}, fetcher, options);
    return std::move(all.front());
}

std::vector<std::string> AgentVerification::verified_domains() const {
    std::vector<std::string> out;
    if (auto d = serving_domain(*this)) out.push_back(*d);
    for (const auto& c : domains) {
        if (c.verified && std::find(out.begin(), out.end(), c.domain) == out.end()) {
            out.push_back(c.domain);
        }
    }
    return out;
}

nlohmann::ordered_json AgentVerification::to_json() const {
    Json j = agent.to_json();
    j["status"] = std::string(to_string(status));
    j["reason"] = std::string(to_string(reason));
    j["detail"] = detail;
    Json file;
    file["fetched"] = fetched;
    file["fetchError"] = fetch_error_json(fetch_error);
    file["finalUrl"] = final_url;
    file["bytes"] = bytes;
    file["parsed"] = registration.has_value();
    file["valid"] = registration && registration->ok();
    if (document) file["document"] = *document;
    Json issues = Json::array();
    if (registration) {
        for (const auto& i : registration->issues) {
            issues.push_back({{"severity", std::string(core::to_string(i.severity))},
                              {"reason", std::string(core::to_string(i.reason))},
                              {"path", i.path},
                              {"message", i.message}});
        }
        const auto& f = registration->file;
        file["name"] = f.name;
        file["description"] = f.description;
        file["image"] = f.image;
        file["active"] = f.active ? Json(*f.active) : Json(nullptr);
        file["x402Support"] = f.x402_support ? Json(*f.x402_support) : Json(nullptr);
        file["supportedTrust"] = f.supported_trust;
        Json services = Json::array();
        for (const auto& s : f.services) {
            Json js{{"name", s.name}, {"endpoint", s.endpoint}};
            js["version"] = s.version ? Json(*s.version) : Json(nullptr);
            if (!s.skills.empty()) js["skills"] = s.skills;
            if (!s.domains.empty()) js["domains"] = s.domains;
            services.push_back(std::move(js));
        }
        file["services"] = std::move(services);
    }
    file["issues"] = std::move(issues);
    j["registrationFile"] = std::move(file);
    Json match{{"matches", registration_matches}};
    match["index"] = registration_index ? Json(*registration_index) : Json(nullptr);
    j["registration"] = std::move(match);
    Json doms = Json::array();
    for (const auto& d : domains) {
        Json jd{{"domain", d.domain},
                {"verified", d.verified},
                {"reason", std::string(to_string(d.reason))},
                {"sameDomainShortcut", d.reason == DomainReason::same_domain},
                {"url", d.url},
                {"fetchError", fetch_error_json(d.fetch_error)},
                {"detail", d.detail},
                {"services", d.services},
                {"endpoints", d.endpoints}};
        doms.push_back(std::move(jd));
    }
    j["domains"] = std::move(doms);
    j["verifiedDomains"] = verified_domains();
    Json jcards = Json::array();
    for (const auto& c : agent_cards) {
        Json jc{{"endpoint", c.service_endpoint},
                {"url", c.url},
                {"fetched", c.fetched},
                {"fetchError", fetch_error_json(c.fetch_error)},
                {"parseError",
                 c.parse_error ? Json(std::string(to_string(*c.parse_error))) : Json(nullptr)},
                {"detail", c.detail},
                {"binding", std::string(to_string(c.binding))}};
        if (c.card) {
            jc["name"] = c.card->name;
            jc["version"] = c.card->version;
            Json skills = Json::array();
            for (const auto& s : c.card->skills) {
                skills.push_back({{"id", s.id},
                                  {"name", s.name},
                                  {"description", s.description},
                                  {"tags", s.tags}});
            }
            jc["skills"] = std::move(skills);
            jc["trustModels"] = c.card->trust_models;
            Json ci = Json::array();
            for (const auto& i : c.card->issues) {
                ci.push_back({{"path", i.path}, {"message", i.message}});
            }
            jc["issues"] = std::move(ci);
        }
        jcards.push_back(std::move(jc));
    }
    j["agentCards"] = std::move(jcards);
    return j;
}

}  // namespace credence::verify
