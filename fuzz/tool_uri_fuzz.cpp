// Arbitrary bytes as ERC-8257 URLs (§6 URL Normalization, §7 check 2). Properties: normalization
// is idempotent (normalizing the normalized form gives it back), a normalized URL is ASCII, has no
// uppercase in its origin and never an explicit :443; a parsed metadataURI has a slug matching
// the grammar, no query or fragment, fits 2,048 bytes, and binds to its own origin.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <credence/verify/rules/tool_uri.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace credence::verify;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto u = normalize_https_url(text)) {
        for (char c : u->normalized)
            if (static_cast<unsigned char>(c) >= 0x80) __builtin_trap();
        const std::string origin = u->origin();
        for (char c : origin)
            if (c >= 'A' && c <= 'Z') __builtin_trap();
        if (u->port && *u->port == 443) __builtin_trap();
        auto again = normalize_https_url(u->normalized);
        if (!again || again->normalized != u->normalized) __builtin_trap();
        if (!is_normalized_https_url(u->normalized)) __builtin_trap();
    }
    if (auto m = parse_metadata_uri(text)) {
        if (!is_valid_slug(m->slug) || m->url.query || m->url.fragment) __builtin_trap();
        if (text.size() > kMaxUrlBytes) __builtin_trap();
        if (!check_origin_binding(text, m->url.origin())) __builtin_trap();
    }
    return 0;
}
