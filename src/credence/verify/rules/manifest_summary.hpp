// The searchable fields of an ERC-8257 tool manifest: what the tool verifier keeps in its report
// ("manifestSummary") so that the API's tool profiles (store/profile_store.hpp) are built from
// the report alone. Lenient on purpose: any manifest that is a JSON object has a summary, its
// fields of the wrong type read as empty, since the schema's verdict is manifest_schema.hpp's job.
// Pure, thread-safe, nothing throws.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

namespace credence::verify {

/// The searchable summary of an ERC-8257 manifest (§2 name/description/version/tags, §3
/// pricing[].protocol/asset, §4 access.requirements[].kind); nullopt when it is not an object.
[[nodiscard]] std::optional<nlohmann::json> tool_manifest_summary(const nlohmann::json& manifest);

}  // namespace credence::verify
