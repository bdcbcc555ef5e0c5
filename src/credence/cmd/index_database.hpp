// The index database every command that reads or writes the index opens the same way:
// --database as given (a SQLite path, "sqlite:PATH", or a postgresql:// URL), else
// $CREDENCE_DATABASE, else $CREDENCE_HOME/index.sqlite (docs/architecture.md §index/: one file
// under the data directory). Errors throw CliError.
#pragma once

#include <memory>
#include <string>

#include <credence/index/database.hpp>

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

/// The --database help text, the same for every command.
inline constexpr const char* kDatabaseHelp =
    "SQLite file or postgresql:// URL (default $CREDENCE_DATABASE, else "
    "$CREDENCE_HOME/index.sqlite)";

}  // namespace credence::cmd
