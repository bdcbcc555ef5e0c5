#include <credence/core/unicode.hpp>

#include <algorithm>
#include <vector>

#include <credence/core/detail/unicode_tables.hpp>
#include <credence/core/detail/utf8.hpp>

namespace credence::core {

namespace {

using namespace detail;

// Hangul syllable constants (Unicode §3.12, Conjoining Jamo Behavior).
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr char32_t kLCount = 19, kVCount = 21, kTCount = 28;
constexpr char32_t kNCount = kVCount * kTCount, kSCount = kLCount * kNCount;

// Below U+0300 every code point has ccc 0, NFC_QC=Yes and no canonical decomposition that
// matters for the quick check (the Latin-1 precomposed letters are NFC themselves).
constexpr char32_t kQuickCheckFloor = 0x300;

inline uint16_t props(char32_t cp) noexcept {
    if (cp >= kNfcTableLimit) return 0;
    const size_t block = kNfcStage1[cp >> kNfcBlockShift];
    return kNfcProps[kNfcStage2[(block << kNfcBlockShift) | (cp & ((1u << kNfcBlockShift) - 1))]];
}

inline uint8_t ccc_of(uint16_t p) noexcept { return static_cast<uint8_t>(p & kPropCccMask); }
inline unsigned qc_of(uint16_t p) noexcept { return (p >> kPropQcShift) & 3u; }

// Decodes one well-formed UTF-8 sequence at s[i], advancing i; false if malformed.
inline bool next_utf8(std::string_view s, size_t& i, char32_t& cp) noexcept {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data()) + i;
    const size_t len = utf8_sequence_length(p, s.size() - i);
    if (len == 0) return false;
    cp = utf8_decode(p, len);
    i += len;
    return true;
}

// UAX #15 §9 quick check over a stream of code points.
class QuickChecker {
public:
    // Returns false once the answer is certainly `no`.
    bool feed(char32_t cp) noexcept {
        if (cp < kQuickCheckFloor) {
            last_ccc_ = 0;
            return true;
        }
        const uint16_t p = props(cp);
        const uint8_t ccc = ccc_of(p);
        if (ccc != 0 && last_ccc_ > ccc) return false;  // not canonically ordered
        const unsigned qc = qc_of(p);
        if (qc == 1) return false;
        if (qc == 2) maybe_ = true;
        last_ccc_ = ccc;
        return true;
    }
    NfcQuickCheck result() const noexcept {
        return maybe_ ? NfcQuickCheck::maybe : NfcQuickCheck::yes;
    }

private:
    uint8_t last_ccc_ = 0;
    bool maybe_ = false;
};

void decompose(char32_t cp, std::u32string& out) {
    if (cp >= kSBase && cp < kSBase + kSCount) {  // Hangul: algorithmic (Unicode §3.12)
        const char32_t s = cp - kSBase;
        out.push_back(kLBase + s / kNCount);
        out.push_back(kVBase + (s % kNCount) / kTCount);
        if (s % kTCount != 0) out.push_back(kTBase + s % kTCount);
        return;
    }
    if ((props(cp) & kPropHasDecomposition) == 0) {
        out.push_back(cp);
        return;
    }
    const char32_t* end = kDecompCodePoints + kDecompCount;
    const char32_t* it = std::lower_bound(kDecompCodePoints, end, cp);
    // The property bit and the list come from the same generator run, so `it` hits.
    const auto i = static_cast<size_t>(it - kDecompCodePoints);
    out.append(kDecompData + kDecompStart[i], kDecompData + kDecompStart[i + 1]);
}

// Primary composite of a starter and a following character, or 0.
char32_t compose_pair(char32_t a, char32_t b) noexcept {
    if (a >= kLBase && a < kLBase + kLCount && b >= kVBase && b < kVBase + kVCount)
        return kSBase + ((a - kLBase) * kVCount + (b - kVBase)) * kTCount;
    if (a >= kSBase && a < kSBase + kSCount && (a - kSBase) % kTCount == 0 && b > kTBase &&
        b < kTBase + kTCount)
        return a + (b - kTBase);
    if (a > 0x10FFFF || b > 0x10FFFF) return 0;
    const uint64_t key = (uint64_t{a} << 21) | b;
    const uint64_t* end = kCompositionKeys + kCompositionCount;
    const uint64_t* it = std::lower_bound(kCompositionKeys, end, key);
    if (it == end || *it != key) return 0;
    return kCompositionValues[it - kCompositionKeys];
}

// Stable sort of s[begin, end) by combining class. Runs are short in real text, so insertion
// sort; long (attacker-made) runs sort (ccc, position) pairs so the cost stays O(n log n).
// (std::stable_sort would do, but trips a libstdc++ deprecation warning under clang.)
void sort_run(std::u32string& s, size_t begin, size_t end) {
    if (end - begin <= 32) {
        for (size_t k = begin + 1; k < end; ++k) {
            const char32_t c = s[k];
            const uint8_t cc = ccc_of(props(c));
            size_t m = k;
            for (; m > begin && ccc_of(props(s[m - 1])) > cc; --m) s[m] = s[m - 1];
            s[m] = c;
        }
        return;
    }
    std::vector<uint64_t> keyed(end - begin);  // ccc << 53 | position << 21 | code point
    for (size_t k = begin; k < end; ++k)
        keyed[k - begin] =
            (uint64_t{ccc_of(props(s[k]))} << 53) | (uint64_t{k - begin} << 21) | (s[k] & 0x1FFFFF);
    std::sort(keyed.begin(), keyed.end());
    for (size_t k = begin; k < end; ++k) s[k] = static_cast<char32_t>(keyed[k - begin] & 0x1FFFFF);
}

// Canonical Ordering Algorithm (Unicode §3.11): stable sort of each run of non-starters by ccc.
void canonical_order(std::u32string& s) {
    size_t i = 0;
    while (i < s.size()) {
        if (ccc_of(props(s[i])) == 0) {
            ++i;
            continue;
        }
        size_t j = i + 1;
        while (j < s.size() && ccc_of(props(s[j])) != 0) ++j;
        if (j - i > 1) sort_run(s, i, j);
        i = j;
    }
}

// Canonical Composition Algorithm (Unicode §3.11, D117) in place.
void canonical_compose(std::u32string& s) {
    constexpr size_t kNone = static_cast<size_t>(-1);
    size_t starter = kNone;  // index in the output of the last starter
    uint8_t last_ccc = 0;    // ccc of the last character appended after that starter
    size_t out = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        const char32_t c = s[i];
        const uint8_t ccc = ccc_of(props(c));
        if (starter != kNone) {
            const bool adjacent = out == starter + 1;
            // c is blocked from the starter when some character between them has ccc 0 or
            // ccc >= ccc(c); after canonical ordering only the last one needs looking at.
            const bool blocked = !adjacent && (last_ccc == 0 || last_ccc >= ccc);
            if (!blocked) {
                if (const char32_t composite = compose_pair(s[starter], c); composite != 0) {
                    s[starter] = composite;
                    continue;
                }
            }
        }
        if (ccc == 0) {
            starter = out;
            last_ccc = 0;
        } else {
            last_ccc = ccc;
        }
        s[out++] = c;
    }
    s.resize(out);
}

}  // namespace

std::string_view to_string(UnicodeError e) noexcept {
    switch (e) {
        case UnicodeError::invalid_utf8:
            return "invalid_utf8";
    }
    return "unknown";
}

uint8_t canonical_combining_class(char32_t cp) noexcept { return ccc_of(props(cp)); }

NfcQuickCheck nfc_quick_check(std::string_view utf8) noexcept {
    QuickChecker qc;
    size_t i = 0;
    while (i < utf8.size()) {
        // ASCII runs are NFC whatever surrounds them, and reset the combining-class state.
        if (static_cast<unsigned char>(utf8[i]) < 0x80) {
            qc.feed(0);
            ++i;
            continue;
        }
        char32_t cp;
        if (!next_utf8(utf8, i, cp)) return NfcQuickCheck::no;
        if (!qc.feed(cp)) return NfcQuickCheck::no;
    }
    return qc.result();
}

NfcQuickCheck nfc_quick_check(std::u32string_view text) noexcept {
    QuickChecker qc;
    for (const char32_t cp : text)
        if (!qc.feed(cp)) return NfcQuickCheck::no;
    return qc.result();
}

std::u32string to_nfc(std::u32string_view text) {
    std::u32string s;
    s.reserve(text.size() + text.size() / 4);
    for (const char32_t cp : text) decompose(cp, s);
    canonical_order(s);
    canonical_compose(s);
    return s;
}

bool is_nfc(std::u32string_view text) {
    switch (nfc_quick_check(text)) {
        case NfcQuickCheck::yes:
            return true;
        case NfcQuickCheck::no:
            return false;
        case NfcQuickCheck::maybe:
            break;
    }
    return to_nfc(text) == text;
}

bool is_nfc(std::string_view utf8) {
    switch (nfc_quick_check(utf8)) {
        case NfcQuickCheck::yes:
            return true;
        case NfcQuickCheck::no:
            return false;
        case NfcQuickCheck::maybe:
            break;
    }
    const auto cps = utf8_to_code_points(utf8);  // valid: the quick check decoded it all
    return cps && to_nfc(*cps) == *cps;
}

Result<std::string, UnicodeError> to_nfc(std::string_view utf8) {
    auto cps = utf8_to_code_points(utf8);
    if (!cps) return std::unexpected(cps.error());
    if (nfc_quick_check(*cps) == NfcQuickCheck::yes) return std::string(utf8);
    return code_points_to_utf8(to_nfc(*cps));
}

Result<std::u32string, UnicodeError> utf8_to_code_points(std::string_view utf8) {
    std::u32string out;
    out.reserve(utf8.size());
    size_t i = 0;
    while (i < utf8.size()) {
        char32_t cp;
        if (!next_utf8(utf8, i, cp))
            return fail(UnicodeError::invalid_utf8, "malformed UTF-8 at byte " + std::to_string(i));
        out.push_back(cp);
    }
    return out;
}

Result<std::string, UnicodeError> code_points_to_utf8(std::u32string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char32_t cp : text) {
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return fail(UnicodeError::invalid_utf8, "not a Unicode scalar value");
        append_utf8(out, cp);
    }
    return out;
}

}  // namespace credence::core
