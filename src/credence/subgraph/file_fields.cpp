#include <credence/subgraph/file_fields.hpp>

#include <algorithm>
#include <array>
#include <cctype>

namespace credence::subgraph {
namespace {

using Json = nlohmann::json;

bool is_bare_cid(std::string_view s) {
    if (s.starts_with("Qm") && s.size() == 46) return true;   // CIDv0
    return s.starts_with("baf") && s.size() >= 8;              // CIDv1, leniently
}

bool is_gateway_url(std::string_view uri) {
    constexpr std::array<std::string_view, 5> kHostSuffixes = {
        ".ipfs.w3s.link", ".ipfs.dweb.link", ".ipfs.gateway.pinata.cloud", ".ipfs.ipfs.io",
        ".ipfs.cloudflare-ipfs.com"};
    constexpr std::array<std::string_view, 3> kPathPrefixes = {
        "https://gateway.pinata.cloud/ipfs/", "https://ipfs.io/ipfs/",
        "https://cloudflare-ipfs.com/ipfs/"};
    return std::ranges::any_of(kHostSuffixes, [&](auto s) { return uri.ends_with(s); }) ||
           std::ranges::any_of(kPathPrefixes, [&](auto p) { return uri.starts_with(p); });
}

std::string lower_case(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

const Json* member(const Json& obj, std::string_view key) {
    if (!obj.is_object()) return nullptr;
    auto it = obj.find(key);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
}

std::optional<std::string> string_member(const Json& obj, std::string_view key) {
    const Json* v = member(obj, key);
    if (v == nullptr || !v->is_string()) return std::nullopt;
    return v->get<std::string>();
}

std::optional<bool> bool_member(const Json& obj, std::string_view key) {
    const Json* v = member(obj, key);
    if (v == nullptr || !v->is_boolean()) return std::nullopt;
    return v->get<bool>();
}

// The strings of an array member, other elements skipped; nullopt when it is not an array.
std::optional<std::vector<std::string>> strings_member(const Json& obj, std::string_view key) {
    const Json* v = member(obj, key);
    if (v == nullptr || !v->is_array()) return std::nullopt;
    std::vector<std::string> out;
    for (const Json& e : *v)
        if (e.is_string()) out.push_back(e.get<std::string>());
    return out;
}

// registration-parser.ts serializeEndpointsRaw: name, endpoint, version and the string lists
// capabilities, skills and domains of each object entry, in that order.
std::string endpoints_raw(const Json& list) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const Json& e : list) {
        if (!e.is_object()) continue;
        nlohmann::ordered_json o = nlohmann::ordered_json::object();
        for (std::string_view key : {"name", "endpoint", "version"})
            if (auto s = string_member(e, key)) o[std::string(key)] = *s;
        for (std::string_view key : {"capabilities", "skills", "domains"})
            if (auto l = strings_member(e, key)) o[std::string(key)] = *l;
        out.push_back(std::move(o));
    }
    return out.dump();
}

}  // namespace

std::string uri_type(std::string_view uri) {
    if (uri.starts_with("data:")) return "data";
    if (uri.starts_with("ipfs://") || is_gateway_url(uri) || is_bare_cid(uri)) return "ipfs";
    if (uri.starts_with("https://")) return "https";
    if (uri.starts_with("http://")) return "http";
    return "unknown";
}

std::string ipfs_cid(std::string_view uri) {
    if (uri.starts_with("ipfs://")) return std::string(uri.substr(7));
    if (is_bare_cid(uri)) return std::string(uri);
    if (uri.starts_with("https://") && uri.find(".ipfs.") != std::string_view::npos) {
        const auto host = uri.substr(8, uri.find('.', 8) - 8);
        if (is_bare_cid(host)) return std::string(host);
    }
    if (const auto at = uri.find("/ipfs/"); at != std::string_view::npos) {
        auto hash = uri.substr(at + 6);
        if (const auto slash = hash.find('/'); slash != std::string_view::npos && slash > 0)
            hash = hash.substr(0, slash);
        if (is_bare_cid(hash)) return std::string(hash);
    }
    return {};
}

void read_registration_document(const Json& doc, RegistrationFileRecord& out) {
    if (!doc.is_object()) return;
    out.name = string_member(doc, "name");
    out.description = string_member(doc, "description");
    out.image = string_member(doc, "image");
    out.active = bool_member(doc, "active");
    // ERC-8004 spells it x402Support; the subgraph also accepts x402support and {"enabled": b}.
    const Json* x402 = member(doc, "x402Support");
    if (x402 == nullptr) x402 = member(doc, "x402support");
    if (x402 != nullptr && x402->is_boolean()) out.x402_support = x402->get<bool>();
    if (x402 != nullptr && x402->is_object()) out.x402_support = bool_member(*x402, "enabled");
    auto trusts = strings_member(doc, "supportedTrusts");
    if (!trusts) trusts = strings_member(doc, "supportedTrust");
    if (trusts) out.supported_trusts = std::move(*trusts);

    // `services` is ERC-8004's key; `endpoints` that of the earlier revision.
    const Json* services = member(doc, "services");
    if (services == nullptr) services = member(doc, "endpoints");
    if (services == nullptr || !services->is_array()) return;
    out.endpoints_raw_json = endpoints_raw(*services);
    for (const Json& s : *services) {
        auto name = string_member(s, "name");
        if (!name) continue;
        const std::string kind = lower_case(*name);
        const std::string endpoint = string_member(s, "endpoint").value_or("");
        const std::string version = string_member(s, "version").value_or("");
        const auto set = [](std::optional<std::string>& field, const std::string& v) {
            if (!v.empty()) field = v;
        };
        if (kind == "mcp") {
            set(out.mcp_endpoint, endpoint);
            set(out.mcp_version, version);
            // The agent0 SDK writes the MCP server's lists into its service entry.
            if (auto l = strings_member(s, "mcpTools")) out.mcp_tools = std::move(*l);
            if (auto l = strings_member(s, "mcpPrompts")) out.mcp_prompts = std::move(*l);
            if (auto l = strings_member(s, "mcpResources")) out.mcp_resources = std::move(*l);
        } else if (kind == "a2a") {
            set(out.a2a_endpoint, endpoint);
            set(out.a2a_version, version);
            if (auto l = strings_member(s, "a2aSkills")) out.a2a_skills = std::move(*l);
        } else if (kind == "web") {
            set(out.web_endpoint, endpoint);
        } else if (kind == "oasf") {
            set(out.oasf_endpoint, endpoint);
            set(out.oasf_version, version);
            if (auto l = strings_member(s, "skills")) out.oasf_skills = std::move(*l);
            if (auto l = strings_member(s, "domains")) out.oasf_domains = std::move(*l);
        } else if (kind == "email") {
            set(out.email_endpoint, endpoint);
        } else if (kind == "ens") {
            set(out.ens, endpoint);
        } else if (kind == "did") {
            set(out.did, endpoint);
        }
    }
}

void read_feedback_document(const Json& doc, const FeedbackRecord& onchain,
                            FeedbackFileRecord& out) {
    if (!doc.is_object()) return;
    // The ERC-8004 envelope (ERC-8004 §Off-Chain Feedback File Structure).
    out.agent_registry = string_member(doc, "agentRegistry");
    if (const Json* id = member(doc, "agentId"); id != nullptr) {
        if (id->is_number_unsigned()) out.agent_id = std::to_string(id->get<uint64_t>());
        if (id->is_string()) out.agent_id = id->get<std::string>();
    }
    out.client_address = string_member(doc, "clientAddress");
    out.created_at_iso = string_member(doc, "createdAt");
    if (const Json* v = member(doc, "value"); v != nullptr && v->is_number_integer())
        out.value_raw = v->dump();
    if (const Json* d = member(doc, "valueDecimals"); d != nullptr && d->is_number_integer())
        out.value_decimals = d->get<int64_t>();
    out.text = string_member(doc, "text");
    if (const Json* mcp = member(doc, "mcp"); mcp != nullptr) {
        out.mcp_tool = string_member(*mcp, "tool");
        out.mcp_prompt = string_member(*mcp, "prompt");
        out.mcp_resource = string_member(*mcp, "resource");
    }
    if (const Json* a2a = member(doc, "a2a"); a2a != nullptr) {
        if (auto l = strings_member(*a2a, "skills")) out.a2a_skills = std::move(*l);
        out.a2a_context_id = string_member(*a2a, "contextId");
        out.a2a_task_id = string_member(*a2a, "taskId");
    }
    if (const Json* oasf = member(doc, "oasf"); oasf != nullptr) {
        if (auto l = strings_member(*oasf, "skills")) out.oasf_skills = std::move(*l);
        if (auto l = strings_member(*oasf, "domains")) out.oasf_domains = std::move(*l);
    }
    const Json* proof = member(doc, "proofOfPayment");
    if (proof == nullptr) proof = member(doc, "proof_of_payment");
    if (proof != nullptr && proof->is_object()) {
        out.proof_from = string_member(*proof, "fromAddress");
        out.proof_to = string_member(*proof, "toAddress");
        if (const Json* c = member(*proof, "chainId"); c != nullptr) {
            if (c->is_string()) out.proof_chain_id = c->get<std::string>();
            if (c->is_number_integer()) out.proof_chain_id = c->dump();
        }
        out.proof_txn_hash = string_member(*proof, "txHash");
    }
    if (onchain.tag1.empty()) out.tag1 = string_member(doc, "tag1");
    if (onchain.tag2.empty()) out.tag2 = string_member(doc, "tag2");
}

std::string decimal_text(std::string_view integer, int64_t decimals) {
    const bool negative = integer.starts_with('-');
    std::string digits(negative ? integer.substr(1) : integer);
    while (digits.size() > 1 && digits.front() == '0') digits.erase(0, 1);
    if (decimals > 0) {
        const auto d = static_cast<size_t>(decimals);
        if (digits.size() <= d) digits.insert(0, d + 1 - digits.size(), '0');
        digits.insert(digits.size() - d, 1, '.');
        while (digits.back() == '0') digits.pop_back();
        if (digits.back() == '.') digits.pop_back();
    }
    if (digits.empty() || digits == "0") return "0";
    return negative ? "-" + digits : digits;
}

}  // namespace credence::subgraph
