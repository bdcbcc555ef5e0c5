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

void refuse_invalid(const nlohmann::ordered_json& report, std::string_view source,
                    std::string_view what) {
    const auto errors = report["errors"].get<size_t>();
    if (errors == 0) return;
    std::string line = fmt::format("{}: not a valid {} ({} error{}):", source, what, errors,
                                   errors == 1 ? "" : "s");
    const char* separator = " ";
    for (const auto& i : report["issues"]) {
        if (i["severity"].get<std::string>() != "error") continue;
        const std::string path = i["path"].get<std::string>();
        line += fmt::format("{}{}: {}", separator, path.empty() ? "/" : path,
                            i["message"].get<std::string>());
        separator = "; ";
    }
    throw CliError(line, report);
}

void require_valid_registration(const core::RegistrationReport& report, std::string_view source) {
    refuse_invalid(registration_report_json(report), source, "ERC-8004 registration file");
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
