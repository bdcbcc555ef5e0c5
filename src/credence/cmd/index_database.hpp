// The index database every command that reads or writes the index opens the same way:
// --database as given (a SQLite path, "sqlite:PATH", or a postgresql:// URL), else
// $CREDENCE_DATABASE, else $CREDENCE_HOME/index.sqlite (docs/architecture.md §index/: one file
// under the data directory). Errors throw CliError.
#pragma once

#include <memory>
#include <string>

#include <credence/cmd/chain_context.hpp>
#include <credence/index/database.hpp>
#include <credence/index/store.hpp>

namespace credence::cmd {

/// $CREDENCE_DATABASE, else $CREDENCE_HOME/index.sqlite.
[[nodiscard]] std::string default_index_database();

/// Whether opening may create a new, empty SQLite index.
enum class IndexOpen { create, existing };

/// Opens `location` (default_index_database() when empty): with IndexOpen::create, a missing
/// SQLite file is created with its directory; with IndexOpen::existing (commands that only read
/// the index) a missing file is an error rather than a new empty index.
[[nodiscard]] std::unique_ptr<index::Database> open_index_database(
    const std::string& location, IndexOpen mode = IndexOpen::create);

/// The chain a command that reads the index is about: --chain-id, else the node's, else the one
/// chain the index holds, so the index answers without a node (docs/cli.md). Throws the node's
/// error, with the way out, when none of them says.
[[nodiscard]] uint64_t index_chain_id(const ChainOptions& options, ChainContext& ctx,
                                      index::IndexStore& store);

/// The --database help text, the same for every command.
inline constexpr const char* kDatabaseHelp =
    "SQLite file or postgresql:// URL (default $CREDENCE_DATABASE, else "
    "$CREDENCE_HOME/index.sqlite)";

}  // namespace credence::cmd
