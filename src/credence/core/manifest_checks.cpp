#include <credence/core/manifest_checks.hpp>

#include <vector>

#include <credence/core/jcs.hpp>
#include <credence/core/keccak.hpp>
#include <credence/core/unicode.hpp>

namespace credence::core {

namespace {

// JSON Pointer (RFC 6901) escaping of one reference token, for error details.
std::string pointer_token(std::string_view key) {
    std::string out;
    for (const char c : key) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out.push_back(c);
    }
    return out;
}

// Depth is bounded by the parser's max_depth, so plain recursion is safe here. Nothing is
// allocated on the success path: on failure the JSON Pointer of the offending string is built
// while unwinding (`path` collects its tokens innermost first).
bool nfc_walk(const JsonValue& v, std::vector<std::string>& path, bool& in_name) {
    switch (v.kind()) {
        case JsonKind::string:
            return is_nfc(v.as_string());
        case JsonKind::array: {
            const auto& arr = v.as_array();
            for (size_t i = 0; i < arr.size(); ++i)
                if (!nfc_walk(arr[i], path, in_name)) {
                    path.push_back(std::to_string(i));
                    return false;
                }
            return true;
        }
        case JsonKind::object:
            for (const auto& m : v.as_object()) {
                if (!is_nfc(m.key)) in_name = true;
                if (in_name || !nfc_walk(m.value, path, in_name)) {
                    path.push_back(pointer_token(m.key));
                    return false;
                }
            }
            return true;
        default:
            return true;
    }
}

constexpr bool is_upper_hex_letter(char c) noexcept { return c >= 'A' && c <= 'F'; }

// A field whose whole value is a hex string ("0x" + digits): any A-F, or an "0X" prefix, is an
// uppercase hex digit.
Result<void, ManifestBytesError> check_hex_field(const JsonValue* v, const std::string& where) {
    if (v == nullptr || !v->is_string()) return {};
    const std::string& s = v->as_string();
    const bool upper_prefix = s.size() >= 2 && s[0] == '0' && s[1] == 'X';
    for (const char c : s)
        if (is_upper_hex_letter(c) || upper_prefix)
            return fail(ManifestBytesError::uppercase_hex, "uppercase hex digit in " + where);
    return {};
}

// CAIP-10 / CAIP-19 identifier: only its 0x… components (between ':' and '/') are hex.
Result<void, ManifestBytesError> check_caip_field(const JsonValue* v, const std::string& where) {
    if (v == nullptr || !v->is_string()) return {};
    const std::string& s = v->as_string();
    size_t begin = 0;
    while (begin <= s.size()) {
        size_t end = s.find_first_of(":/", begin);
        if (end == std::string::npos) end = s.size();
        const std::string_view part(s.data() + begin, end - begin);
        if (part.size() >= 2 && part[0] == '0' && (part[1] == 'x' || part[1] == 'X')) {
            if (part[1] == 'X')
                return fail(ManifestBytesError::uppercase_hex, "uppercase hex prefix in " + where);
            for (const char c : part)
                if (is_upper_hex_letter(c))
                    return fail(ManifestBytesError::uppercase_hex,
                                "uppercase hex digit in " + where);
        }
        begin = end + 1;
    }
    return {};
}

}  // namespace

std::string_view to_string(ManifestBytesError e) noexcept {
    switch (e) {
        case ManifestBytesError::too_large:
            return "too_large";
        case ManifestBytesError::bom:
            return "bom";
        case ManifestBytesError::invalid_json:
            return "invalid_json";
        case ManifestBytesError::not_nfc:
            return "not_nfc";
        case ManifestBytesError::uppercase_hex:
            return "uppercase_hex";
        case ManifestBytesError::hash_mismatch:
            return "hash_mismatch";
    }
    return "unknown";
}

// ERC-8257 §Canonical Manifest Bytes, BOM rule: reject, do not strip.
Result<void, ManifestBytesError> check_no_bom(ByteView bytes) noexcept {
    if (bytes.size() >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF)
        return fail(ManifestBytesError::bom, "manifest starts with a UTF-8 byte-order mark");
    return {};
}

// ERC-8257 §Canonical Manifest Bytes, Unicode normalization rule: reject, do not re-normalize.
Result<void, ManifestBytesError> check_nfc_strings(const JsonValue& document) {
    std::vector<std::string> path;
    bool in_name = false;
    if (nfc_walk(document, path, in_name)) return {};
    std::string pointer;
    for (auto it = path.rbegin(); it != path.rend(); ++it) pointer += "/" + *it;
    return fail(ManifestBytesError::not_nfc, std::string(in_name ? "member name" : "string value") +
                                                 " not in NFC at " + pointer);
}

// ERC-8257 §Canonical Manifest Bytes, hex-field casing rule: reject, do not lowercase.
Result<void, ManifestBytesError> check_lowercase_hex(const JsonValue& manifest) {
    if (!manifest.is_object()) return {};
    if (auto r = check_hex_field(manifest.find("creatorAddress"), "/creatorAddress"); !r) return r;

    if (const JsonValue* pricing = manifest.find("pricing"); pricing && pricing->is_array()) {
        const auto& entries = pricing->as_array();
        for (size_t i = 0; i < entries.size(); ++i) {
            const std::string at = "/pricing/" + std::to_string(i);
            if (auto r = check_caip_field(entries[i].find("asset"), at + "/asset"); !r) return r;
            if (auto r = check_caip_field(entries[i].find("recipient"), at + "/recipient"); !r)
                return r;
        }
    }
    if (const JsonValue* access = manifest.find("access")) {
        if (const JsonValue* reqs = access->find("requirements"); reqs && reqs->is_array()) {
            const auto& entries = reqs->as_array();
            for (size_t i = 0; i < entries.size(); ++i) {
                const std::string at = "/access/requirements/" + std::to_string(i);
                if (auto r = check_hex_field(entries[i].find("kind"), at + "/kind"); !r) return r;
                if (auto r = check_hex_field(entries[i].find("data"), at + "/data"); !r) return r;
            }
        }
    }
    if (const JsonValue* verif = manifest.find("verifiability")) {
        if (const JsonValue* att = verif->find("attestation"))
            if (auto r = check_hex_field(att->find("enclaveHash"),
                                         "/verifiability/attestation/enclaveHash");
                !r)
                return r;
        if (const JsonValue* build = verif->find("reproducibleBuild"))
            if (auto r = check_hex_field(build->find("buildHash"),
                                         "/verifiability/reproducibleBuild/buildHash");
                !r)
                return r;
    }
    return {};
}

Result<CanonicalManifest, ManifestBytesError> canonicalize_manifest(ByteView bytes,
                                                                    const ManifestLimits& limits) {
    // §Manifest Parser Hardening: oversize is a verification failure, never truncated input.
    if (bytes.size() > limits.max_bytes)
        return fail(ManifestBytesError::too_large,
                    "manifest exceeds " + std::to_string(limits.max_bytes) + " bytes");
    // §7 check 3, in the order the ERC lists it: BOM, NFC, hex casing, then JCS and keccak256.
    if (auto r = check_no_bom(bytes); !r) return std::unexpected(r.error());
    auto doc = parse_json(
        bytes, ParseLimits{.max_bytes = limits.max_bytes, .max_depth = limits.max_depth});
    if (!doc)
        return fail(ManifestBytesError::invalid_json,
                    std::string(to_string(doc.error().code)) + ": " + doc.error().detail);
    if (auto r = check_nfc_strings(*doc); !r) return std::unexpected(r.error());
    if (auto r = check_lowercase_hex(*doc); !r) return std::unexpected(r.error());
    auto jcs = canonicalize(*doc);
    if (!jcs)
        return fail(ManifestBytesError::invalid_json,
                    std::string(to_string(jcs.error().code)) + ": " + jcs.error().detail);
    CanonicalManifest out;
    out.manifest_hash = keccak256(*jcs);
    out.jcs = std::move(*jcs);
    out.document = std::move(*doc);
    return out;
}

Result<CanonicalManifest, ManifestBytesError> verify_manifest_bytes(
    ByteView bytes, const Hash32& expected_manifest_hash, const ManifestLimits& limits) {
    auto m = canonicalize_manifest(bytes, limits);
    if (!m) return m;
    if (m->manifest_hash != expected_manifest_hash)
        return fail(ManifestBytesError::hash_mismatch,
                    "keccak256(JCS) is " + to_hex(m->manifest_hash) + ", onchain manifestHash is " +
                        to_hex(expected_manifest_hash));
    return m;
}

}  // namespace credence::core
