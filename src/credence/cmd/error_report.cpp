#include <credence/cmd/error_report.hpp>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace credence::cmd {
namespace {

/// Levenshtein distance: the typo measure behind "did you mean".
size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<size_t> row(b.size() + 1);
    std::iota(row.begin(), row.end(), size_t{0});
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t above = row[j];
            row[j] =
                std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

/// CLI11 messages are one line today; a future multi-line one still prints as one.
std::string one_line(std::string text) {
    std::replace(text.begin(), text.end(), '\n', ' ');
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text;
}

/// The command path the words name ("credence agent"), and the first word after it that names
/// no subcommand of it, if that command has subcommands.
struct CommandWalk {
    const CLI::App* command = nullptr;
    std::string path;
    std::string unknown;
};

CommandWalk walk_commands(const CLI::App& app, std::span<const char* const> args) {
    CommandWalk walk{&app, "credence", {}};
    for (size_t i = 1; i < args.size(); ++i) {
        const std::string_view word = args[i];
        if (word == "--") break;
        if (word.starts_with('-')) return walk;  // options come after the command's words
        const CLI::App* sub = nullptr;
        const auto subs = walk.command->get_subcommands({});
        for (const CLI::App* candidate : subs) {
            if (candidate->check_name(std::string(word))) sub = candidate;
        }
        if (sub == nullptr) {
            if (!subs.empty()) walk.unknown = word;
            return walk;
        }
        walk.command = sub;
        walk.path += " " + std::string(word);
    }
    return walk;
}

}  // namespace

std::vector<const char*> json_moved_last(std::span<const char* const> args) {
    std::vector<const char*> out;
    bool found = false;
    size_t i = 0;
    for (; i < args.size(); ++i) {
        const std::string_view word = args[i];
        if (i > 0 && word == "--") break;  // what follows is a command's data
        if (i > 0 && word == "--json") {
            found = true;
            continue;
        }
        out.push_back(args[i]);
    }
    // One --json, last before "--": every command that takes it sees it as its own.
    if (found) out.push_back("--json");
    out.insert(out.end(), args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
    return out;
}

bool json_requested(std::span<const char* const> args) {
    for (size_t i = 1; i < args.size(); ++i) {
        const std::string_view word = args[i];
        if (word == "--") return false;
        if (word == "--json") return true;
    }
    return false;
}

std::string describe_usage_error(const CLI::App& app, const CLI::ParseError& error,
                                 std::span<const char* const> args) {
    const CommandWalk walk = walk_commands(app, args);
    if (!walk.unknown.empty()) {
        std::string best;
        size_t best_distance = walk.unknown.size();
        for (const CLI::App* sub : walk.command->get_subcommands({})) {
            const size_t d = edit_distance(walk.unknown, sub->get_name());
            if (d < best_distance) {
                best = sub->get_name();
                best_distance = d;
            }
        }
        // A close name is a typo; anything further is a different word, and only the list helps.
        if (!best.empty() && best_distance <= std::max<size_t>(2, walk.unknown.size() / 3)) {
            return fmt::format("unknown command '{}' for '{}' (did you mean '{}'?)", walk.unknown,
                               walk.path, best);
        }
        return fmt::format("unknown command '{}' for '{}'; see '{} --help'", walk.unknown,
                           walk.path, walk.path);
    }
    return fmt::format("{}; see '{} --help'", one_line(error.what()), walk.path);
}

void print_error(std::string_view message, bool json, const nlohmann::ordered_json& details) {
    if (json) {
        nlohmann::ordered_json error{{"message", message}};
        if (details.is_object())
            for (const auto& [key, value] : details.items()) error[key] = value;
        const nlohmann::ordered_json doc{{"error", std::move(error)}};
        fmt::print(stderr, "{}\n",
                   doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    } else {
        fmt::print(stderr, "error: {}\n", message);
    }
}

}  // namespace credence::cmd
