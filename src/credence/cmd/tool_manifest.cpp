#include <credence/cmd/tool_manifest.hpp>

#include <fmt/core.h>

#include <credence/cmd/commands.hpp>
#include <credence/cmd/erc8004_args.hpp>
#include <credence/cmd/util.hpp>
#include <credence/core/bytes.hpp>
#include <credence/verify/rules/manifest_schema.hpp>

namespace credence::cmd {

// The field grammar lives once, in verify/rules/manifest_schema (the consumer's validator); the
// producer refuses every error it reports, in one line, and lets warnings through.
void check_manifest_fields(const core::JsonValue& manifest, const std::string& source) {
    const verify::ManifestReport report = verify::validate_manifest(manifest);
    refuse_invalid(issues_report_json(report.issues), source, "ERC-8257 tool manifest");
}

core::CanonicalManifest canonical_manifest_bytes(const std::string& bytes,
                                                 const std::string& source) {
    return must(core::canonicalize_manifest(core::as_bytes(bytes)), source);
}

ToolManifest load_tool_manifest(const std::string& path) {
    const std::string bytes = read_input(path);
    ToolManifest m;
    m.source = path;
    m.canonical = canonical_manifest_bytes(bytes, path);
    check_manifest_fields(m.canonical.document, path);
    const core::JsonValue* creator = m.canonical.document.find("creatorAddress");
    m.creator = must(core::Address::from_hex(creator->as_string()), path + ": creatorAddress");
    return m;
}

}  // namespace credence::cmd
