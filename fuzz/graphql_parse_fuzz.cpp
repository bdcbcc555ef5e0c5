// libFuzzer target: the GraphQL parser, validator and executor over arbitrary bytes.
//
// Properties checked on every input:
//   - parse_document never crashes, and refuses or accepts within the default limits (its depth
//     counter keeps the stack bounded whatever the nesting);
//   - an accepted document validates without crashing, and every error has a location;
//   - execute() over the agent0 schema and an empty in-memory source always answers with a
//     JSON object holding "data" or "errors", never throws, and serializes as valid JSON.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>

#include <credence/graphql/execute.hpp>
#include <credence/graphql/memory_source_test_support.hpp>
#include <credence/graphql/parser.hpp>
#include <credence/graphql/validate.hpp>

using namespace credence::graphql;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::optional<Schema> schema = [] {
        auto s = make_schema(test_support::agent0_schema_def());
        if (!s) std::abort();
        return std::optional<Schema>(std::move(*s));
    }();
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto doc = parse_document(text);
    if (!doc) {
        if (doc.error().locations.empty() || doc.error().message.empty()) std::abort();
        return 0;
    }
    for (const auto& e : validate_document(*doc))
        if (e.locations.empty()) std::abort();
    test_support::MemorySource source;
    const auto response = execute(*schema, source, Request{std::string(text), nullptr, {}});
    if (!response.is_object() || (!response.contains("data") && !response.contains("errors")))
        std::abort();
    const auto reparsed = nlohmann::json::parse(response.dump(), nullptr, false);
    if (reparsed.is_discarded()) std::abort();
    return 0;
}
