#include <credence/core/registration_file.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace credence::core {

std::string_view to_string(IssueSeverity s) noexcept {
    return s == IssueSeverity::error ? "error" : "warning";
}

std::string_view to_string(RegistrationReason r) noexcept {
    switch (r) {
        case RegistrationReason::not_an_object:
            return "not_an_object";
        case RegistrationReason::missing_field:
            return "missing_field";
        case RegistrationReason::missing_recommended:
            return "missing_recommended";
        case RegistrationReason::wrong_json_type:
            return "wrong_json_type";
        case RegistrationReason::wrong_type_uri:
            return "wrong_type_uri";
        case RegistrationReason::empty_string:
            return "empty_string";
        case RegistrationReason::bad_agent_id:
            return "bad_agent_id";
        case RegistrationReason::bad_agent_registry:
            return "bad_agent_registry";
        case RegistrationReason::no_registrations:
            return "no_registrations";
        case RegistrationReason::unknown_field:
            return "unknown_field";
        case RegistrationReason::unknown_trust_model:
            return "unknown_trust_model";
        case RegistrationReason::duplicate_entry:
            return "duplicate_entry";
        case RegistrationReason::earlier_revision:
            return "earlier_revision";
    }
    return "unknown";
}

std::string json_pointer_token(std::string_view key) {
    std::string out;
    out.reserve(key.size());
    for (char c : key) {
        if (c == '~') {
            out += "~0";
        } else if (c == '/') {
            out += "~1";
        } else {
            out += c;
        }
    }
    return out;
}

std::optional<Uint256> json_uint256(const JsonValue& v) {
    if (!v.is_number()) return std::nullopt;
    const JsonNumber& n = v.as_number();
    if (n.text.empty()) {
        // Hand-built number: only exact integers of a double (below 2^53) are unambiguous.
        if (!(n.value >= 0) || n.value > 9007199254740991.0 || std::floor(n.value) != n.value) {
            return std::nullopt;
        }
        return Uint256{static_cast<uint64_t>(n.value)};
    }
    // The parser guarantees RFC 8259 number grammar, so digits only means a plain integer
    // without sign, fraction or exponent, and no leading zero.
    if (!std::all_of(n.text.begin(), n.text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return std::nullopt;
    }
    auto r = Uint256::from_dec(n.text);
    if (!r) return std::nullopt;
    return *r;
}

namespace {

std::string_view kind_name(JsonKind k) {
    switch (k) {
        case JsonKind::null:
            return "null";
        case JsonKind::boolean:
            return "boolean";
        case JsonKind::number:
            return "number";
        case JsonKind::string:
            return "string";
        case JsonKind::array:
            return "array";
        case JsonKind::object:
            return "object";
    }
    return "?";
}

class Validator {
public:
    explicit Validator(RegistrationReport& report) : report_(report) {}

    void add(RegistrationReason reason, IssueSeverity severity, std::string path,
             std::string message) {
        report_.issues.push_back({reason, severity, std::move(path), std::move(message)});
    }
    void error(RegistrationReason reason, std::string path, std::string message) {
        add(reason, IssueSeverity::error, std::move(path), std::move(message));
    }
    void warning(RegistrationReason reason, std::string path, std::string message) {
        add(reason, IssueSeverity::warning, std::move(path), std::move(message));
    }

    void wrong_kind(const std::string& path, std::string_view want, const JsonValue& got) {
        error(RegistrationReason::wrong_json_type, path,
              "must be " + std::string(want) + ", found " + std::string(kind_name(got.kind())));
    }

    /// A string member; `required` decides between error and warning when absent.
    std::optional<std::string> string_member(const JsonValue& obj, const std::string& base,
                                             std::string_view key, bool required, bool non_empty) {
        const std::string path = base + "/" + json_pointer_token(key);
        const JsonValue* v = obj.find(key);
        if (v == nullptr) {
            if (required) {
                error(RegistrationReason::missing_field, path,
                      "required member \"" + std::string(key) + "\" is missing");
            }
            return std::nullopt;
        }
        if (!v->is_string()) {
            wrong_kind(path, "a string", *v);
            return std::nullopt;
        }
        if (non_empty && v->as_string().empty()) {
            error(RegistrationReason::empty_string, path, "must not be empty");
            return std::nullopt;
        }
        return v->as_string();
    }

    std::optional<bool> bool_member(const JsonValue& obj, std::string_view key) {
        const std::string path = "/" + json_pointer_token(key);
        const JsonValue* v = obj.find(key);
        if (v == nullptr) {
            warning(RegistrationReason::missing_recommended, path,
                    "member \"" + std::string(key) + "\" of the ERC-8004 structure is absent");
            return std::nullopt;
        }
        if (!v->is_bool()) {
            wrong_kind(path, "a boolean", *v);
            return std::nullopt;
        }
        return v->as_bool();
    }

    std::vector<std::string> string_array(const JsonValue& v, const std::string& path) {
        std::vector<std::string> out;
        if (!v.is_array()) {
            wrong_kind(path, "an array of strings", v);
            return out;
        }
        const auto& arr = v.as_array();
        for (size_t i = 0; i < arr.size(); ++i) {
            if (!arr[i].is_string()) {
                wrong_kind(path + "/" + std::to_string(i), "a string", arr[i]);
                continue;
            }
            out.push_back(arr[i].as_string());
        }
        return out;
    }

    void unknown_members(const JsonValue& obj, const std::string& base,
                         std::initializer_list<std::string_view> known, std::string_view where) {
        for (const JsonMember& m : obj.as_object()) {
            if (std::find(known.begin(), known.end(), m.key) != known.end()) continue;
            std::string msg = "member \"" + m.key + "\" is not defined for " + std::string(where);
            if (base.empty() && m.key == "endpoints" &&
                report_.file.services_member == "endpoints") {
                continue;  // read as the services (services())
            }
            if (base.empty() && m.key == "endpoints") {
                msg += " (earlier drafts of ERC-8004 called \"services\" \"endpoints\")";
            }
            warning(RegistrationReason::unknown_field, base + "/" + json_pointer_token(m.key),
                    std::move(msg));
        }
    }

    void services(const JsonValue& doc) {
        const JsonValue* v = doc.find("services");
        if (v == nullptr) {
            // The intermediate revision of ERC-8004 named the list "endpoints" ("The number and
            // type of endpoints are fully customizable"), with the same entries: a file written
            // then still gives its services, with a warning rather than a missing-field error.
            v = doc.find("endpoints");
            if (v == nullptr) {
                error(RegistrationReason::missing_field, "/services",
                      "required member \"services\" is missing");
                return;
            }
            report_.file.services_member = "endpoints";
            warning(RegistrationReason::earlier_revision, "/endpoints",
                    "\"endpoints\" is the earlier revisions' name of \"services\"; read as the "
                    "services");
        }
        const std::string list = "/" + report_.file.services_member;
        if (!v->is_array()) {
            wrong_kind(list, "an array", *v);
            return;
        }
        const auto& arr = v->as_array();
        for (size_t i = 0; i < arr.size(); ++i) {
            const std::string base = list + "/" + std::to_string(i);
            const JsonValue& s = arr[i];
            if (!s.is_object()) {
                error(RegistrationReason::not_an_object, base, "a service must be an object");
                continue;
            }
            RegistrationService svc;
            // The structure gives every service a name and an endpoint.
            auto name = string_member(s, base, "name", true, true);
            auto endpoint = string_member(s, base, "endpoint", true, true);
            if (name) svc.name = *name;
            if (endpoint) svc.endpoint = *endpoint;
            // "The version field in endpoints is a SHOULD, not a MUST."
            if (s.find("version") == nullptr) {
                warning(RegistrationReason::missing_recommended, base + "/version",
                        "service \"" + svc.name + "\" SHOULD give a version");
            } else {
                svc.version = string_member(s, base, "version", false, false);
            }
            // OASF service: "skills": [] // OPTIONAL, "domains": [] // OPTIONAL
            if (const JsonValue* sk = s.find("skills"))
                svc.skills = string_array(*sk, base + "/skills");
            if (const JsonValue* dm = s.find("domains")) {
                svc.domains = string_array(*dm, base + "/domains");
            }
            if (report_.file.services_member == "endpoints") {
                // The intermediate revision's MCP entry: "capabilities": [] // OPTIONAL
                unknown_members(
                    s, base, {"name", "endpoint", "version", "skills", "domains", "capabilities"},
                    "a service");
            } else {
                unknown_members(s, base, {"name", "endpoint", "version", "skills", "domains"},
                                "a service");
            }
            report_.file.services.push_back(std::move(svc));
        }
    }

    void registrations(const JsonValue& doc) {
        const JsonValue* v = doc.find("registrations");
        // "Agents SHOULD have at least one registration (multiple are possible)"
        if (v == nullptr) {
            warning(RegistrationReason::no_registrations, "/registrations",
                    "agents SHOULD have at least one registration");
            return;
        }
        if (!v->is_array()) {
            wrong_kind("/registrations", "an array", *v);
            return;
        }
        const auto& arr = v->as_array();
        if (arr.empty()) {
            warning(RegistrationReason::no_registrations, "/registrations",
                    "agents SHOULD have at least one registration");
        }
        for (size_t i = 0; i < arr.size(); ++i) {
            const std::string base = "/registrations/" + std::to_string(i);
            const JsonValue& r = arr[i];
            if (!r.is_object()) {
                error(RegistrationReason::not_an_object, base, "a registration must be an object");
                continue;
            }
            // "all fields in the registration are mandatory"
            bool complete = true;
            RegistrationEntry entry;
            if (const JsonValue* id = r.find("agentId")) {
                if (auto u = json_uint256(*id)) {
                    entry.agent_id = *u;
                } else {
                    complete = false;
                    error(RegistrationReason::bad_agent_id, base + "/agentId",
                          "agentId (the ERC-721 tokenId) must be a non-negative integer number");
                }
            } else {
                complete = false;
                error(RegistrationReason::missing_field, base + "/agentId",
                      "required member \"agentId\" is missing");
            }
            if (const JsonValue* reg = r.find("agentRegistry")) {
                if (!reg->is_string()) {
                    complete = false;
                    wrong_kind(base + "/agentRegistry", "a string", *reg);
                } else if (auto parsed = parse_agent_registry(reg->as_string())) {
                    entry.agent_registry = *parsed;
                } else {
                    complete = false;
                    error(RegistrationReason::bad_agent_registry, base + "/agentRegistry",
                          "agentRegistry must be {namespace}:{chainId}:{identityRegistry}: " +
                              std::string(to_string(parsed.error().code)) +
                              (parsed.error().detail.empty() ? ""
                                                             : " (" + parsed.error().detail + ")"));
                }
            } else {
                complete = false;
                error(RegistrationReason::missing_field, base + "/agentRegistry",
                      "required member \"agentRegistry\" is missing");
            }
            unknown_members(r, base, {"agentId", "agentRegistry"}, "a registration");
            if (!complete) continue;
            auto& regs = report_.file.registrations;
            if (std::find(regs.begin(), regs.end(), entry) != regs.end()) {
                warning(RegistrationReason::duplicate_entry, base, "registration listed twice");
                continue;
            }
            regs.push_back(entry);
        }
    }

    void supported_trust(const JsonValue& doc) {
        // "The supportedTrust field is OPTIONAL. If absent or empty, this ERC is used only for
        // discovery, not for trust."
        const JsonValue* v = doc.find("supportedTrust");
        if (v == nullptr) return;
        auto values = string_array(*v, "/supportedTrust");
        auto& out = report_.file.supported_trust;
        for (size_t i = 0; i < values.size(); ++i) {
            const std::string path = "/supportedTrust/" + std::to_string(i);
            static constexpr std::string_view kKnown[] = {"reputation", "crypto-economic",
                                                          "tee-attestation"};
            if (std::find(std::begin(kKnown), std::end(kKnown), values[i]) == std::end(kKnown)) {
                warning(RegistrationReason::unknown_trust_model, path,
                        "trust model \"" + values[i] +
                            "\" is not one the spec names (reputation, crypto-economic, "
                            "tee-attestation)");
            }
            if (std::find(out.begin(), out.end(), values[i]) != out.end()) {
                warning(RegistrationReason::duplicate_entry, path,
                        "trust model \"" + values[i] + "\" listed twice");
                continue;
            }
            out.push_back(values[i]);
        }
    }

    void run(const JsonValue& doc) {
        if (!doc.is_object()) {
            error(RegistrationReason::not_an_object, "", "the registration file must be an object");
            return;
        }
        RegistrationFile& f = report_.file;
        // "type": "https://eips.ethereum.org/EIPS/eip-8004#registration-v1"
        if (auto t = string_member(doc, "", "type", true, false)) {
            f.type = *t;
            if (*t != kRegistrationTypeV1) {
                error(RegistrationReason::wrong_type_uri, "/type",
                      "type must be \"" + std::string(kRegistrationTypeV1) + "\"");
            }
        }
        // name/description/image: part of the MUST structure, and what ERC-721 apps display.
        if (auto s = string_member(doc, "", "name", true, true)) f.name = *s;
        if (auto s = string_member(doc, "", "description", true, false)) f.description = *s;
        if (auto s = string_member(doc, "", "image", true, false)) f.image = *s;
        services(doc);
        f.x402_support = bool_member(doc, "x402Support");
        f.active = bool_member(doc, "active");
        registrations(doc);
        supported_trust(doc);
        unknown_members(doc, "",
                        {"type", "name", "description", "image", "services", "x402Support",
                         "active", "registrations", "supportedTrust"},
                        "an ERC-8004 registration file");
    }

private:
    RegistrationReport& report_;
};

}  // namespace

size_t RegistrationReport::error_count() const noexcept {
    return static_cast<size_t>(std::count_if(issues.begin(), issues.end(), [](const auto& i) {
        return i.severity == IssueSeverity::error;
    }));
}

bool RegistrationReport::ok() const noexcept { return error_count() == 0; }

RegistrationReport validate_registration_file(const JsonValue& doc) {
    RegistrationReport report;
    Validator(report).run(doc);
    return report;
}

Result<RegistrationReport, JsonError> validate_registration_file(std::string_view text) {
    auto doc = parse_json(text);
    if (!doc) return std::unexpected(doc.error());
    return validate_registration_file(*doc);
}

bool registration_matches(const RegistrationEntry& entry, uint64_t chain_id,
                          const EvmAddress& identity_registry, const Uint256& agent_id) noexcept {
    return entry.agent_registry.chain_id == chain_id &&
           entry.agent_registry.identity_registry == identity_registry &&
           entry.agent_id == agent_id;
}

std::optional<size_t> find_registration(const RegistrationFile& file, uint64_t chain_id,
                                        const EvmAddress& identity_registry,
                                        const Uint256& agent_id) noexcept {
    for (size_t i = 0; i < file.registrations.size(); ++i) {
        if (registration_matches(file.registrations[i], chain_id, identity_registry, agent_id)) {
            return i;
        }
    }
    return std::nullopt;
}

}  // namespace credence::core
