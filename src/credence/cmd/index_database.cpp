#include <credence/cmd/index_database.hpp>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include <credence/chain/deployment.hpp>
#include <credence/cmd/commands.hpp>

namespace credence::cmd {

std::string default_index_database() {
    if (const char* env = std::getenv("CREDENCE_DATABASE"); env != nullptr && *env != '\0') {
        return env;
    }
    return (chain::credence_home() / "index.sqlite").string();
}

std::unique_ptr<index::Database> open_index_database(const std::string& location, IndexOpen mode) {
    const std::string where = location.empty() ? default_index_database() : location;
    if (!index::is_postgres_location(where)) {
        const std::filesystem::path path = where.starts_with("sqlite:") ? where.substr(7) : where;
        if (mode == IndexOpen::existing && !std::filesystem::exists(path)) {
            throw CliError(fmt::format(
                "database: no index at {}: run `credence index` first, or pass --database",
                path.string()));
        }
        std::error_code ec;  // open_database reports a directory that could not be made
        if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    }
    auto db = index::open_database(where);
    if (!db) throw CliError(db.error().to_string());
    return std::move(*db);
}

uint64_t index_chain_id(const ChainOptions& options, ChainContext& ctx, index::IndexStore& store) {
    if (options.chain_id) return *options.chain_id;
    const auto& node = ctx.node_chain_id();
    if (node) return *node;
    auto chains = store.chains();
    if (chains && chains->size() == 1) return chains->front();
    throw CliError(
        fmt::format("{}; or pass --chain-id N to read the index without a node", node.error()));
}

}  // namespace credence::cmd
