#include <credence/cmd/tool_manifest.hpp>

#include <algorithm>
#include <cstddef>
#include <set>
#include <string_view>

#include <fmt/core.h>

#include <credence/cmd/commands.hpp>
#include <credence/cmd/util.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/caip.hpp>
#include <credence/core/uint256.hpp>
#include <credence/core/unicode.hpp>

namespace credence::cmd {
namespace {

using core::JsonValue;

// ERC-8257 §Manifest Parser Hardening.
constexpr size_t kMaxPricing = 32;
constexpr size_t kMaxRequirements = 256;
constexpr size_t kMaxRequirementDataBytes = 4096;
constexpr size_t kMaxSchemaDepth = 16;
constexpr size_t kMaxSchemaNodes = 1024;
// ERC-8257 §2 Optional Fields / §4 Access: URL and label caps in UTF-8 bytes.
constexpr size_t kMaxUrlBytes = 2048;
constexpr size_t kMaxLabelBytes = 256;
constexpr size_t kMaxTags = 16;

/// Collects the source name so every message starts with it.
class Checker {
public:
    explicit Checker(const std::string& source) : source_(source) {}

    [[noreturn]] void fail(std::string_view pointer, std::string_view why) const {
        throw CliError(fmt::format("{}: invalid manifest: {}: {}", source_, pointer, why));
    }

    const JsonValue& require(const JsonValue& obj, std::string_view key, std::string_view ptr) {
        const JsonValue* v = obj.find(key);
        if (v == nullptr) fail(ptr, "required field missing");
        return *v;
    }
    const std::string& string_at(const JsonValue& v, std::string_view ptr) {
        if (!v.is_string()) fail(ptr, "must be a string");
        return v.as_string();
    }

private:
    const std::string& source_;
};

size_t code_points(const std::string& s) {
    // The strict parser already rejected invalid UTF-8; count non-continuation bytes.
    return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U;
    }));
}

/// Unicode general category Cc: U+0000..U+001F and U+007F..U+009F.
bool has_control(const std::string& s, bool allow_whitespace) {
    auto cps = core::utf8_to_code_points(s);
    if (!cps) return true;
    return std::any_of(cps->begin(), cps->end(), [&](char32_t c) {
        const bool cc = c < 0x20 || (c >= 0x7F && c <= 0x9F);
        if (!cc) return false;
        return !(allow_whitespace && (c == U'\n' || c == U'\r' || c == U'\t'));
    });
}

bool is_lower_hex(std::string_view s) {
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

/// ERC-8257 §2 `tags` grammar: ^[a-z0-9]([a-z0-9-]*[a-z0-9])?$
bool is_tag(std::string_view s) {
    auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    if (s.empty() || !alnum(s.front()) || !alnum(s.back())) return false;
    return std::all_of(s.begin(), s.end(), [&](char c) { return alnum(c) || c == '-'; });
}

/// An https:// URL (ERC-8257 §2 endpoint, §4 links): the scheme must already be lowercase
/// (§6 rule G1) and a host must follow.
bool is_https_url(std::string_view s) {
    constexpr std::string_view kPrefix = "https://";
    if (!s.starts_with(kPrefix)) return false;
    const std::string_view rest = s.substr(kPrefix.size());
    return !rest.empty() && rest.front() != '/' && rest.front() != ':';
}

// JSON Schema keywords whose value is a subschema, a map of subschemas, or an array of them,
// used to count schema nodes and depth (ERC-8257 §Manifest Parser Hardening).
constexpr std::string_view kSchemaKeywords[] = {"items",
                                                "additionalProperties",
                                                "not",
                                                "if",
                                                "then",
                                                "else",
                                                "contains",
                                                "propertyNames",
                                                "additionalItems",
                                                "unevaluatedItems",
                                                "unevaluatedProperties"};
constexpr std::string_view kSchemaMapKeywords[] = {"properties", "patternProperties", "$defs",
                                                   "definitions", "dependentSchemas"};
constexpr std::string_view kSchemaArrayKeywords[] = {"allOf", "anyOf", "oneOf", "prefixItems"};

void count_schema(const JsonValue& schema, size_t depth, size_t& nodes, const Checker& c,
                  const std::string& ptr) {
    if (!schema.is_object()) return;  // boolean schemas are leaves and not counted
    ++nodes;
    if (depth > kMaxSchemaDepth) c.fail(ptr, fmt::format("schema deeper than {}", kMaxSchemaDepth));
    if (nodes > kMaxSchemaNodes)
        c.fail(ptr, fmt::format("inputs + outputs exceed {} schema nodes", kMaxSchemaNodes));
    for (const auto& m : schema.as_object()) {
        const std::string child = ptr + "/" + m.key;
        const bool single = std::find(std::begin(kSchemaKeywords), std::end(kSchemaKeywords),
                                      m.key) != std::end(kSchemaKeywords);
        const bool map = std::find(std::begin(kSchemaMapKeywords), std::end(kSchemaMapKeywords),
                                   m.key) != std::end(kSchemaMapKeywords);
        const bool array =
            std::find(std::begin(kSchemaArrayKeywords), std::end(kSchemaArrayKeywords), m.key) !=
            std::end(kSchemaArrayKeywords);
        if (single && m.value.is_object()) {
            count_schema(m.value, depth + 1, nodes, c, child);
        } else if ((array || m.key == "items") && m.value.is_array()) {
            size_t i = 0;
            for (const auto& sub : m.value.as_array())
                count_schema(sub, depth + 1, nodes, c, fmt::format("{}/{}", child, i++));
        } else if (map && m.value.is_object()) {
            for (const auto& sub : m.value.as_object())
                count_schema(sub.value, depth + 1, nodes, c, child + "/" + sub.key);
        }
    }
}

void check_pricing(const JsonValue& pricing, Checker& c) {
    // ERC-8257 §3 Constraints: absent or a non-empty array; null is rejected.
    if (!pricing.is_array()) c.fail("/pricing", "must be a non-empty array");
    const auto& entries = pricing.as_array();
    if (entries.empty()) c.fail("/pricing", "must be a non-empty array");
    if (entries.size() > kMaxPricing)
        c.fail("/pricing", fmt::format("more than {} entries", kMaxPricing));
    for (size_t i = 0; i < entries.size(); ++i) {
        const std::string ptr = fmt::format("/pricing/{}", i);
        const JsonValue& e = entries[i];
        if (!e.is_object()) c.fail(ptr, "must be an object");
        const std::string& amount =
            c.string_at(c.require(e, "amount", ptr + "/amount"), ptr + "/amount");
        const std::string& asset =
            c.string_at(c.require(e, "asset", ptr + "/asset"), ptr + "/asset");
        const std::string& recipient =
            c.string_at(c.require(e, "recipient", ptr + "/recipient"), ptr + "/recipient");
        (void)c.string_at(c.require(e, "protocol", ptr + "/protocol"), ptr + "/protocol");
        // amount: ^(0|[1-9][0-9]*)$, at most 78 characters, at most 2^256 - 1.
        const bool digits = !amount.empty() &&
                            std::all_of(amount.begin(), amount.end(),
                                        [](char ch) { return ch >= '0' && ch <= '9'; }) &&
                            (amount == "0" || amount.front() != '0');
        if (!digits || amount.size() > 78 || !core::Uint256::from_dec(amount))
            c.fail(ptr + "/amount", "must match ^(0|[1-9][0-9]*)$ within uint256");
        auto asset_id = core::parse_asset_id(asset);
        if (!asset_id) c.fail(ptr + "/asset", "not a CAIP-19 asset id");
        auto account = core::parse_account_id(recipient);
        if (!account) c.fail(ptr + "/recipient", "not a CAIP-10 account id");
        // The chain prefixes must be identical (§3 Constraints, the pseudocode's comparison).
        const auto asset_chain = asset.substr(0, asset.find('/'));
        const auto recipient_chain = recipient.substr(0, recipient.rfind(':'));
        if (asset_chain != recipient_chain)
            c.fail(ptr, fmt::format("asset chain {} differs from recipient chain {}", asset_chain,
                                    recipient_chain));
        if (recipient.starts_with("eip155:")) {
            const std::string_view ref =
                std::string_view(recipient).substr(recipient.rfind(':') + 1);
            if (ref.starts_with("0x") && ref.find_first_not_of('0', 2) == std::string_view::npos)
                c.fail(ptr + "/recipient", "must not be the zero address");
        }
    }
}

void check_access(const JsonValue& access, Checker& c) {
    if (!access.is_object()) c.fail("/access", "must be an object");
    const JsonValue* logic = access.find("logic");
    if (logic != nullptr &&
        (!logic->is_string() || (logic->as_string() != "AND" && logic->as_string() != "OR")))
        c.fail("/access/logic", "must be \"AND\" or \"OR\"");
    const JsonValue& reqs = c.require(access, "requirements", "/access/requirements");
    if (!reqs.is_array() || reqs.as_array().empty())
        c.fail("/access/requirements", "must be a non-empty array");
    if (reqs.as_array().size() > kMaxRequirements)
        c.fail("/access/requirements", fmt::format("more than {} entries", kMaxRequirements));
    size_t i = 0;
    for (const auto& r : reqs.as_array()) {
        const std::string ptr = fmt::format("/access/requirements/{}", i++);
        if (!r.is_object()) c.fail(ptr, "must be an object");
        const std::string& kind = c.string_at(c.require(r, "kind", ptr + "/kind"), ptr + "/kind");
        if (kind.size() != 10 || !kind.starts_with("0x") || !is_lower_hex(kind.substr(2)))
            c.fail(ptr + "/kind", "must match ^0x[0-9a-f]{8}$");
        const std::string& data = c.string_at(c.require(r, "data", ptr + "/data"), ptr + "/data");
        if (!data.starts_with("0x") || data.size() % 2 != 0 || !is_lower_hex(data.substr(2)))
            c.fail(ptr + "/data", "must match ^0x([0-9a-f]{2})*$");
        if ((data.size() - 2) / 2 > kMaxRequirementDataBytes)
            c.fail(ptr + "/data", fmt::format("more than {} bytes", kMaxRequirementDataBytes));
        const std::string& label =
            c.string_at(c.require(r, "label", ptr + "/label"), ptr + "/label");
        if (label.size() > kMaxLabelBytes)
            c.fail(ptr + "/label", fmt::format("longer than {} bytes", kMaxLabelBytes));
        if (const JsonValue* links = r.find("links")) {
            if (!links->is_object()) c.fail(ptr + "/links", "must be an object");
            for (const auto& l : links->as_object()) {
                const std::string lp = ptr + "/links/" + l.key;
                if (l.key.size() > kMaxUrlBytes) c.fail(lp, "key too long");
                const std::string& url = c.string_at(l.value, lp);
                if (!is_https_url(url) || url.size() > kMaxUrlBytes)
                    c.fail(lp, fmt::format("must be an https:// URL of at most {} bytes",
                                           kMaxUrlBytes));
            }
        }
    }
}

}  // namespace

void check_manifest_fields(const JsonValue& manifest, const std::string& source) {
    Checker c(source);
    if (!manifest.is_object()) c.fail("", "must be a JSON object");

    // ERC-8257 §2: consumers SHOULD reject an unknown `type`; as the producer we emit only v1.
    const std::string& type = c.string_at(c.require(manifest, "type", "/type"), "/type");
    if (type != kToolManifestTypeV1)
        c.fail("/type", fmt::format("unknown manifest type (expected {})", kToolManifestTypeV1));

    const std::string& name = c.string_at(c.require(manifest, "name", "/name"), "/name");
    if (const size_t n = code_points(name); n < 1 || n > 128)
        c.fail("/name", "must be 1-128 code points");
    if (has_control(name, false)) c.fail("/name", "contains a control character (Cc)");

    const std::string& description =
        c.string_at(c.require(manifest, "description", "/description"), "/description");
    if (const size_t n = code_points(description); n < 1 || n > 500)
        c.fail("/description", "must be 1-500 code points");
    if (has_control(description, true))
        c.fail("/description", "contains a control character other than LF, CR, TAB");

    const std::string& endpoint =
        c.string_at(c.require(manifest, "endpoint", "/endpoint"), "/endpoint");
    if (!is_https_url(endpoint)) c.fail("/endpoint", "must be an https:// URL");

    size_t nodes = 0;
    for (const char* key : {"inputs", "outputs"}) {
        const std::string ptr = std::string("/") + key;
        const JsonValue& schema = c.require(manifest, key, ptr);
        if (!schema.is_object()) c.fail(ptr, "must be an object (a JSON Schema)");
        count_schema(schema, 1, nodes, c, ptr);
    }

    // ERC-8257 §7: ^0x[0-9a-f]{40}$ and not the zero address.
    const std::string& creator =
        c.string_at(c.require(manifest, "creatorAddress", "/creatorAddress"), "/creatorAddress");
    if (creator.size() != 42 || !creator.starts_with("0x") || !is_lower_hex(creator.substr(2)))
        c.fail("/creatorAddress", "must match ^0x[0-9a-f]{40}$");
    if (creator.find_first_not_of('0', 2) == std::string::npos)
        c.fail("/creatorAddress", "must not be the zero address");

    if (const JsonValue* v = manifest.find("version")) (void)c.string_at(*v, "/version");
    for (const char* key : {"image", "featuredImage"}) {
        if (const JsonValue* v = manifest.find(key)) {
            const std::string ptr = std::string("/") + key;
            if (c.string_at(*v, ptr).size() > kMaxUrlBytes)
                c.fail(ptr, fmt::format("longer than {} bytes", kMaxUrlBytes));
        }
    }
    if (const JsonValue* tags = manifest.find("tags")) {
        if (!tags->is_array()) c.fail("/tags", "must be an array");
        if (tags->as_array().size() > kMaxTags)
            c.fail("/tags", fmt::format("more than {} tags", kMaxTags));
        std::set<std::string, std::less<>> seen;
        size_t i = 0;
        for (const auto& t : tags->as_array()) {
            const std::string ptr = fmt::format("/tags/{}", i++);
            const std::string& tag = c.string_at(t, ptr);
            if (!is_tag(tag) || tag.size() > 32)
                c.fail(ptr, "must match ^[a-z0-9]([a-z0-9-]*[a-z0-9])?$ (1-32 characters)");
            if (!seen.insert(tag).second) c.fail(ptr, "duplicate tag");
        }
    }
    if (const JsonValue* pricing = manifest.find("pricing")) check_pricing(*pricing, c);
    if (const JsonValue* access = manifest.find("access")) check_access(*access, c);
    if (const JsonValue* v = manifest.find("verifiability"); v != nullptr && !v->is_object())
        c.fail("/verifiability", "must be an object");
}

core::CanonicalManifest canonical_manifest_bytes(const std::string& bytes,
                                                 const std::string& source) {
    return must(core::canonicalize_manifest(core::as_bytes(bytes)), source);
}

ToolManifest load_tool_manifest(const std::string& path) {
    const std::string bytes = read_input(path);
    ToolManifest m;
    m.source = path;
    m.canonical = canonical_manifest_bytes(bytes, path);
    check_manifest_fields(m.canonical.document, path);
    const JsonValue* creator = m.canonical.document.find("creatorAddress");
    m.creator = must(core::Address::from_hex(creator->as_string()), path + ": creatorAddress");
    return m;
}

}  // namespace credence::cmd
