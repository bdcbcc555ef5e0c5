#include <credence/verify/rules/manifest_schema.hpp>

#include <algorithm>
#include <array>
#include <set>

#include <fmt/core.h>

#include <credence/core/caip.hpp>
#include <credence/core/uint256.hpp>
#include <credence/verify/rules/tool_uri.hpp>

namespace credence::verify {
namespace {

using core::IssueSeverity;
using core::JsonValue;
using R = ManifestReason;

/// Collects issues; the helpers return nullptr when a member is absent or of the wrong type
/// (after recording the issue), so each rule reads as one line.
class Checker {
public:
    explicit Checker(ManifestReport& report) : report_(report) {}

    void error(R reason, std::string path, std::string message) {
        report_.issues.push_back(
            {reason, IssueSeverity::error, std::move(path), std::move(message)});
    }
    void warn(R reason, std::string path, std::string message) {
        report_.issues.push_back(
            {reason, IssueSeverity::warning, std::move(path), std::move(message)});
    }

    /// A member that must be a string; `required` reports its absence.
    const std::string* string(const JsonValue& obj, std::string_view key, const std::string& ptr,
                              bool required) {
        const JsonValue* v = obj.find(key);
        if (v == nullptr) {
            if (required) error(R::missing_field, ptr, "required field missing");
            return nullptr;
        }
        if (!v->is_string()) {
            error(R::wrong_json_type, ptr, "must be a string");
            return nullptr;
        }
        return &v->as_string();
    }

private:
    ManifestReport& report_;
};

std::string child(const std::string& ptr, std::string_view key) {
    return ptr + "/" + core::json_pointer_token(key);
}
std::string child(const std::string& ptr, size_t index) { return fmt::format("{}/{}", ptr, index); }

/// Code points of valid UTF-8 (the strict parser rejected invalid UTF-8): non-continuation bytes.
size_t code_points(std::string_view s) noexcept {
    return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U;
    }));
}

/// Unicode general category Cc is U+0000..U+001F and U+007F..U+009F. The C1 range is encoded as
/// C2 80..C2 9F in UTF-8, so a byte scan suffices (no decoding).
bool has_control(std::string_view s, bool allow_whitespace) noexcept {
    for (size_t i = 0; i < s.size(); ++i) {
        const auto b = static_cast<unsigned char>(s[i]);
        if (b < 0x20) {
            if (allow_whitespace && (b == '\n' || b == '\r' || b == '\t')) continue;
            return true;
        }
        if (b == 0x7F) return true;
        if (b == 0xC2 && i + 1 < s.size()) {
            const auto n = static_cast<unsigned char>(s[i + 1]);
            if (n >= 0x80 && n <= 0x9F) return true;
        }
    }
    return false;
}

bool is_lower_hex(std::string_view s) noexcept {
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

/// ^0x([0-9a-f]{2})*$ (or + when `non_empty`).
bool is_hex_bytes(std::string_view s, bool non_empty) noexcept {
    if (!s.starts_with("0x") || s.size() % 2 != 0) return false;
    if (non_empty && s.size() == 2) return false;
    return is_lower_hex(s.substr(2));
}

/// ERC-8257 §2 `tags` grammar: ^[a-z0-9]([a-z0-9-]*[a-z0-9])?$ (the slug grammar of §6).
bool is_tag(std::string_view s) noexcept {
    auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    if (s.empty() || !alnum(s.front()) || !alnum(s.back())) return false;
    return std::all_of(s.begin(), s.end(), [&](char c) { return alnum(c) || c == '-'; });
}

/// Text fields of §2 and §5: NFC is the byte rules' job; here the length in code points and Cc.
void check_text(Checker& c, const std::string& text, const std::string& ptr, size_t max,
                bool allow_whitespace) {
    if (const size_t n = code_points(text); n < 1 || n > max)
        c.error(R::bad_length, ptr, fmt::format("must be 1-{} code points", max));
    if (has_control(text, allow_whitespace))
        c.error(R::control_character, ptr,
                allow_whitespace ? "contains a control character other than LF, CR, TAB"
                                 : "contains a control character (Cc)");
}

/// An URL field that MUST be https (§4 links, §5 attestation / reproducibleBuild URLs).
void check_https(Checker& c, const std::string& url, const std::string& ptr) {
    if (url.size() > kMaxUrlBytes) {
        c.error(R::url_too_long, ptr, fmt::format("longer than {} bytes", kMaxUrlBytes));
        return;
    }
    if (auto u = normalize_https_url(url); !u)
        c.error(R::bad_url, ptr,
                fmt::format("must be an https:// URL ({}: {})", to_string(u.error().code),
                            u.error().detail));
}

// ---- inputs / outputs (§Manifest Parser Hardening) ------------------------------------------

// Every keyword whose value is a subschema, a map of them or an array of them: JSON Schema
// 2020-12 Core §10 (applicators), §8.2.4 ($defs), Validation §8.2.4 (contentSchema), plus the
// draft-07 spellings still met in the wild (`additionalItems`, `definitions`, and `dependencies`,
// whose schema-valued members are walked; its string arrays are not schemas).
// `items` may also be an array (draft-07 tuple form), handled with the array keywords.
constexpr std::array<std::string_view, 12> kSchemaKeywords = {"items",
                                                              "additionalProperties",
                                                              "not",
                                                              "if",
                                                              "then",
                                                              "else",
                                                              "contains",
                                                              "propertyNames",
                                                              "additionalItems",
                                                              "unevaluatedItems",
                                                              "unevaluatedProperties",
                                                              "contentSchema"};
constexpr std::array<std::string_view, 6> kSchemaMapKeywords = {
    "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"};
constexpr std::array<std::string_view, 4> kSchemaArrayKeywords = {"allOf", "anyOf", "oneOf",
                                                                  "prefixItems"};

template <size_t N>
bool in(const std::array<std::string_view, N>& set, std::string_view key) noexcept {
    return std::find(set.begin(), set.end(), key) != set.end();
}

struct SchemaWalk {
    Checker& c;
    size_t nodes = 0;
    bool depth_reported = false;
    bool nodes_reported = false;

    /// Each object schema is one node (§2: `{}` counts as 1); depth 1 is the root. Boolean schemas
    /// are leaves and not counted. Stops descending once a cap is hit, so a hostile schema costs
    /// at most the caps.
    void walk(const JsonValue& schema, size_t depth, const std::string& ptr) {
        if (!schema.is_object() || nodes_reported) return;
        ++nodes;
        if (depth > kMaxSchemaDepth) {
            if (!depth_reported)
                c.error(R::schema_too_deep, ptr,
                        fmt::format("schema deeper than {}", kMaxSchemaDepth));
            depth_reported = true;
            return;
        }
        if (nodes > kMaxSchemaNodes) {
            c.error(R::too_many_schema_nodes, ptr,
                    fmt::format("inputs + outputs exceed {} schema nodes", kMaxSchemaNodes));
            nodes_reported = true;
            return;
        }
        for (const auto& m : schema.as_object()) {
            if (m.key == "$ref" && m.value.is_string() && !m.value.as_string().starts_with("#"))
                // §Remote $ref: consumers MUST NOT resolve it (we never do); flag it.
                c.warn(R::remote_ref, child(ptr, m.key), "non-local $ref (never resolved)");
            const bool single = in(kSchemaKeywords, m.key);
            const bool map = in(kSchemaMapKeywords, m.key);
            const bool array = in(kSchemaArrayKeywords, m.key);
            if (single && m.value.is_object()) {
                walk(m.value, depth + 1, child(ptr, m.key));
            } else if ((array || m.key == "items") && m.value.is_array()) {
                size_t i = 0;
                for (const auto& sub : m.value.as_array())
                    walk(sub, depth + 1, child(child(ptr, m.key), i++));
            } else if (map && m.value.is_object()) {
                for (const auto& sub : m.value.as_object())
                    walk(sub.value, depth + 1, child(child(ptr, m.key), sub.key));
            }
        }
    }
};

// ---- §3 Pricing ------------------------------------------------------------------------------

void check_pricing(Checker& c, const JsonValue& pricing) {
    // §3 Constraints: absent or a non-empty array; null is rejected.
    if (!pricing.is_array() || pricing.as_array().empty()) {
        c.error(pricing.is_array() || pricing.is_null() ? R::empty_array : R::wrong_json_type,
                "/pricing", "must be a non-empty array");
        return;
    }
    const auto& entries = pricing.as_array();
    if (entries.size() > kMaxPricingEntries)
        c.error(R::too_many_entries, "/pricing",
                fmt::format("more than {} entries", kMaxPricingEntries));
    for (size_t i = 0; i < entries.size() && i < kMaxPricingEntries; ++i) {
        const std::string ptr = child("/pricing", i);
        const JsonValue& e = entries[i];
        if (!e.is_object()) {
            c.error(R::not_an_object, ptr, "must be an object");
            continue;
        }
        // §3: all four fields are REQUIRED.
        const std::string* amount = c.string(e, "amount", ptr + "/amount", true);
        const std::string* asset = c.string(e, "asset", ptr + "/asset", true);
        const std::string* recipient = c.string(e, "recipient", ptr + "/recipient", true);
        (void)c.string(e, "protocol", ptr + "/protocol", true);
        if (amount != nullptr) {
            // ^(0|[1-9][0-9]*)$, at most 78 characters, at most 2^256 - 1.
            const bool digits = !amount->empty() &&
                                std::all_of(amount->begin(), amount->end(),
                                            [](char ch) { return ch >= '0' && ch <= '9'; }) &&
                                (*amount == "0" || amount->front() != '0');
            if (!digits || amount->size() > 78 || !core::Uint256::from_dec(*amount))
                c.error(R::bad_amount, ptr + "/amount",
                        "must match ^(0|[1-9][0-9]*)$ within uint256");
        }
        const bool asset_ok = asset != nullptr && core::parse_asset_id(*asset).has_value();
        if (asset != nullptr && !asset_ok)
            c.error(R::bad_asset, ptr + "/asset", "not a CAIP-19 asset id");
        std::optional<core::AccountId> account;
        if (recipient != nullptr) {
            if (auto a = core::parse_account_id(*recipient)) {
                account = std::move(*a);
            } else {
                c.error(R::bad_recipient, ptr + "/recipient", "not a CAIP-10 account id");
            }
        }
        if (asset_ok && account) {
            // §3 Constraints pseudocode: text before "/" vs text before the last ":".
            const std::string_view asset_chain =
                std::string_view(*asset).substr(0, asset->find('/'));
            const std::string_view recipient_chain =
                std::string_view(*recipient).substr(0, recipient->rfind(':'));
            if (asset_chain != recipient_chain)
                c.error(R::chain_mismatch, ptr,
                        fmt::format("asset chain {} differs from recipient chain {}", asset_chain,
                                    recipient_chain));
        }
        if (account) {
            // §3 recipient: "MUST NOT be the zero address" (an all-zero 0x… reference).
            const std::string_view ref = account->address;
            if (ref.starts_with("0x") && ref.size() > 2 &&
                ref.find_first_not_of('0', 2) == std::string_view::npos)
                c.error(R::bad_recipient, ptr + "/recipient", "must not be the zero address");
        }
    }
}

// ---- §4 Access -------------------------------------------------------------------------------

void check_access(Checker& c, const JsonValue& access) {
    if (!access.is_object()) {
        c.error(R::not_an_object, "/access", "must be an object");
        return;
    }
    if (const JsonValue* logic = access.find("logic");
        logic != nullptr &&
        (!logic->is_string() || (logic->as_string() != "AND" && logic->as_string() != "OR")))
        c.error(R::bad_logic, "/access/logic", "must be \"AND\" or \"OR\"");
    // §4: requirements MUST be present and non-empty ([] and null rejected).
    const JsonValue* reqs = access.find("requirements");
    if (reqs == nullptr) {
        c.error(R::missing_field, "/access/requirements", "required field missing");
        return;
    }
    if (!reqs->is_array() || reqs->as_array().empty()) {
        c.error(reqs->is_array() || reqs->is_null() ? R::empty_array : R::wrong_json_type,
                "/access/requirements", "must be a non-empty array");
        return;
    }
    const auto& list = reqs->as_array();
    if (list.size() > kMaxRequirements)
        c.error(R::too_many_entries, "/access/requirements",
                fmt::format("more than {} entries", kMaxRequirements));
    for (size_t i = 0; i < list.size() && i < kMaxRequirements; ++i) {
        const std::string ptr = child("/access/requirements", i);
        const JsonValue& r = list[i];
        if (!r.is_object()) {
            c.error(R::not_an_object, ptr, "must be an object");
            continue;
        }
        // kind, data, label mirror the onchain AccessRequirement struct (§1), all three present.
        if (const std::string* kind = c.string(r, "kind", ptr + "/kind", true);
            kind != nullptr && (kind->size() != 10 || !is_hex_bytes(*kind, true)))
            c.error(R::bad_kind, ptr + "/kind", "must match ^0x[0-9a-f]{8}$");
        if (const std::string* data = c.string(r, "data", ptr + "/data", true)) {
            if (!is_hex_bytes(*data, false))
                c.error(R::bad_data, ptr + "/data", "must match ^0x([0-9a-f]{2})*$");
            else if ((data->size() - 2) / 2 > kMaxRequirementDataBytes)
                c.error(R::data_too_large, ptr + "/data",
                        fmt::format("more than {} bytes", kMaxRequirementDataBytes));
        }
        if (const std::string* label = c.string(r, "label", ptr + "/label", true);
            label != nullptr && label->size() > kMaxLabelBytes)
            c.error(R::bad_length, ptr + "/label",
                    fmt::format("longer than {} bytes", kMaxLabelBytes));
        if (const JsonValue* links = r.find("links")) {
            if (!links->is_object()) {
                c.error(R::not_an_object, ptr + "/links", "must be an object");
                continue;
            }
            for (const auto& l : links->as_object()) {
                const std::string lp = child(ptr + "/links", l.key);
                if (l.key.size() > kMaxUrlBytes) c.error(R::url_too_long, lp, "key too long");
                if (!l.value.is_string()) {
                    c.error(R::wrong_json_type, lp, "must be a string");
                    continue;
                }
                check_https(c, l.value.as_string(), lp);
            }
        }
    }
}

// ---- §5 Verifiability ------------------------------------------------------------------------

std::optional<TrustTier> parse_tier(std::string_view s) {
    if (s == "self-attested") return TrustTier::self_attested;
    if (s == "hardware-attested") return TrustTier::hardware_attested;
    if (s == "verifiable") return TrustTier::verifiable;
    return std::nullopt;
}

/// §5 Execution Tiers: vendor values are reverse-DNS ("io.phala.tee-sidevm").
bool is_reverse_dns(std::string_view s) {
    return s.find('.') != std::string_view::npos && !s.starts_with('.') && !s.ends_with('.');
}

void check_enum(Checker& c, const JsonValue& obj, std::string_view key,
                std::initializer_list<std::string_view> values) {
    const std::string ptr = child("/verifiability", key);
    if (const std::string* v = c.string(obj, key, ptr, false);
        v != nullptr && std::find(values.begin(), values.end(), *v) == values.end())
        c.warn(R::unknown_value, ptr, fmt::format("\"{}\" is not a value §5 defines", *v));
}

void check_verifiability(Checker& c, const JsonValue& v, ManifestReport& report) {
    const std::string base = "/verifiability";
    if (!v.is_object()) {
        c.error(R::not_an_object, base, "must be an object");
        return;
    }
    const std::string* tier_text = c.string(v, "tier", base + "/tier", true);
    const std::string* execution = c.string(v, "execution", base + "/execution", true);
    if (const std::string* d = c.string(v, "description", base + "/description", false))
        check_text(c, *d, base + "/description", kMaxDescriptionCodePoints, true);
    check_enum(c, v, "dataRetention", {"full", "metadata-only", "ephemeral", "none"});
    check_enum(c, v, "sourceVisibility", {"open-source", "audited", "proprietary"});

    std::optional<TrustTier> tier;
    if (tier_text != nullptr) {
        tier = parse_tier(*tier_text);
        if (!tier)
            c.warn(R::unknown_value, base + "/tier",
                   fmt::format("\"{}\" is not a tier §5 defines", *tier_text));
    }
    bool isolated = false;  // tee / e2ee; unknown values count as "standard" (§5 Execution Tiers)
    if (execution != nullptr) {
        isolated = *execution == "tee" || *execution == "e2ee";
        if (!isolated && *execution != "standard" && !is_reverse_dns(*execution))
            c.warn(R::unknown_value, base + "/execution",
                   fmt::format("\"{}\" is neither a §5 value nor a reverse-DNS extension",
                               *execution));
    }

    const JsonValue* attestation = v.find("attestation");
    if (attestation != nullptr) {
        const std::string ap = base + "/attestation";
        if (!attestation->is_object()) {
            c.error(R::not_an_object, ap, "must be an object");
            attestation = nullptr;
        } else {
            (void)c.string(*attestation, "type", ap + "/type", true);
            if (const std::string* e = c.string(*attestation, "endpoint", ap + "/endpoint", false))
                check_https(c, *e, ap + "/endpoint");
            if (const std::string* h =
                    c.string(*attestation, "enclaveHash", ap + "/enclaveHash", false);
                h != nullptr && !is_hex_bytes(*h, true))
                c.error(R::bad_hex, ap + "/enclaveHash", "must match ^0x([0-9a-f]{2})+$");
            if (const JsonValue* age = attestation->find("maxAge");
                age != nullptr && !core::json_uint256(*age))
                c.error(R::bad_integer, ap + "/maxAge", "must be a non-negative integer");
            if (const std::string* t =
                    c.string(*attestation, "transparencyLogURI", ap + "/transparencyLogURI", false))
                check_https(c, *t, ap + "/transparencyLogURI");
        }
    }
    const JsonValue* build = v.find("reproducibleBuild");
    if (build != nullptr) {
        const std::string bp = base + "/reproducibleBuild";
        if (!build->is_object()) {
            c.error(R::not_an_object, bp, "must be an object");
            build = nullptr;
        } else {
            if (const std::string* s =
                    c.string(*build, "sourceCodeURI", bp + "/sourceCodeURI", true))
                check_https(c, *s, bp + "/sourceCodeURI");
            (void)c.string(*build, "buildInstructions", bp + "/buildInstructions", false);
            if (const std::string* h = c.string(*build, "buildHash", bp + "/buildHash", false);
                h != nullptr && !is_hex_bytes(*h, true))
                c.error(R::bad_hex, bp + "/buildHash", "must match ^0x([0-9a-f]{2})+$");
        }
    }

    // §5 Trust Tiers: the three inconsistencies, flagged (SHOULD flag), and the effective tier:
    // "the lower of the declared tier and the tier supported by the structured fields".
    const bool has_attestation = attestation != nullptr;
    const bool has_build = build != nullptr;
    TrustTier supported = TrustTier::self_attested;
    if (isolated && has_attestation)
        supported = has_build ? TrustTier::verifiable : TrustTier::hardware_attested;
    if (tier && execution != nullptr) {
        const std::string tp = base + "/tier";
        switch (*tier) {
            case TrustTier::verifiable:
                if (!has_attestation || !has_build)
                    c.warn(R::inconsistent_tier, tp,
                           "\"verifiable\" without attestation and reproducibleBuild");
                break;
            case TrustTier::hardware_attested:
                if (*execution == "standard")
                    c.warn(R::inconsistent_tier, tp,
                           "\"hardware-attested\" with execution \"standard\"");
                if (!has_attestation)
                    c.warn(R::inconsistent_tier, tp, "\"hardware-attested\" without attestation");
                break;
            case TrustTier::self_attested:
                if (isolated)
                    c.warn(R::inconsistent_tier, tp,
                           fmt::format("\"self-attested\" with execution \"{}\"", *execution));
                if (has_attestation)
                    c.warn(R::inconsistent_tier, tp, "\"self-attested\" with an attestation");
                break;
        }
        report.declared_tier = tier;
        report.effective_tier = std::min(*tier, supported);
    }
}

// ---- top level -------------------------------------------------------------------------------

constexpr std::array<std::string_view, 14> kKnownFields = {
    "type",    "name",  "description",   "endpoint", "inputs",  "outputs", "creatorAddress",
    "version", "image", "featuredImage", "tags",     "pricing", "access",  "verifiability"};

/// §Rendering Manifest Content: "Consumers MUST NOT accept javascript:, file:, data:text/html,
/// or vbscript: URIs for a tool image".
bool forbidden_image_scheme(std::string_view url) {
    std::string lower(url.substr(0, 16));
    std::transform(lower.begin(), lower.end(), lower.begin(), [](char ch) {
        return (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch - 'A' + 'a') : ch;
    });
    return lower.starts_with("javascript:") || lower.starts_with("file:") ||
           lower.starts_with("vbscript:") || lower.starts_with("data:text/html");
}

}  // namespace

std::string_view to_string(ManifestReason r) noexcept {
    switch (r) {
        case R::not_an_object:
            return "not_an_object";
        case R::missing_field:
            return "missing_field";
        case R::wrong_json_type:
            return "wrong_json_type";
        case R::unknown_type:
            return "unknown_type";
        case R::bad_length:
            return "bad_length";
        case R::control_character:
            return "control_character";
        case R::bad_tag:
            return "bad_tag";
        case R::too_many_tags:
            return "too_many_tags";
        case R::duplicate_tag:
            return "duplicate_tag";
        case R::bad_url:
            return "bad_url";
        case R::url_not_normalized:
            return "url_not_normalized";
        case R::url_too_long:
            return "url_too_long";
        case R::forbidden_scheme:
            return "forbidden_scheme";
        case R::bad_creator_address:
            return "bad_creator_address";
        case R::zero_creator_address:
            return "zero_creator_address";
        case R::empty_array:
            return "empty_array";
        case R::too_many_entries:
            return "too_many_entries";
        case R::bad_amount:
            return "bad_amount";
        case R::bad_asset:
            return "bad_asset";
        case R::bad_recipient:
            return "bad_recipient";
        case R::chain_mismatch:
            return "chain_mismatch";
        case R::bad_logic:
            return "bad_logic";
        case R::bad_kind:
            return "bad_kind";
        case R::bad_data:
            return "bad_data";
        case R::data_too_large:
            return "data_too_large";
        case R::bad_hex:
            return "bad_hex";
        case R::bad_integer:
            return "bad_integer";
        case R::schema_too_deep:
            return "schema_too_deep";
        case R::too_many_schema_nodes:
            return "too_many_schema_nodes";
        case R::unknown_value:
            return "unknown_value";
        case R::inconsistent_tier:
            return "inconsistent_tier";
        case R::unknown_field:
            return "unknown_field";
        case R::remote_ref:
            return "remote_ref";
    }
    return "unknown";
}

std::string_view to_string(TrustTier t) noexcept {
    switch (t) {
        case TrustTier::self_attested:
            return "self-attested";
        case TrustTier::hardware_attested:
            return "hardware-attested";
        case TrustTier::verifiable:
            return "verifiable";
    }
    return "unknown";
}

bool ManifestReport::ok() const noexcept { return error_count() == 0; }

size_t ManifestReport::error_count() const noexcept {
    return static_cast<size_t>(std::count_if(issues.begin(), issues.end(), [](const auto& i) {
        return i.severity == IssueSeverity::error;
    }));
}

const ManifestIssue* ManifestReport::first_error() const noexcept {
    for (const auto& i : issues)
        if (i.severity == IssueSeverity::error) return &i;
    return nullptr;
}

ManifestReport validate_manifest(const JsonValue& manifest) {
    ManifestReport report;
    Checker c(report);
    if (!manifest.is_object()) {
        c.error(R::not_an_object, "", "must be a JSON object");
        return report;
    }

    // §2: consumers SHOULD reject an unknown or missing `type`; we do.
    if (const std::string* type = c.string(manifest, "type", "/type", true);
        type != nullptr && *type != kToolManifestTypeV1)
        c.error(R::unknown_type, "/type",
                fmt::format("unknown manifest type (expected {})", kToolManifestTypeV1));

    if (const std::string* name = c.string(manifest, "name", "/name", true))
        check_text(c, *name, "/name", kMaxNameCodePoints, false);
    if (const std::string* d = c.string(manifest, "description", "/description", true))
        check_text(c, *d, "/description", kMaxDescriptionCodePoints, true);

    // §2 endpoint: https after G1-G3, and stored already normalized.
    if (const std::string* endpoint = c.string(manifest, "endpoint", "/endpoint", true)) {
        auto url = normalize_https_url(*endpoint);
        if (!url)
            c.error(R::bad_url, "/endpoint",
                    fmt::format("must be an https:// URL ({}: {})", to_string(url.error().code),
                                url.error().detail));
        else if (url->normalized != *endpoint)
            c.error(R::url_not_normalized, "/endpoint",
                    fmt::format("not in §6 normalized form (G1-G3): {}", url->normalized));
        else if (endpoint->size() > kMaxUrlBytes)
            c.error(R::url_too_long, "/endpoint",
                    fmt::format("longer than {} bytes", kMaxUrlBytes));
    }

    SchemaWalk walk{c};
    for (const char* key : {"inputs", "outputs"}) {
        const std::string ptr = std::string("/") + key;
        const JsonValue* schema = manifest.find(key);
        if (schema == nullptr) {
            c.error(R::missing_field, ptr, "required field missing");
        } else if (!schema->is_object()) {
            c.error(R::not_an_object, ptr, "must be an object (a JSON Schema)");
        } else {
            walk.walk(*schema, 1, ptr);
        }
    }
    report.schema_nodes = walk.nodes;

    // §2 / §7: ^0x[0-9a-f]{40}$ and not the zero address.
    if (const std::string* creator =
            c.string(manifest, "creatorAddress", "/creatorAddress", true)) {
        if (creator->size() != 42 || !creator->starts_with("0x") ||
            !is_lower_hex(std::string_view(*creator).substr(2))) {
            c.error(R::bad_creator_address, "/creatorAddress", "must match ^0x[0-9a-f]{40}$");
        } else if (creator->find_first_not_of('0', 2) == std::string::npos) {
            c.error(R::zero_creator_address, "/creatorAddress", "must not be the zero address");
        } else if (auto a = core::Address::from_hex(*creator)) {
            report.creator = *a;
        }
    }

    (void)c.string(manifest, "version", "/version", false);
    for (const char* key : {"image", "featuredImage"}) {
        const std::string ptr = std::string("/") + key;
        if (const std::string* url = c.string(manifest, key, ptr, false)) {
            if (forbidden_image_scheme(*url))
                c.error(R::forbidden_scheme, ptr,
                        "javascript:, file:, vbscript: and data:text/html are not images");
            // §2: at most 2,048 bytes after URL normalization (normalization never lengthens).
            const auto normalized = normalize_https_url(*url);
            const size_t size = normalized ? normalized->normalized.size() : url->size();
            if (size > kMaxUrlBytes)
                c.error(R::url_too_long, ptr, fmt::format("longer than {} bytes", kMaxUrlBytes));
        }
    }

    if (const JsonValue* tags = manifest.find("tags")) {
        if (!tags->is_array()) {
            c.error(R::wrong_json_type, "/tags", "must be an array");
        } else {
            if (tags->as_array().size() > kMaxTags)
                c.error(R::too_many_tags, "/tags", fmt::format("more than {} tags", kMaxTags));
            std::set<std::string_view> seen;
            size_t i = 0;
            for (const auto& t : tags->as_array()) {
                const std::string ptr = child("/tags", i++);
                if (!t.is_string()) {
                    c.error(R::wrong_json_type, ptr, "must be a string");
                    continue;
                }
                const std::string& tag = t.as_string();
                if (!is_tag(tag) || code_points(tag) > kMaxTagCodePoints)
                    c.error(R::bad_tag, ptr,
                            "must match ^[a-z0-9]([a-z0-9-]*[a-z0-9])?$ (1-32 characters)");
                else if (!seen.insert(tag).second)
                    c.error(R::duplicate_tag, ptr, "duplicate tag");
            }
        }
    }
    if (const JsonValue* pricing = manifest.find("pricing")) check_pricing(c, *pricing);
    if (const JsonValue* access = manifest.find("access")) check_access(c, *access);
    if (const JsonValue* v = manifest.find("verifiability")) check_verifiability(c, *v, report);

    // §2 Unknown Fields: ignored; bare names are flagged since extensions SHOULD be namespaced
    // (reverse-DNS "io.example.x", or the tolerated "x-" prefix).
    for (const auto& m : manifest.as_object()) {
        if (in(kKnownFields, m.key) || m.key.starts_with("x-") ||
            m.key.find('.') != std::string::npos || m.key == "maxAge")
            continue;
        c.warn(R::unknown_field, child("", m.key),
               "unknown bare top-level field (ignored; extensions should be namespaced)");
    }
    return report;
}

}  // namespace credence::verify
