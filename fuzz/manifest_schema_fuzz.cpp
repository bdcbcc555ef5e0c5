// Arbitrary bytes as an ERC-8257 tool manifest: the consumer's pure path (verify_manifest_bytes:
// origin binding, byte rules, JCS + keccak, creator, schema) and the schema validator alone must
// never crash. Properties: a report is `canonical` exactly when its reason is `none`, every check
// then passed and the schema reported no error; validate_manifest's ok() agrees with its error
// count and with first_error(); every issue path is "" or starts with '/'.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <credence/core/json.hpp>
#include <credence/verify/rules/manifest_schema.hpp>
#include <credence/verify/verifiers/tool_verifier.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace credence;
    static const verify::ToolConfig config = [] {
        verify::ToolConfig c;
        c.creator = *core::Address::from_hex("0xabcdef0123456789abcdef0123456789abcdef01");
        c.metadata_uri = "https://tools.example.com/.well-known/ai-tool/fuzz.json";
        return c;
    }();
    const core::ByteView bytes(data, size);
    const auto r = verify::verify_manifest_bytes(bytes, config);
    if (r.canonical() != (r.reason == verify::ToolReason::none)) __builtin_trap();
    if (r.canonical()) {
        for (auto c : r.checks)
            if (c != verify::CheckStatus::passed) __builtin_trap();
    }
    (void)r.to_json().dump();

    if (auto doc = core::parse_json(std::string_view(reinterpret_cast<const char*>(data), size))) {
        const auto report = verify::validate_manifest(*doc);
        if (report.ok() != (report.error_count() == 0)) __builtin_trap();
        if (report.ok() != (report.first_error() == nullptr)) __builtin_trap();
        for (const auto& i : report.issues)
            if (!i.path.empty() && i.path.front() != '/') __builtin_trap();
    }
    return 0;
}
