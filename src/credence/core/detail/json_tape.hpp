// The one strict JSON parser of the core, writing a flat tape instead of a tree.
//
// parse_json (json.hpp) builds its JsonValue DOM from a tape, and canonicalize (jcs.hpp)
// serializes straight from one, so both accept and reject exactly the same documents (the rules
// are listed in json.hpp). The tape is a vector of 16-byte nodes in document order (preorder):
// an array is its node followed by its elements, an object its node followed by key, value, key,
// value... Strings and numbers are views: byte ranges of the input, or of the tape's scratch
// buffer when the text had to change (unescaped strings; numbers rewritten to their RFC 8785
// form). No node owns memory, so building and dropping a tape is a few large allocations, and
// every walk over it is a loop, never recursion.
//
// Ownership: a JsonTape refers into the input text it was parsed from; the text must outlive it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/error.hpp>
#include <credence/core/json.hpp>

namespace credence::core::detail {

struct TapeNode {
    static constexpr uint8_t kInScratch = 1;  // text lives in JsonTape::scratch, not the input
    static constexpr uint8_t kTrue = 2;       // boolean true

    JsonKind kind = JsonKind::null;
    uint8_t flags = 0;
    uint32_t size = 0;  // string / number: text length in bytes; array / object: element count
    uint64_t data = 0;  // string / number: text offset; array / object: end | order << 32

    /// Index one past this container's subtree.
    [[nodiscard]] uint32_t end() const noexcept { return static_cast<uint32_t>(data); }
    /// Canonical mode, objects: offset of the member order in JsonTape::order.
    [[nodiscard]] uint32_t order() const noexcept { return static_cast<uint32_t>(data >> 32); }
};
static_assert(sizeof(TapeNode) == 16);

enum class TapeMode : uint8_t {
    /// Members stay in input order; numbers keep their input text (JsonValue needs it).
    document,
    /// RFC 8785 ready: each object's members sorted by UTF-16 code units (JsonTape::order), and
    /// every number's text already in its ECMAScript form (§3.2.2.3).
    canonical,
};

struct JsonTape {
    std::string_view input;
    std::vector<TapeNode> nodes;
    std::string scratch;          // unescaped strings and rewritten numbers
    std::vector<uint32_t> order;  // canonical mode: sorted key node indices of every object
    /// At least the size of the canonical form (each node's longest form plus one separator),
    /// so a serializer can write into one buffer without checks.
    size_t output_bound = 0;

    [[nodiscard]] std::string_view text(const TapeNode& n) const noexcept {
        const char* base = (n.flags & TapeNode::kInScratch) != 0 ? scratch.data() : input.data();
        return {base + n.data, n.size};
    }
    /// Index one past the subtree at node i.
    [[nodiscard]] uint32_t next(uint32_t i) const noexcept {
        const TapeNode& n = nodes[i];
        return n.kind == JsonKind::array || n.kind == JsonKind::object ? n.end() : i + 1;
    }
};

/// A place in a text as an editor shows it: both from 1, the column in code points.
struct TextPosition {
    size_t line = 1;
    size_t column = 1;
};

/// The line and column of byte `offset` of `text`.
[[nodiscard]] TextPosition text_position(std::string_view text, size_t offset) noexcept;

/// Parses `text` (all of it) into `out`, which is cleared first and may be reused.
[[nodiscard]] Result<void, JsonError> parse_tape(std::string_view text, const ParseLimits& limits,
                                                 TapeMode mode, JsonTape& out);

}  // namespace credence::core::detail
