#include <credence/verify/rules/domain_check.hpp>

#include <algorithm>
#include <cctype>

#include <credence/core/json.hpp>
#include <credence/core/registration_file.hpp>
#include <credence/verify/net/url.hpp>

namespace credence::verify {
namespace {

char lower(char c) noexcept {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool iequals(std::string_view a, std::string_view b) noexcept {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                              [](char x, char y) { return lower(x) == lower(y); });
}

bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

/// A DNS name in its LDH form (RFC 1123 §2.1, plus '_' which real hosts use): labels of 1..63
/// letters, digits, '-' and '_', not starting or ending with '-', 253 characters at most.
bool is_dns_name(std::string_view host) noexcept {
    if (host.empty() || host.size() > 253) return false;
    size_t label = 0;
    char prev = '.';
    for (const char c : host) {
        if (c == '.') {
            if (label == 0 || prev == '-') return false;
            label = 0;
        } else {
            const bool ok = (c >= 'a' && c <= 'z') || is_digit(c) || c == '-' || c == '_';
            if (!ok || (label == 0 && c == '-')) return false;
            ++label;
            if (label > 63) return false;
        }
        prev = c;
    }
    return label > 0 && prev != '-';
}

/// Dotted-quad IPv4 (all labels numeric): an address, not a domain.
bool is_ipv4_literal(std::string_view host) noexcept {
    return !host.empty() &&
           std::all_of(host.begin(), host.end(), [](char c) { return is_digit(c) || c == '.'; });
}

}  // namespace

std::string_view to_string(EndpointError e) noexcept {
    switch (e) {
        case EndpointError::not_a_url:
            return "not_a_url";
        case EndpointError::not_https:
            return "not_https";
        case EndpointError::bad_host:
            return "bad_host";
        case EndpointError::ip_literal:
            return "ip_literal";
    }
    return "unknown";
}

std::string_view to_string(DomainFileError e) noexcept {
    switch (e) {
        case DomainFileError::not_json:
            return "not_json";
        case DomainFileError::not_an_object:
            return "not_an_object";
        case DomainFileError::no_registrations:
            return "no_registrations";
        case DomainFileError::wrong_agent_id:
            return "wrong_agent_id";
        case DomainFileError::wrong_registry:
            return "wrong_registry";
        case DomainFileError::no_matching_registration:
            return "no_matching_registration";
    }
    return "unknown";
}

core::Result<EndpointUrl, EndpointError> parse_endpoint_url(std::string_view url) {
    const auto parts = split_url(url);
    if (!parts) return core::fail(EndpointError::not_a_url, "no scheme://authority");
    // RFC 3986 §3.1: schemes are case-insensitive.
    if (!iequals(parts->scheme, "https")) {
        return core::fail(EndpointError::not_https,
                          "scheme \"" + std::string(parts->scheme) + "\" is not https");
    }
    // RFC 3986 §3.2: [userinfo "@"] host [":" port]. The domain is the host alone, so userinfo
    // is skipped rather than refused.
    const std::string_view host_text = parts->host;
    if (!host_text.empty() && host_text.front() == '[') {
        return core::fail(EndpointError::ip_literal, "an IPv6 literal is not a domain");
    }
    if (const auto& port = parts->port;
        port && !std::all_of(port->begin(), port->end(), is_digit)) {
        return core::fail(EndpointError::bad_host, "bad port");
    }
    const std::string_view path_part = parts->path;
    std::string host;
    host.reserve(host_text.size());
    for (const char c : host_text) host.push_back(lower(c));
    if (!host.empty() && host.back() == '.') host.pop_back();  // the root label
    if (is_ipv4_literal(host)) {
        return core::fail(EndpointError::ip_literal, "an IP address is not a domain");
    }
    if (!is_dns_name(host)) {
        return core::fail(EndpointError::bad_host,
                          "\"" + std::string(host_text) + "\" is not a DNS name");
    }
    return EndpointUrl{std::move(host), path_part.empty() ? "/" : std::string(path_part)};
}

core::Result<std::string, EndpointError> endpoint_domain(std::string_view endpoint) {
    auto url = parse_endpoint_url(endpoint);
    if (!url) return std::unexpected(url.error());
    return std::move(url->host);
}

std::string agent_registration_url(std::string_view domain) {
    return "https://" + std::string(domain) + std::string(kAgentRegistrationPath);
}

std::string agent_card_url(std::string_view domain) {
    return "https://" + std::string(domain) + std::string(kAgentCardPath);
}

core::Result<void, DomainFileError> check_domain_file(core::ByteView body, uint64_t chain_id,
                                                      const core::EvmAddress& identity_registry,
                                                      const core::Uint256& agent_id) {
    // The domain file is a registration file or a subset of one, so the same size-bounded strict
    // parser and the same entry rules apply (ERC-8004: "all fields in the registration are
    // mandatory"; an incomplete entry cannot match).
    auto doc = core::parse_json(body);
    if (!doc) {
        return core::fail(DomainFileError::not_json,
                          std::string(core::to_string(doc.error().code)) +
                              (doc.error().detail.empty() ? "" : ": " + doc.error().detail));
    }
    if (!doc->is_object()) return core::fail(DomainFileError::not_an_object);
    const core::JsonValue* regs = doc->find("registrations");
    // ERC-8004 §Endpoint Domain Verification: "containing at least a registrations list".
    if (regs == nullptr || !regs->is_array()) {
        return core::fail(DomainFileError::no_registrations,
                          "the file has no \"registrations\" array");
    }
    const core::RegistrationReport report = core::validate_registration_file(*doc);
    auto matched = match_registration(report.file, chain_id, identity_registry, agent_id);
    if (!matched) return std::unexpected(std::move(matched.error()));
    return {};
}

core::Result<size_t, DomainFileError> match_registration(const core::RegistrationFile& file,
                                                         uint64_t chain_id,
                                                         const core::EvmAddress& identity_registry,
                                                         const core::Uint256& agent_id) {
    if (auto i = core::find_registration(file, chain_id, identity_registry, agent_id)) return *i;
    const auto& entries = file.registrations;
    if (entries.empty()) {
        return core::fail(DomainFileError::no_registrations,
                          "no complete registration entry (agentId and agentRegistry)");
    }
    const core::AgentRegistry ours{chain_id, identity_registry};
    std::string listed;
    bool same_registry = false;
    bool same_id = false;
    for (const auto& e : entries) {
        same_registry = same_registry || e.agent_registry == ours;
        same_id = same_id || e.agent_id == agent_id;
        if (!listed.empty()) listed += ", ";
        listed += "agentId " + e.agent_id.to_dec() + " of " + core::to_string(e.agent_registry);
    }
    const std::string detail = "the file lists " + listed + ", not agentId " + agent_id.to_dec() +
                               " of " + core::to_string(ours);
    if (same_registry) return core::fail(DomainFileError::wrong_agent_id, detail);
    if (same_id) return core::fail(DomainFileError::wrong_registry, detail);
    return core::fail(DomainFileError::no_matching_registration, detail);
}

}  // namespace credence::verify
