// Arbitrary bytes as a URL for the fetcher's pre-flight check (verify/net/ssrf_guard.hpp): it must
// never crash; what it accepts is printable ASCII with an http(s) scheme and a lowercase host
// that is either an IP literal or a name with no numeric last label; and IP-literal parsing of
// the same bytes never crashes and round-trips through to_string.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <credence/verify/net/ssrf_guard.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace credence::verify;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto url = parse_fetch_url(text, true)) {
        if (url->scheme != "https" && url->scheme != "http") __builtin_trap();
        if (url->host.empty()) __builtin_trap();
        if (std::any_of(text.begin(), text.end(), [](char c) {
                return static_cast<unsigned char>(c) <= 0x20 ||
                       static_cast<unsigned char>(c) >= 0x7f;
            }))
            __builtin_trap();
        if (std::any_of(url->host.begin(), url->host.end(),
                        [](char c) { return c >= 'A' && c <= 'Z'; }))
            __builtin_trap();
        // Without allow_http, http must be refused and https accepted alike.
        const auto strict = parse_fetch_url(text, false);
        if (url->scheme == "https" && !strict) __builtin_trap();
        if (url->scheme == "http" && strict) __builtin_trap();
    }
    if (auto ip = parse_ip_address(text)) {
        auto back = parse_ip_address(to_string(*ip));
        if (!back || *back != *ip) __builtin_trap();
        (void)blocked_range(*ip);
    }
    return 0;
}
