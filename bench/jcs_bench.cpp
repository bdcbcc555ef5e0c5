// JCS (RFC 8785) and NFC throughput on a realistic ERC-8257 tool manifest.
//
// The manifest is generated deterministically (fixed LCG seed): ~100 KiB of nested JSON Schema
// (inputs/outputs), pricing entries, tags, descriptions mixing ASCII, Latin-1, CJK and emoji,
// integers and fractional numbers, served pretty-printed in non-canonical key order.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include <credence/core/jcs.hpp>
#include <credence/core/json.hpp>
#include <credence/core/manifest_checks.hpp>
#include <credence/core/unicode.hpp>

using namespace credence::core;

namespace {

class Lcg {
public:
    uint32_t next() {
        state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<uint32_t>(state_ >> 33);
    }
    uint32_t below(uint32_t n) { return next() % n; }

private:
    uint64_t state_ = 0x8257;
};

const char* const kWords[] = {"price",
                              "oracle",
                              "caf\xC3\xA9",
                              "na\xC3\xAFve",
                              "\xC3\xBC"
                              "ber",
                              "\xE6\x97\xA5\xE6\x9C\xAC",
                              "token",
                              "collection",
                              "r\xC3\xA9sum\xC3\xA9",
                              "\xF0\x9F\x9A\x80",
                              "floor",
                              "wallet",
                              "\xCE\xB1\xCE\xB2\xCE\xB3",
                              "stra\xC3\x9F"
                              "e",
                              "agent",
                              "\xED\x95\x9C"};

std::string sentence(Lcg& rng, int words) {
    std::string s;
    for (int i = 0; i < words; ++i) {
        if (i) s += ' ';
        s += kWords[rng.below(sizeof kWords / sizeof kWords[0])];
    }
    return s;
}

void schema(std::string& out, Lcg& rng, int depth, const std::string& indent) {
    out += "{\n" + indent + "  \"type\": \"object\",\n" + indent + "  \"description\": \"" +
           sentence(rng, 6) + "\",\n" + indent + "  \"properties\": {\n";
    const int n = depth > 0 ? 4 : 6;
    for (int i = 0; i < n; ++i) {
        out += indent + "    \"field_" + std::to_string(rng.below(100000)) + "\": ";
        if (depth > 0 && i == 0) {
            schema(out, rng, depth - 1, indent + "    ");
        } else {
            out += "{\"type\": \"number\", \"minimum\": " + std::to_string(rng.below(1000)) +
                   ", \"maximum\": " + std::to_string(rng.below(1000000)) + ".25" +
                   ", \"multipleOf\": 1E-" + std::to_string(1 + rng.below(8)) +
                   ", \"description\": \"" + sentence(rng, 8) + "\"}";
        }
        out += i + 1 < n ? ",\n" : "\n";
    }
    out += indent + "  },\n" + indent + "  \"required\": [\"a\", \"b\"]\n" + indent + "}";
}

std::string make_manifest(size_t target) {
    Lcg rng;
    std::string m =
        "{\n  \"type\": \"https://ercs.ethereum.org/ERCS/erc-8257#tool-manifest-v1\",\n"
        "  \"name\": \"bench-tool\",\n  \"version\": \"1.0.0\",\n"
        "  \"creatorAddress\": \"0xabcdef0123456789abcdef0123456789abcdef01\",\n"
        "  \"endpoint\": \"https://tools.example.com/bench\",\n"
        "  \"pricing\": [\n";
    for (int i = 0; i < 8; ++i)
        m += std::string("    {\"protocol\": \"x402\", \"amount\": \"") +
             std::to_string(rng.next()) +
             "\", \"asset\": \"eip155:8453/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913\", "
             "\"recipient\": \"eip155:8453:0xabcdef0123456789abcdef0123456789abcdef01\"}" +
             (i < 7 ? ",\n" : "\n");
    m += "  ],\n  \"tags\": [\"nft\", \"pricing\", \"\xE6\x97\xA5\xE6\x9C\xAC\"],\n  \"inputs\": ";
    // Grow the inputs schema until the document reaches the target size.
    std::string inputs = "{\"type\": \"object\", \"properties\": {\n";
    int k = 0;
    while (m.size() + inputs.size() < target - 2000) {
        if (k) inputs += ",\n";
        inputs += "  \"group_" + std::to_string(k++) + "\": ";
        schema(inputs, rng, 3, "  ");
    }
    inputs += "\n}}";
    m += inputs + ",\n  \"outputs\": {\"type\": \"object\"},\n  \"description\": \"" +
         sentence(rng, 40) + "\"\n}\n";
    return m;
}

const std::string& manifest() {
    static const std::string m = make_manifest(100 * 1024);
    return m;
}

void BM_json_parse_manifest_100k(benchmark::State& state) {
    const std::string& m = manifest();
    for (auto _ : state) {
        auto doc = parse_json(m);
        benchmark::DoNotOptimize(doc);
    }
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(m.size()));
}
BENCHMARK(BM_json_parse_manifest_100k);

void BM_jcs_canonicalize_manifest_100k(benchmark::State& state) {
    const std::string& m = manifest();
    if (!canonicalize(m)) state.SkipWithError("manifest does not canonicalize");
    for (auto _ : state) {
        auto out = canonicalize(m);
        benchmark::DoNotOptimize(out);
    }
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(m.size()));
    state.counters["bytes"] = static_cast<double>(m.size());
}
BENCHMARK(BM_jcs_canonicalize_manifest_100k);

// ERC-8257 §7 check 3 end to end: BOM, parse, NFC of every string, hex casing, JCS, keccak256.
void BM_erc8257_manifest_hash_100k(benchmark::State& state) {
    const std::string& m = manifest();
    if (!canonicalize_manifest(as_bytes(m))) state.SkipWithError("manifest rejected");
    for (auto _ : state) {
        auto out = canonicalize_manifest(as_bytes(m));
        benchmark::DoNotOptimize(out);
    }
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(m.size()));
}
BENCHMARK(BM_erc8257_manifest_hash_100k);

// NFC check throughput on the whole manifest text (NFC: the quick check answers Yes).
void BM_nfc_check_manifest_text(benchmark::State& state) {
    const std::string& m = manifest();
    if (!is_nfc(m)) state.SkipWithError("manifest text is not NFC");
    for (auto _ : state) benchmark::DoNotOptimize(is_nfc(m));
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(m.size()));
}
BENCHMARK(BM_nfc_check_manifest_text);

// Text whose quick check says Maybe (combining marks that happen not to compose), forcing the
// full normalize-and-compare path.
void BM_nfc_check_maybe_path(benchmark::State& state) {
    std::string s;
    while (s.size() < 100 * 1024) s += "x\xCC\x81 \xE1\x84\x80\xE1\x85\xA1 ";  // x+U+0301; L+V
    for (auto _ : state) benchmark::DoNotOptimize(is_nfc(s));
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(s.size()));
}
BENCHMARK(BM_nfc_check_maybe_path);

void BM_es6_number_format(benchmark::State& state) {
    Lcg rng;
    std::vector<double> values;
    for (int i = 0; i < 1024; ++i)
        values.push_back(static_cast<double>(rng.next()) * 1e-3 / (1 + rng.below(1000)));
    std::string out;
    for (auto _ : state) {
        out.clear();
        for (const double v : values) append_es6_number(out, v);
        benchmark::DoNotOptimize(out);
    }
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(values.size()));
}
BENCHMARK(BM_es6_number_format);

}  // namespace
