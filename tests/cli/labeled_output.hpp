// Reading the labeled human output of `credence agent|tool|feedback|trust` (docs/cli.md §Output):
// "name  value" lines, the names being the --json keys, the values starting in one column.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace credence::testing {

/// The value on the line labeled `name` (its further lines not included); "<missing>" when no
/// line carries that label.
inline std::string labeled_value(const std::string& out, const std::string& name) {
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
        if (!line.starts_with(name + " ")) continue;
        const size_t value = line.find_first_not_of(' ', name.size());
        return value == std::string::npos ? std::string() : line.substr(value);
    }
    return "<missing>";
}

/// The labels of every line that starts one (lines that continue a value are indented).
inline std::vector<std::string> labels(const std::string& out) {
    std::vector<std::string> names;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line.front() == ' ') continue;
        names.push_back(line.substr(0, line.find(' ')));
    }
    return names;
}

}  // namespace credence::testing
