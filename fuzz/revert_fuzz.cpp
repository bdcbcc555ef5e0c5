// libFuzzer target for revert decoding (chain/revert.hpp): revert data is chosen by whoever wrote
// the contract, so it is untrusted.
//
// Checks: decode_revert never crashes or hangs; its text is never empty and is always one line of
// printable text (no byte below 0x20 and no DEL), whatever strings the data carries; empty data
// and data shorter than a selector are classified as such.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include <credence/chain/revert.hpp>
#include <credence/core/abi_json.hpp>

using namespace credence;

namespace {

const std::vector<core::AbiDocument>& abis() {
    static const auto docs = [] {
        auto doc = core::parse_json_abi(R"([
  {"type":"error","name":"NotToolCreator","inputs":[{"name":"toolId","type":"uint256"},
                                                    {"name":"caller","type":"address"}]},
  {"type":"error","name":"Why","inputs":[{"name":"s","type":"string"},{"name":"b","type":"bytes"}]},
  {"type":"error","name":"Deep","inputs":[{"name":"x","type":"(string,int8)[]"},
                                          {"name":"y","type":"bytes4[2]"},{"name":"","type":"bool"}]},
  {"type":"error","name":"Empty","inputs":[]}
])");
        if (!doc) std::abort();
        return std::vector<core::AbiDocument>{std::move(*doc)};
    }();
    return docs;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const core::ByteView bytes(data, size);
    // The first byte picks a selector so the fuzzer reaches every decoder without guessing one.
    static const core::Selector selectors[] = {
        chain::kErrorStringSelector,
        chain::kPanicSelector,
        core::selector_of("NotToolCreator(uint256,address)"),
        core::selector_of("Why(string,bytes)"),
        core::selector_of("Deep((string,int8)[],bytes4[2],bool)"),
        core::selector_of("Empty()")};
    std::vector<uint8_t> input;
    if (size > 0 && data[0] < std::size(selectors)) {
        input.assign(selectors[data[0]].begin(), selectors[data[0]].end());
        input.insert(input.end(), bytes.begin() + 1, bytes.end());
    } else {
        input.assign(bytes.begin(), bytes.end());
    }
    const auto d = chain::decode_revert(input, abis());
    if (d.text.empty()) std::abort();
    for (char c : d.text) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) std::abort();
    }
    if (input.empty() != (d.kind == chain::RevertKind::empty)) std::abort();
    if (!input.empty() && input.size() < 4 && d.kind != chain::RevertKind::unknown) std::abort();
    return 0;
}
