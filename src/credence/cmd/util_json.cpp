// credence util jcs | nfc-check: RFC 8785 canonical bytes, and the Unicode NFC check that
// ERC-8257 requires of manifest strings before canonicalization.
#include <credence/cmd/util.hpp>
#include <credence/core/jcs.hpp>
#include <credence/core/json.hpp>
#include <credence/core/keccak.hpp>
#include <credence/core/unicode.hpp>

#include <fmt/format.h>
#include <cstdio>
#include <vector>

namespace credence::cmd {
namespace {

/// JSON Pointer (RFC 6901) escaping of one reference token.
std::string pointer_token(std::string_view key) {
    std::string out;
    for (char c : key) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
    return out;
}

/// Collects the JSON Pointer of every key or string value that is not in NFC.
void find_non_nfc(const core::JsonValue& v, const std::string& path,
                  std::vector<std::string>& bad) {
    switch (v.kind()) {
        case core::JsonKind::string:
            if (!core::is_nfc(v.as_string())) bad.push_back(path);
            break;
        case core::JsonKind::array:
            for (size_t i = 0; i < v.as_array().size(); ++i)
                find_non_nfc(v.as_array()[i], path + "/" + std::to_string(i), bad);
            break;
        case core::JsonKind::object:
            for (const auto& m : v.as_object()) {
                const std::string child = path + "/" + pointer_token(m.key);
                if (!core::is_nfc(m.key)) bad.push_back(child + " (key)");
                find_non_nfc(m.value, child, bad);
            }
            break;
        default:
            break;
    }
}

}  // namespace

void add_util_json_commands(CLI::App& util, UtilOptions& opts) {
    static std::string file;
    static bool hash = false;

    auto* jcs =
        add_util_command(util, "jcs", "RFC 8785 canonical form of a JSON file (- for stdin)", opts);
    jcs->add_option("file", file)->required();
    jcs->add_flag("--hash", hash, "Print keccak256 of the canonical bytes instead");
    jcs->callback([&opts] {
        const std::string canonical = must(core::canonicalize(read_input(file)), "invalid JSON");
        auto digest = [&canonical] {
            return core::to_hex(core::keccak256(std::string_view(canonical)));
        };
        if (opts.json) {
            Output out(true);
            out.add("canonical", canonical);
            out.add("keccak256", digest());
            out.flush();
        } else if (hash) {
            fmt::print("{}\n", digest());
        } else {
            // The exact canonical bytes, with no trailing newline, so `| keccak` hashes them.
            std::fwrite(canonical.data(), 1, canonical.size(), stdout);
        }
    });

    auto* nfc = add_util_command(
        util, "nfc-check",
        "Check that every string of a JSON file (or a text file) is in Unicode NFC", opts);
    nfc->add_option("file", file)->required();
    nfc->callback([&opts] {
        const std::string input = read_input(file);
        std::vector<std::string> bad;
        auto doc = core::parse_json(input);
        if (doc) {
            find_non_nfc(*doc, "", bad);
            for (auto& p : bad)
                if (p.empty()) p = "(root)";  // the whole document is one string
        } else if (!core::is_nfc(input)) {
            bad.push_back("(text)");
        }
        if (opts.json) {
            Output out(true);
            out.add("nfc", bad.empty());
            out.add("not_nfc", bad);
            out.flush();
        }
        if (!bad.empty()) throw CliError(fmt::format("not in NFC: {}", fmt::join(bad, ", ")));
        if (!opts.json) fmt::print("nfc\n");
    });
}

}  // namespace credence::cmd
