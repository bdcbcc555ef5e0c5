// What the ERC-8004 command groups (`credence agent`, `credence feedback`) share beyond args.hpp:
// decimal feedback values, registration-file reports, timestamps. Every parser throws CliError with
// one line naming the argument, so the commands stay free of error plumbing. Thread-safety: pure
// functions (now_rfc3339 reads the clock).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/chain/rpc_types.hpp>
#include <credence/cmd/args.hpp>
#include <credence/cmd/commands.hpp>
#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/decimal_value.hpp>
#include <credence/core/feedback_file.hpp>
#include <credence/core/registration_file.hpp>
#include <credence/core/uint256.hpp>

namespace credence::cmd {

/// ERC-8004 feedback value from a decimal string, with errors that name the rule broken:
/// "value 0.1234567890123456789 has 19 decimals; ERC-8004 allows at most 18".
[[nodiscard]] core::DecimalValue parse_feedback_value(const std::string& text);
/// value / 10^decimals as an exact decimal string (any Int256, any decimals).
[[nodiscard]] std::string decimal_text(const core::Int256& value, uint64_t decimals);

/// The current UTC time as an RFC 3339 date-time, e.g. "2026-11-30T14:00:00Z".
[[nodiscard]] std::string now_rfc3339();

/// Any validation report as JSON: {ok, errors, warnings, issues: [{severity, reason, path,
/// message}]}, the path a JSON pointer into the checked document.
template <typename Reason>
[[nodiscard]] nlohmann::ordered_json issues_report_json(
    const std::vector<core::Issue<Reason>>& all) {
    nlohmann::ordered_json issues = nlohmann::ordered_json::array();
    size_t errors = 0;
    size_t warnings = 0;
    for (const auto& i : all) {
        (i.severity == core::IssueSeverity::warning ? warnings : errors) += 1;
        issues.push_back({{"severity", std::string(core::to_string(i.severity))},
                          {"reason", std::string(to_string(i.reason))},
                          {"path", i.path},
                          {"message", i.message}});
    }
    return {{"ok", errors == 0},
            {"errors", errors},
            {"warnings", warnings},
            {"issues", std::move(issues)}};
}

/// A registration-file validation report as JSON (issues_report_json).
[[nodiscard]] nlohmann::ordered_json registration_report_json(
    const core::RegistrationReport& report);
/// The same for a feedback file (core/feedback_file.hpp).
[[nodiscard]] nlohmann::ordered_json feedback_report_json(const core::FeedbackReport& report);
/// A report in words: "valid (0 errors, 1 warning)".
[[nodiscard]] std::string report_summary(const nlohmann::ordered_json& report);
/// Adds a report to `out`: its members with --json; else `validation` (report_summary) and
/// `issues`, one "<severity> <path>: <message> (<reason>)" line each.
void add_report(Output& out, bool json, nlohmann::ordered_json report);
/// Throws CliError when `report` (issues_report_json) holds an error. The one line names every
/// error, "<source>: not a valid <what> (2 errors): /name: ...; /services/0/endpoint: ...", and
/// with --json the error document carries the whole report.
void refuse_invalid(const nlohmann::ordered_json& report, std::string_view source,
                    std::string_view what);
/// refuse_invalid for a registration file.
void require_valid_registration(const core::RegistrationReport& report, std::string_view source);

/// Text of bytes when they are printable UTF-8-ish ASCII/UTF-8 without control characters.
[[nodiscard]] std::optional<std::string> printable_text(core::ByteView bytes);

}  // namespace credence::cmd
