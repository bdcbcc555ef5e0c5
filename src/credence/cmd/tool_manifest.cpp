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
    auto canonical = core::canonicalize_manifest(core::as_bytes(bytes));
    if (canonical) return std::move(*canonical);
    const auto& e = canonical.error();
    // Worded as every other file check words it (docs/cli.md §Errors).
    if (e.code == core::ManifestBytesError::invalid_json)
        throw CliError(fmt::format("{}: not JSON: {}", source, e.detail));
    // A byte rule of ERC-8257 §7 check 3 (BOM, NFC, lowercase hex, size): one error, with the
    // same report as the field rules' for --json.
    const std::vector<core::Issue<core::ManifestBytesError>> issues{
        {e.code, core::IssueSeverity::error, "", e.detail}};
    throw CliError(fmt::format("{}: not a valid ERC-8257 tool manifest (1 error): {}: {}", source,
                               core::to_string(e.code), e.detail),
                   issues_report_json(issues));
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
