// libFuzzer target for the strict ABI decoder.
//
// Input: one selector byte, then the data. Selector values below the number of fixed type lists
// decode the data against that list (static, dynamic and nested dynamic types) in both modes and
// check the invariants:
//   - decoding never crashes, hangs or allocates beyond the input's size;
//   - canonical success implies default-mode success with the same values;
//   - canonical success implies encode(decode(data)) == data (strict decoding is a bijection);
//   - values decoded in default mode re-encode and decode canonically to the same values.
// Other selector values treat the data as text for the type, signature and value parsers, plus an
// event log with the remaining bytes as topics and data.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/abi.hpp>
#include <credence/core/abi_event.hpp>
#include <credence/core/abi_signature.hpp>
#include <credence/core/abi_text.hpp>

using namespace credence::core;

namespace {

const std::vector<std::vector<AbiType>>& type_lists() {
    static const auto lists = [] {
        const char* specs[] = {
            "(uint256)",
            "(string)",
            "(bytes,uint8,bool)",
            "(uint256[],string[])",
            "((string,bytes)[],address)",
            "(int8,bytes3,(bool,string[2])[])",
            "(uint256[][2][],bytes32)",
            "(uint64,int128,uint8,string,string,string,string,bytes32)",  // NewFeedback data
            "(string[][])",
            "(uint256,uint32[],bytes10,bytes)",  // ethereum/tests
            "(((string)))",
            "(int256[3],(address,bytes)[2],bool[])",
        };
        std::vector<std::vector<AbiType>> out;
        for (const char* s : specs) {
            auto list = parse_type_list(s);
            if (!list) std::abort();
            out.push_back(std::move(*list));
        }
        return out;
    }();
    return lists;
}

[[noreturn]] void invariant_failed() { std::abort(); }

void fuzz_decode(const std::vector<AbiType>& types, ByteView data) {
    auto lenient = decode(types, data);
    auto canonical = decode(types, data, {.canonical = true});
    if (canonical) {
        if (!lenient || *lenient != *canonical) invariant_failed();
        auto again = encode(types, *canonical);
        if (!again || *again != Bytes(data.begin(), data.end())) invariant_failed();
    }
    if (lenient) {
        auto re = encode(types, *lenient);
        if (!re) invariant_failed();
        auto back = decode(types, *re, {.canonical = true});
        if (!back || *back != *lenient) invariant_failed();
        for (size_t i = 0; i < types.size(); ++i) (void)format_value(types[i], (*lenient)[i]);
    }
}

void fuzz_text(ByteView data) {
    const std::string_view text(reinterpret_cast<const char*>(data.data()), data.size());
    if (auto t = parse_type(text)) {
        // Canonical strings round-trip.
        auto again = parse_type(t->canonical());
        if (!again || !(*again == *t)) invariant_failed();
    }
    (void)parse_function_signature(text);
    if (auto e = parse_event_signature(text)) {
        std::vector<Hash32> topics(1 + e->inputs.size() % 4);
        (void)decode_log(*e, topics, data);
    }
    // Text values against a fixed nested type.
    static const AbiType nested = *parse_type("(uint8,string,bool[],(int16,bytes2)[2])[]");
    if (auto v = parse_value(nested, text)) {
        const std::string shown = format_value(nested, *v);
        auto back = parse_value(nested, shown);
        if (!back || *back != *v) invariant_failed();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const auto& lists = type_lists();
    const ByteView rest(data + 1, size - 1);
    if (data[0] < lists.size())
        fuzz_decode(lists[data[0]], rest);
    else if (data[0] == 0xff)
        fuzz_text(rest);
    else
        fuzz_decode(lists[data[0] % lists.size()], rest);
    return 0;
}
