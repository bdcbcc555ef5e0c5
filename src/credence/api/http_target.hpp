// The request target of an HTTP/1.1 request line (RFC 9112 §3.2, origin form only), split into
// the path the router sees and the query parameters handlers read (docs/node.md §HTTP server).
//
// Invariants of a parsed target:
//   - the path starts with '/', is percent-decoded, and never holds NUL; "%2F" (and "%2f") stays
//     encoded as the three characters "%2F", so an encoded slash never becomes a path separator
//     before routing (a route segment holding it fails its own syntax check);
//   - query names and values are decoded ('+' is a space), in request order;
//   - a name repeats only when it is in `repeatable` (docs/api.md: `client`, `validator`, `chain`);
//     any other repeat is an error rather than a silent first-wins.
// Any malformed percent escape is an error (the server answers 400).
//
// Thread-safety: pure functions.
#pragma once

#include <expected>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace credence::api {

struct RequestTarget {
    std::string path;
    std::vector<std::pair<std::string, std::string>> query;
};

/// Splits and decodes `target`; the error is one line for a 400 body.
[[nodiscard]] std::expected<RequestTarget, std::string> parse_request_target(
    std::string_view target, std::span<const std::string> repeatable);

}  // namespace credence::api
