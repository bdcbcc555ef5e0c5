#include <credence/node/config.hpp>

#include <cmath>
#include <exception>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <toml++/toml.h>

#include <credence/core/address.hpp>
#include <credence/verify/net/ssrf_guard.hpp>

namespace credence::node {
namespace {

using Result = std::expected<void, std::string>;

/// Reads one TOML value into a field; the error names the key ("http.port: ...").
class Reader {
public:
    Reader(std::string_view origin, std::string key) : origin_(origin), key_(std::move(key)) {}

    [[nodiscard]] std::string fail(std::string_view what) const {
        return fmt::format("{}: {}: {}", origin_, key_, what);
    }

    Result string(const toml::node& n, std::string& out) const {
        const auto v = n.value<std::string>();
        if (!n.is_string() || !v.has_value()) return std::unexpected(fail("must be a string"));
        out = v.value_or(std::string());
        return {};
    }
    Result path(const toml::node& n, std::filesystem::path& out) const {
        std::string s;
        if (auto r = string(n, s); !r) return r;
        out = s;
        return {};
    }
    Result boolean(const toml::node& n, bool& out) const {
        if (!n.is_boolean()) return std::unexpected(fail("must be true or false"));
        out = n.value<bool>().value_or(false);
        return {};
    }
    template <typename T>
    Result integer(const toml::node& n, T& out, int64_t low, int64_t high) const {
        if (!n.is_integer()) {
            return std::unexpected(fail(fmt::format("must be an integer in {}..{}", low, high)));
        }
        const int64_t v = n.value<int64_t>().value_or(0);
        if (v < low || v > high) {
            return std::unexpected(fail(fmt::format("must be an integer in {}..{}", low, high)));
        }
        out = static_cast<T>(v);
        return {};
    }
    template <typename T>
    Result optional_integer(const toml::node& n, std::optional<T>& out, int64_t low,
                            int64_t high) const {
        T v{};
        if (auto r = integer(n, v, low, high); !r) return r;
        out = v;
        return {};
    }
    Result number(const toml::node& n, double& out, double low, double high) const {
        if (!n.is_number()) return std::unexpected(fail("must be a number"));
        const double v = n.is_integer() ? static_cast<double>(n.value<int64_t>().value_or(0))
                                        : n.value<double>().value_or(0.0);
        if (!std::isfinite(v) || v < low || v > high) {
            return std::unexpected(fail(fmt::format("must be a number in {}..{}", low, high)));
        }
        out = v;
        return {};
    }
    Result strings(const toml::node& n, std::vector<std::string>& out) const {
        const auto* array = n.as_array();
        if (array == nullptr) return std::unexpected(fail("must be an array of strings"));
        out.clear();
        for (const auto& item : *array) {
            const auto v = item.value<std::string>();
            if (!item.is_string() || !v.has_value()) {
                return std::unexpected(fail("must be an array of strings"));
            }
            out.push_back(v.value_or(std::string()));
        }
        return {};
    }

private:
    std::string_view origin_;
    std::string key_;
};

using FieldSetter = std::function<Result(const Reader&, const toml::node&)>;
using Fields = std::map<std::string, FieldSetter, std::less<>>;

constexpr int64_t kMaxInt = std::numeric_limits<int64_t>::max();
constexpr int64_t kMaxUint32 = std::numeric_limits<uint32_t>::max();

Fields chain_fields(ChainConfig& c) {
    return {
        {"rpc", [&c](const Reader& r, const toml::node& n) { return r.string(n, c.rpc); }},
        {"chain_id",
         [&c](const Reader& r, const toml::node& n) {
             return r.optional_integer(n, c.chain_id, 1, kMaxInt);
         }},
        {"deployment",
         [&c](const Reader& r, const toml::node& n) { return r.string(n, c.deployment); }},
        {"finality_depth",
         [&c](const Reader& r, const toml::node& n) {
             return r.optional_integer(n, c.finality_depth, 0, 1'000'000);
         }},
        {"seconds_per_block",
         [&c](const Reader& r, const toml::node& n) {
             double v = 0;
             if (auto res = r.number(n, v, 0.001, 86'400); !res) return res;
             c.seconds_per_block = v;
             return Result{};
         }},
        {"poll_ms", [&c](const Reader& r,
                         const toml::node& n) { return r.integer(n, c.poll_ms, 10, 600'000); }},
        {"getlogs_in_flight",
         [&c](const Reader& r, const toml::node& n) {
             unsigned v = 0;
             if (auto res = r.integer(n, v, 1, 32); !res) return res;
             c.getlogs_in_flight = v;
             return Result{};
         }},
        {"devnet_port",
         [&c](const Reader& r, const toml::node& n) {
             return r.integer(n, c.devnet_port, 0, 65'535);
         }},
        {"devnet_state",
         [&c](const Reader& r, const toml::node& n) { return r.string(n, c.devnet_state); }},
        {"ws", [&c](const Reader& r, const toml::node& n) { return r.string(n, c.ws); }},
    };
}

Fields node_fields(RoleConfig& c) {
    return {
        {"role",
         [&c](const Reader& r, const toml::node& n) {
             std::string text;
             if (auto res = r.string(n, text); !res) return res;
             const auto role = parse_node_role(text);
             if (!role) return Result(std::unexpected(r.fail(role.error())));
             c.role = *role;
             return Result{};
         }},
        {"election_retry_ms",
         [&c](const Reader& r, const toml::node& n) {
             return r.integer(n, c.election_retry_ms, 50, 600'000);
         }},
    };
}

Fields database_fields(DatabaseConfig& d) {
    return {
        {"location",
         [&d](const Reader& r, const toml::node& n) { return r.string(n, d.location); }},
        {"data_dir", [&d](const Reader& r, const toml::node& n) { return r.path(n, d.data_dir); }},
        {"check",
         [&d](const Reader& r, const toml::node& n) {
             std::string text;
             if (auto res = r.string(n, text); !res) return res;
             const auto check = index::parse_integrity_check(text);
             if (!check)
                 return Result(std::unexpected(r.fail("must be \"quick\", \"full\" or \"off\"")));
             d.check = *check;
             return Result{};
         }},
    };
}

Fields health_fields(HealthConfig& h) {
    return {
        {"max_lag_blocks",
         [&h](const Reader& r, const toml::node& n) {
             return r.integer(n, h.max_lag_blocks, 0, kMaxInt);
         }},
        {"max_replication_lag_seconds",
         [&h](const Reader& r, const toml::node& n) {
             return r.number(n, h.max_replication_lag_seconds, 0, 1e9);
         }},
        {"degraded_status",
         [&h](const Reader& r, const toml::node& n) {
             if (!n.is_integer() || (n.value<int64_t>() != 200 && n.value<int64_t>() != 503)) {
                 return Result(std::unexpected(r.fail("must be 200 or 503")));
             }
             h.degraded_status = static_cast<int>(n.value<int64_t>().value_or(503));
             return Result{};
         }},
    };
}

Fields http_fields(HttpConfig& h) {
    return {
        {"bind", [&h](const Reader& r, const toml::node& n) { return r.string(n, h.bind); }},
        {"port",
         [&h](const Reader& r, const toml::node& n) { return r.integer(n, h.port, 0, 65'535); }},
        {"static_dir",
         [&h](const Reader& r, const toml::node& n) { return r.path(n, h.static_dir); }},
        {"max_body_bytes",
         [&h](const Reader& r, const toml::node& n) {
             return r.integer(n, h.max_body_bytes, 1, int64_t{1} << 30);
         }},
        {"rate_limit_per_second",
         [&h](const Reader& r, const toml::node& n) {
             return r.number(n, h.rate_limit_per_second, 0.001, 1e9);
         }},
        {"rate_limit_burst",
         [&h](const Reader& r, const toml::node& n) {
             return r.number(n, h.rate_limit_burst, 1, 1e9);
         }},
        {"threads",
         [&h](const Reader& r, const toml::node& n) { return r.integer(n, h.threads, 1, 1024); }},
        {"max_connections",
         [&h](const Reader& r, const toml::node& n) {
             return r.integer(n, h.max_connections, 1, 1'000'000);
         }},
        {"max_connections_per_ip",
         [&h](const Reader& r, const toml::node& n) {
             return r.integer(n, h.max_connections_per_ip, 1, 1'000'000);
         }},
        {"idle_timeout_ms",
         [&h](const Reader& r, const toml::node& n) {
             return r.integer(n, h.idle_timeout_ms, 100, 3'600'000);
         }},
        {"header_timeout_ms",
         [&h](const Reader& r, const toml::node& n) {
             return r.integer(n, h.header_timeout_ms, 100, 3'600'000);
         }},
        {"body_timeout_ms",
         [&h](const Reader& r, const toml::node& n) {
             return r.integer(n, h.body_timeout_ms, 100, 3'600'000);
         }},
        {"write_timeout_ms",
         [&h](const Reader& r, const toml::node& n) {
             return r.integer(n, h.write_timeout_ms, 100, 3'600'000);
         }},
        // The floors keep an ordinary browser request (about 1 KiB of headers) possible.
        {"max_header_bytes",
         [&h](const Reader& r, const toml::node& n) {
             return r.integer(n, h.max_header_bytes, 1024, 1 << 20);
         }},
        {"max_target_bytes",
         [&h](const Reader& r, const toml::node& n) {
             return r.integer(n, h.max_target_bytes, 256, 1 << 20);
         }},
        {"keep_alive_requests",
         [&h](const Reader& r, const toml::node& n) {
             return r.integer(n, h.keep_alive_requests, 1, 1'000'000);
         }},
    };
}

Fields trust_fields(TrustEngineConfig& t) {
    return {
        {"trusted", [&t](const Reader& r, const toml::node& n) { return r.strings(n, t.trusted); }},
        {"full_interval_seconds",
         [&t](const Reader& r, const toml::node& n) {
             return r.integer(n, t.full_interval_seconds, 1, kMaxUint32);
         }},
        {"incremental_interval_ms",
         [&t](const Reader& r, const toml::node& n) {
             return r.integer(n, t.incremental_interval_ms, 10, kMaxUint32);
         }},
        {"half_life_days",
         [&t](const Reader& r, const toml::node& n) {
             return r.number(n, t.half_life_days, 0.001, 36'500);
         }},
    };
}

Fields verify_fields(VerifyConfig& v) {
    return {
        {"enabled", [&v](const Reader& r, const toml::node& n) { return r.boolean(n, v.enabled); }},
        {"max_age_seconds",
         [&v](const Reader& r, const toml::node& n) {
             return r.integer(n, v.max_age_seconds, 0, kMaxInt);
         }},
        {"interval_seconds",
         [&v](const Reader& r, const toml::node& n) {
             return r.integer(n, v.interval_seconds, 1, kMaxUint32);
         }},
        {"batch",
         [&v](const Reader& r, const toml::node& n) { return r.integer(n, v.batch, 1, 10'000); }},
    };
}

Fields fetch_fields(FetchConfig& f) {
    return {
        {"allow_http",
         [&f](const Reader& r, const toml::node& n) { return r.boolean(n, f.allow_http); }},
        {"ca_file", [&f](const Reader& r, const toml::node& n) { return r.string(n, f.ca_file); }},
        {"allow_hosts",
         [&f](const Reader& r, const toml::node& n) { return r.strings(n, f.allow_hosts); }},
        {"connect_to",
         [&f](const Reader& r, const toml::node& n) { return r.strings(n, f.connect_to); }},
        {"ipfs_gateways",
         [&f](const Reader& r, const toml::node& n) { return r.strings(n, f.ipfs_gateways); }},
    };
}

Result apply_table(const toml::node& node, std::string_view table, std::string_view origin,
                   const Fields& fields) {
    const auto* t = node.as_table();
    if (t == nullptr) return std::unexpected(fmt::format("{}: {}: must be a table", origin, table));
    for (const auto& [key, value] : *t) {
        const std::string full = fmt::format("{}.{}", table, key.str());
        const auto it = fields.find(key.str());
        if (it == fields.end())
            return std::unexpected(fmt::format("{}: {}: unknown key", origin, full));
        if (auto r = it->second(Reader(origin, full), value); !r) return r;
    }
    return {};
}

// [[registries]] kind = "reputation", address = "0x...", start_block = 0, name = "..."
// `key` is where the array sits: "registries" or "chains[1].registries".
Result apply_registries(const toml::node& node, std::string_view origin, std::string_view key,
                        std::vector<index::RegistrySource>& out) {
    const auto* array = node.as_array();
    if (array == nullptr) {
        return std::unexpected(
            fmt::format("{}: {}: must be an array of tables ([[{}]])", origin, key, key));
    }
    out.clear();
    size_t i = 0;
    for (const auto& item : *array) {
        const std::string prefix = fmt::format("{}[{}]", key, i++);
        const auto* t = item.as_table();
        if (t == nullptr)
            return std::unexpected(fmt::format("{}: {}: must be a table", origin, prefix));
        index::RegistrySource source;
        std::string kind, address;
        const Fields fields{
            {"kind", [&kind](const Reader& r, const toml::node& n) { return r.string(n, kind); }},
            {"address",
             [&address](const Reader& r, const toml::node& n) { return r.string(n, address); }},
            {"start_block",
             [&source](const Reader& r, const toml::node& n) {
                 return r.integer(n, source.start_block, 0, kMaxInt);
             }},
            {"name",
             [&source](const Reader& r, const toml::node& n) { return r.string(n, source.name); }},
        };
        if (auto r = apply_table(item, prefix, origin, fields); !r) return r;
        const auto parsed_kind = index::parse_contract_kind(kind);
        if (!parsed_kind) {
            return std::unexpected(fmt::format(
                "{}: {}.kind: must be identity, reputation, validation, tool, workflow or verifier",
                origin, prefix));
        }
        source.kind = *parsed_kind;
        const auto parsed_address = core::Address::from_hex(address);
        if (!parsed_address) {
            return std::unexpected(fmt::format(
                "{}: {}.address: must be a 0x-prefixed 20-byte address", origin, prefix));
        }
        source.address = *parsed_address;
        if (source.name.empty()) source.name = std::string(index::to_string(source.kind));
        out.push_back(std::move(source));
    }
    return {};
}

// [[chains]] rpc = "https://...", chain_id = 8453, ws = "wss://...", [[chains.registries]] ...
Result apply_chains(const toml::node& node, std::string_view origin,
                    std::vector<ChainConfig>& out) {
    const auto* array = node.as_array();
    if (array == nullptr) {
        return std::unexpected(
            fmt::format("{}: chains: must be an array of tables ([[chains]])", origin));
    }
    out.clear();
    size_t i = 0;
    for (const auto& item : *array) {
        const std::string prefix = fmt::format("chains[{}]", i++);
        ChainConfig chain;
        Fields fields = chain_fields(chain);
        // The embedded devnet stands in for a missing [chain].rpc only: a listed chain is real.
        fields.erase("devnet_port");
        fields.erase("devnet_state");
        fields.emplace(
            "registries", [&chain, &origin, &prefix](const Reader&, const toml::node& n) {
                return apply_registries(n, origin, prefix + ".registries", chain.registries);
            });
        if (auto r = apply_table(item, prefix, origin, fields); !r) return r;
        if (chain.rpc.empty())
            return std::unexpected(fmt::format("{}: {}.rpc: is required", origin, prefix));
        if (!chain.chain_id)
            return std::unexpected(fmt::format("{}: {}.chain_id: is required", origin, prefix));
        out.push_back(std::move(chain));
    }
    return {};
}

// [[payment_chains]] chain_id = 8453, rpc = "https://..."
Result apply_payment_chains(const toml::node& node, std::string_view origin,
                            std::vector<PaymentChain>& out) {
    const auto* array = node.as_array();
    if (array == nullptr) {
        return std::unexpected(fmt::format(
            "{}: payment_chains: must be an array of tables ([[payment_chains]])", origin));
    }
    out.clear();
    size_t i = 0;
    for (const auto& item : *array) {
        const std::string prefix = fmt::format("payment_chains[{}]", i++);
        if (item.as_table() == nullptr)
            return std::unexpected(fmt::format("{}: {}: must be a table", origin, prefix));
        PaymentChain chain;
        const Fields fields{
            {"chain_id",
             [&chain](const Reader& r, const toml::node& n) {
                 return r.integer(n, chain.chain_id, 1, kMaxInt);
             }},
            {"rpc",
             [&chain](const Reader& r, const toml::node& n) { return r.string(n, chain.rpc); }},
        };
        if (auto r = apply_table(item, prefix, origin, fields); !r) return r;
        if (chain.chain_id == 0 || chain.rpc.empty())
            return std::unexpected(fmt::format("{}: {}: needs chain_id and rpc", origin, prefix));
        out.push_back(std::move(chain));
    }
    return {};
}

}  // namespace

std::expected<void, std::string> apply_node_config(std::string_view toml_text,
                                                   std::string_view origin, NodeConfig& config) {
    toml::table root;
    try {
        root = toml::parse(toml_text, origin);
    } catch (const toml::parse_error& e) {
        const auto& where = e.source().begin;
        return std::unexpected(
            fmt::format("{}:{}:{}: {}", origin, where.line, where.column, e.description()));
    } catch (const std::exception& e) {
        return std::unexpected(fmt::format("{}: {}", origin, e.what()));
    }
    for (const auto& [key, value] : root) {
        const std::string_view k = key.str();
        Result r;
        if (k == "chain") {
            config.chain_table_given = true;
            r = apply_table(value, k, origin, chain_fields(config.chain));
        } else if (k == "chains") {
            r = apply_chains(value, origin, config.chains);
        } else if (k == "node") {
            r = apply_table(value, k, origin, node_fields(config.node));
        } else if (k == "database") {
            r = apply_table(value, k, origin, database_fields(config.database));
        } else if (k == "http") {
            r = apply_table(value, k, origin, http_fields(config.http));
        } else if (k == "health") {
            r = apply_table(value, k, origin, health_fields(config.health));
        } else if (k == "trust") {
            r = apply_table(value, k, origin, trust_fields(config.trust));
        } else if (k == "verify") {
            r = apply_table(value, k, origin, verify_fields(config.verify));
        } else if (k == "fetch") {
            r = apply_table(value, k, origin, fetch_fields(config.fetch));
        } else if (k == "registries") {
            r = apply_registries(value, origin, "registries", config.registries);
        } else if (k == "payment_chains") {
            r = apply_payment_chains(value, origin, config.payment_chains);
        } else {
            r = std::unexpected(fmt::format("{}: {}: unknown table", origin, k));
        }
        if (!r) return r;
    }
    return {};
}

std::expected<NodeConfig, std::string> load_node_config(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::unexpected(fmt::format("cannot read config file {}", path.string()));
    std::stringstream text;
    text << in.rdbuf();
    NodeConfig config;
    if (auto r = apply_node_config(text.str(), path.filename().string(), config); !r) {
        return std::unexpected(r.error());
    }
    return config;
}

std::string_view to_string(NodeRole role) noexcept {
    switch (role) {
        case NodeRole::all:
            return "all";
        case NodeRole::writer:
            return "writer";
        case NodeRole::api:
            return "api";
    }
    return "all";
}

std::expected<NodeRole, std::string> parse_node_role(std::string_view text) {
    if (text == "all") return NodeRole::all;
    if (text == "writer") return NodeRole::writer;
    if (text == "api") return NodeRole::api;
    return std::unexpected("must be \"all\", \"writer\" or \"api\"");
}

std::vector<ChainConfig> followed_chains(const NodeConfig& config) {
    if (!config.chains.empty()) return config.chains;
    ChainConfig one = config.chain;
    one.registries = config.registries;
    return {one};
}

namespace {

Result validate_registries(const std::vector<index::RegistrySource>& registries,
                           std::string_view key) {
    if (const auto twice = index::repeated_address(registries)) {
        return std::unexpected(fmt::format(
            "{0}[{1}] and {0}[{2}] name one contract as one kind twice ({3}): give it once", key,
            twice->first, twice->second, registries[twice->second].address.to_checksum_hex()));
    }
    return {};
}

Result validate_chains(const NodeConfig& config) {
    if (config.chains.empty()) return validate_registries(config.registries, "registries");
    if (config.chain_table_given) {
        return std::unexpected(
            "chain: the file lists [[chains]]: give every chain there and drop [chain]");
    }
    if (!config.registries.empty()) {
        return std::unexpected(
            "registries: the file lists [[chains]]: give each chain's registries as "
            "[[chains.registries]]");
    }
    std::map<uint64_t, size_t> seen;
    for (size_t i = 0; i < config.chains.size(); ++i) {
        const ChainConfig& c = config.chains[i];
        const uint64_t id = c.chain_id.value_or(0);
        if (const auto [it, fresh] = seen.emplace(id, i); !fresh) {
            return std::unexpected(fmt::format(
                "chains[{}].chain_id: chain {} is already chains[{}]", i, id, it->second));
        }
        if (!c.ws.empty() && !c.ws.starts_with("ws://") && !c.ws.starts_with("wss://")) {
            return std::unexpected(fmt::format("chains[{}].ws: must be a ws:// or wss:// URL", i));
        }
        if (auto r = validate_registries(c.registries, fmt::format("chains[{}].registries", i)); !r)
            return r;
    }
    return {};
}

}  // namespace

std::expected<void, std::string> validate(const NodeConfig& config) {
    for (const auto& t : config.trust.trusted) {
        if (!core::Address::from_hex(t)) {
            return std::unexpected(
                fmt::format("trust.trusted: '{}' is not a 0x-prefixed 20-byte address", t));
        }
    }
    if (config.http.bind.empty()) return std::unexpected("http.bind: must not be empty");
    if (auto allow = verify::HostAllowList::parse(config.fetch.allow_hosts); !allow)
        return std::unexpected("fetch.allow_hosts: " + allow.error());
    if (!config.fetch.ca_file.empty() && !std::filesystem::exists(config.fetch.ca_file)) {
        return std::unexpected(fmt::format("fetch.ca_file: no such file {}", config.fetch.ca_file));
    }
    if (!config.http.static_dir.empty() && !std::filesystem::is_directory(config.http.static_dir)) {
        return std::unexpected(
            fmt::format("http.static_dir: no such directory {}", config.http.static_dir.string()));
    }
    if (config.http.rate_limit_burst < 1) {
        return std::unexpected("http.rate_limit_burst: must be at least 1");
    }
    if (!config.chain.ws.empty() && !config.chain.ws.starts_with("ws://") &&
        !config.chain.ws.starts_with("wss://")) {
        return std::unexpected("chain.ws: must be a ws:// or wss:// URL");
    }
    if (auto r = validate_chains(config); !r) return r;
    if (config.node.role == NodeRole::api) {
        // An API node never asks a chain: its ids must be given (docs/scale.md).
        for (const auto& c : followed_chains(config)) {
            if (!c.chain_id) {
                return std::unexpected(
                    "chain.chain_id: an API node (node.role = \"api\") needs each chain's id");
            }
        }
    }
    return {};
}

}  // namespace credence::node
