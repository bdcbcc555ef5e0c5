#include <credence/cmd/erc8004_args.hpp>

#include <ctime>

#include <fmt/core.h>

#include <credence/core/unicode.hpp>

namespace credence::cmd {

core::DecimalValue parse_feedback_value(const std::string& text) {
    auto v = core::parse_decimal_value(text);
    if (v) return *v;
    switch (v.error().code) {
        case core::DecimalValueError::too_many_decimals: {
            const auto dot = text.find('.');
            const size_t digits = dot == std::string::npos ? 0 : text.size() - dot - 1;
            // ERC-8004 §Giving Feedback: valueDecimals MUST be between 0 and 18.
            throw CliError(
                fmt::format("value {} has {} decimals; ERC-8004 allows at most 18", text, digits));
        }
        case core::DecimalValueError::out_of_range:
            throw CliError(fmt::format(
                "value {} is out of range; the registry accepts |value| <= 1e38", text));
        case core::DecimalValueError::malformed:
            break;
    }
    throw CliError(
        fmt::format("value '{}': not a plain decimal number (expected e.g. 99.77 or -3.2)", text));
}

std::string decimal_text(const core::Int256& value, uint64_t decimals) {
    core::DecimalValue d{value, static_cast<uint8_t>(decimals > 255 ? 255 : decimals)};
    return core::format_decimal_value(d);
}

std::string now_rfc3339() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return {buf, n};
}

namespace {

/// {ok, errors, warnings, issues: [{severity, reason, path, message}]} of any Issue list.
template <typename Reason>
nlohmann::ordered_json issues_report_json(const std::vector<core::Issue<Reason>>& all) {
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

}  // namespace

nlohmann::ordered_json registration_report_json(const core::RegistrationReport& report) {
    return issues_report_json(report.issues);
}

nlohmann::ordered_json feedback_report_json(const core::FeedbackReport& report) {
    return issues_report_json(report.issues);
}

std::string report_summary(const nlohmann::ordered_json& report) {
    const auto errors = report["errors"].get<size_t>();
    const auto warnings = report["warnings"].get<size_t>();
    return fmt::format("{} ({} error{}, {} warning{})",
                       report["ok"].get<bool>() ? "valid" : "invalid", errors,
                       errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
}

void add_report(Output& out, bool json, nlohmann::ordered_json report) {
    if (json) {
        for (auto& [key, value] : report.items()) out.add(key, std::move(value));
        return;
    }
    out.add("validation", report_summary(report));
    nlohmann::ordered_json lines = nlohmann::ordered_json::array();
    for (const auto& i : report["issues"]) {
        const std::string path = i["path"].get<std::string>();
        lines.push_back(fmt::format("{} {}: {} ({})", i["severity"].get<std::string>(),
                                    path.empty() ? "/" : path, i["message"].get<std::string>(),
                                    i["reason"].get<std::string>()));
    }
    out.add("issues", std::move(lines));
}

void require_valid_registration(const core::RegistrationReport& report, std::string_view source) {
    if (report.ok()) return;
    for (const auto& i : report.issues) {
        if (i.severity != core::IssueSeverity::error) continue;
        throw CliError(
            fmt::format("{}: not a valid ERC-8004 registration file ({} error{}): {}: {}", source,
                        report.error_count(), report.error_count() == 1 ? "" : "s",
                        i.path.empty() ? "/" : i.path, i.message));
    }
}

std::optional<std::string> printable_text(core::ByteView bytes) {
    const std::string_view s(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    if (!core::utf8_to_code_points(s)) return std::nullopt;
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) return std::nullopt;
    }
    return std::string(s);
}

}  // namespace credence::cmd
