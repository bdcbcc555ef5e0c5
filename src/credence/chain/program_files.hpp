// Where the program's own files are once installed. `cmake --install` and the Debian package
// (docs/operating.md) lay out
//
//   <prefix>/bin/credence
//   <prefix>/libexec/credence/anvil       the local devnet's anvil (Foundry, from npm)
//   <prefix>/share/credence/web/          the explorer that `credence node` serves
//   <prefix>/share/credence/abi/          the contracts' ABIs
//
// and the binary finds them relative to its own path, so an installed tree works wherever it is
// unpacked (/usr, /opt, a scratch root) and needs no source checkout.
//
// Thread-safety: the functions are pure apart from reading /proc/self/exe and the file system.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace credence::chain {

/// The directory holding the running executable (/proc/self/exe), or empty when unreadable.
[[nodiscard]] std::filesystem::path executable_dir();

/// <prefix>/<relative> for the install prefix of the running executable (the parent of its
/// bin/ directory), or empty when the executable's path is unreadable.
[[nodiscard]] std::filesystem::path installed_path(const std::filesystem::path& relative);

/// One place a program file was looked for, for the one-line error that lists them.
struct SearchStep {
    std::string where;           ///< e.g. "$CREDENCE_ANVIL", "--anvil"
    std::filesystem::path path;  ///< empty when the step did not apply (variable unset)
};

/// "looked in: A (path), B (path), ..." for an error line.
[[nodiscard]] std::string describe_search(const std::vector<SearchStep>& steps);

}  // namespace credence::chain
