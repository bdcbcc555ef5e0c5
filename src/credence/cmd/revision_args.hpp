// `--revision current|score|draft` of `credence agent`, `credence feedback` and `credence
// validation` (docs/cli.md §Earlier ERC-8004 revisions): which revision's registry a command
// writes and reads. The registry is the deployment file's contract whose recorded revision is the
// one asked for (chain/deployment.hpp `revisions`), unless --registry names one. A subcommand that
// has no counterpart in a revision fails with one line citing that revision's text.
// Thread-safety: pure functions, except that revision_registry reads the deployment through ctx.
#pragma once

#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include <credence/cmd/chain_context.hpp>
#include <credence/core/address.hpp>
#include <credence/core/erc8004_revision.hpp>

namespace credence::cmd {

/// Adds `--revision` (default "current") to `cmd`.
void add_revision_option(CLI::App& cmd, std::string& revision);

/// The revision named by --revision; CliError "--revision 'x': unknown ERC-8004 revision
/// (expected current, score or draft)" for any other word.
[[nodiscard]] core::Erc8004Revision parse_revision_arg(std::string_view text);

/// How messages name a revision's text: "ERC-8004", "ERC-8004 intermediate", "ERC-8004 first
/// draft" (the citations of docs/compatibility.md).
[[nodiscard]] std::string_view revision_citation(core::Erc8004Revision revision) noexcept;
/// How messages name a revision: "the current revision", "the intermediate revision", "the first
/// draft".
[[nodiscard]] std::string_view revision_title(core::Erc8004Revision revision) noexcept;

/// The address of `revision`'s `registry`: `override_flag` (--registry) when non-empty, else the
/// deployment's contract recorded with that revision. CliError when the deployment has none
/// ("the deployment has no ScoreReputationRegistry (the intermediate revision's Reputation
/// Registry); deploy it with `credence devnet --revisions all`, or pass --registry").
[[nodiscard]] core::Address revision_registry(ChainContext& ctx, core::Erc8004Revision revision,
                                              core::Erc8004Registry registry,
                                              std::string_view override_flag);

/// Throws CliError "<title> has no <what> (<citation> §<section>)[; <hint>]", e.g. "the first
/// draft has no on-chain feedback (ERC-8004 first draft §Reputation Registry)".
[[noreturn]] void absent_in_revision(core::Erc8004Revision revision, std::string_view what,
                                     std::string_view section, std::string_view hint = {});

/// Throws CliError when a flag that only `owner` revision takes was given under another one:
/// "--domain is a first draft flag: add --revision draft".
void require_revision_for_flag(core::Erc8004Revision revision, core::Erc8004Revision owner,
                               bool given, std::string_view flag);

}  // namespace credence::cmd
