// libFuzzer target: strict JSON parse + RFC 8785 canonicalization of arbitrary bytes.
//
// Properties checked on every input that canonicalizes:
//   - canonicalize(text) (serialized from the parser's tape) and canonicalize(parse_json(text))
//     (serialized from the DOM) accept the same inputs and agree byte for byte;
//   - the canonical output parses again and canonicalizes to identical bytes (idempotence);
//   - the ERC-8257 manifest pipeline agrees with plain JCS when it accepts;
//   - NFC: is_nfc(s) == (to_nfc(s) == s) for every string, and to_nfc is idempotent.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <credence/core/jcs.hpp>
#include <credence/core/json.hpp>
#include <credence/core/manifest_checks.hpp>
#include <credence/core/unicode.hpp>

using namespace credence::core;

namespace {

void check_nfc(const std::string& s) {
    const auto n = to_nfc(std::string_view(s));
    if (!n) std::abort();  // the parser only yields valid UTF-8
    if (is_nfc(std::string_view(s)) != (*n == s)) std::abort();
    const auto nn = to_nfc(std::string_view(*n));
    if (!nn || *nn != *n || !is_nfc(std::string_view(*n))) std::abort();
}

void walk(const JsonValue& v) {
    if (v.is_string()) check_nfc(v.as_string());
    if (v.is_array())
        for (const auto& e : v.as_array()) walk(e);
    if (v.is_object())
        for (const auto& m : v.as_object()) {
            check_nfc(m.key);
            walk(m.value);
        }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    ParseLimits limits;
    limits.max_depth = 64;
    const auto once = canonicalize(text, limits);
    const auto input_doc = parse_json(text, limits);
    if (once.has_value() != input_doc.has_value()) std::abort();
    if (!once) return 0;
    const auto via_dom = canonicalize(*input_doc);
    if (!via_dom || *via_dom != *once) std::abort();
    const auto doc = parse_json(*once, limits);
    if (!doc) std::abort();  // canonical output must parse
    const auto twice = canonicalize(*doc);
    if (!twice || *twice != *once) std::abort();  // and be a fixed point
    const auto direct = canonicalize(std::string_view(*once), limits);
    if (!direct || *direct != *once) std::abort();

    walk(*doc);

    const auto m = canonicalize_manifest(ByteView(data, size));
    if (m && m->jcs != *once) std::abort();
    return 0;
}
