// NodeConfig from TOML: every table read, wrong types and unknown keys refused with the key named.
#include <credence/node/config.hpp>

#include <string>

#include <gtest/gtest.h>

#include <support/scratch.hpp>

namespace credence::node {
namespace {

std::string error_of(std::string_view text) {
    NodeConfig c;
    auto r = apply_node_config(text, "node.toml", c);
    return r ? std::string() : r.error();
}

TEST(node_config, reads_every_table) {
    NodeConfig c;
    auto r = apply_node_config(R"(
[chain]
rpc = "http://127.0.0.1:9545"
chain_id = 11155111
finality_depth = 12
seconds_per_block = 2.5
poll_ms = 250
getlogs_in_flight = 2

[database]
location = "postgresql://postgres@127.0.0.1:5432/credence"

[[registries]]
kind = "reputation"
address = "0x8004B663056A597Dffe9eCcC1965A193B7388713"
start_block = 100

[[registries]]
kind = "identity"
address = "0x8004A818BFB912233c491871b3d84c89A494BD9e"

[[payment_chains]]
chain_id = 8453
rpc = "https://base.example/rpc"

[http]
bind = "0.0.0.0"
port = 9000
max_body_bytes = 1024
rate_limit_per_second = 5
rate_limit_burst = 10
threads = 2

[trust]
trusted = ["0x00000000000000000000000000000000000000aa"]
full_interval_seconds = 60
half_life_days = 30

[verify]
enabled = false
max_age_seconds = 3600
batch = 8

[fetch]
allow_http = true
allow_hosts = ["127.0.0.0/8"]
)",
                               "node.toml", c);
    ASSERT_TRUE(r.has_value()) << r.error();
    EXPECT_EQ(c.chain.rpc, "http://127.0.0.1:9545");
    EXPECT_EQ(c.chain.chain_id, 11155111u);
    EXPECT_EQ(c.chain.finality_depth, 12u);
    EXPECT_EQ(c.chain.seconds_per_block, 2.5);
    EXPECT_EQ(c.chain.poll_ms, 250u);
    EXPECT_EQ(c.chain.getlogs_in_flight, 2u);
    EXPECT_EQ(c.database.location, "postgresql://postgres@127.0.0.1:5432/credence");
    ASSERT_EQ(c.registries.size(), 2u);
    EXPECT_EQ(c.registries[0].kind, index::ContractKind::reputation_registry);
    EXPECT_EQ(c.registries[0].start_block, 100u);
    ASSERT_EQ(c.payment_chains.size(), 1u);
    EXPECT_EQ(c.payment_chains[0].chain_id, 8453u);
    EXPECT_EQ(c.payment_chains[0].rpc, "https://base.example/rpc");
    EXPECT_EQ(c.registries[1].kind, index::ContractKind::identity_registry);
    EXPECT_EQ(c.http.bind, "0.0.0.0");
    EXPECT_EQ(c.http.port, 9000);
    EXPECT_EQ(c.http.max_body_bytes, 1024u);
    EXPECT_EQ(c.http.rate_limit_per_second, 5.0);  // an integer is a number too
    EXPECT_EQ(c.http.threads, 2u);
    EXPECT_EQ(c.trust.trusted.size(), 1u);
    EXPECT_EQ(c.trust.full_interval_seconds, 60u);
    EXPECT_EQ(c.trust.half_life_days, 30.0);
    EXPECT_FALSE(c.verify.enabled);
    EXPECT_EQ(c.verify.max_age_seconds, 3600);
    EXPECT_EQ(c.verify.batch, 8u);
    EXPECT_TRUE(c.fetch.allow_http);
    EXPECT_EQ(c.fetch.allow_hosts, std::vector<std::string>{"127.0.0.0/8"});
    EXPECT_TRUE(validate(c).has_value());
}

TEST(node_config, absent_keys_keep_their_defaults) {
    NodeConfig c;
    ASSERT_TRUE(apply_node_config("[http]\nport = 1234\n", "node.toml", c).has_value());
    EXPECT_EQ(c.http.port, 1234);
    EXPECT_EQ(c.http.bind, "127.0.0.1");
    EXPECT_TRUE(c.chain.rpc.empty());  // the embedded devnet
    EXPECT_TRUE(c.verify.enabled);
    // docs/node.md §IPFS: the public trustless gateways, unless the file says otherwise.
    EXPECT_EQ(c.fetch.ipfs_gateways,
              (std::vector<std::string>{"https://trustless-gateway.link", "https://ipfs.io",
                                        "https://dweb.link"}));
    NodeConfig off;
    ASSERT_TRUE(apply_node_config("[fetch]\nipfs_gateways = []\n", "node.toml", off).has_value());
    EXPECT_TRUE(off.fetch.ipfs_gateways.empty());
    NodeConfig own;
    ASSERT_TRUE(
        apply_node_config("[fetch]\nipfs_gateways = [\"https://gw.example\"]\n", "node.toml", own)
            .has_value());
    EXPECT_EQ(own.fetch.ipfs_gateways, std::vector<std::string>{"https://gw.example"});
}

TEST(node_config, errors_name_the_key) {
    EXPECT_EQ(error_of("[http]\nport = 70000\n"),
              "node.toml: http.port: must be an integer in 0..65535");
    EXPECT_EQ(error_of("[http]\nport = \"80\"\n"),
              "node.toml: http.port: must be an integer in 0..65535");
    EXPECT_EQ(error_of("[http]\nprot = 80\n"), "node.toml: http.prot: unknown key");
    EXPECT_EQ(error_of("[chain]\ngetlogs_in_flight = 0\n"),
              "node.toml: chain.getlogs_in_flight: must be an integer in 1..32");
    EXPECT_EQ(error_of("[htp]\nport = 80\n"), "node.toml: htp: unknown table");
    EXPECT_EQ(error_of("[verify]\nenabled = 1\n"),
              "node.toml: verify.enabled: must be true or false");
    EXPECT_EQ(error_of("[trust]\ntrusted = \"0xaa\"\n"),
              "node.toml: trust.trusted: must be an array of strings");
    EXPECT_EQ(error_of("http = 5\n"), "node.toml: http: must be a table");
    EXPECT_EQ(error_of("[[registries]]\nkind = \"reputation\"\naddress = \"0x12\"\n"),
              "node.toml: registries[0].address: must be a 0x-prefixed 20-byte address");
    EXPECT_EQ(error_of("[[registries]]\nkind = \"nope\"\naddress = \"0x12\"\n"),
              "node.toml: registries[0].kind: must be identity, reputation, validation, tool, "
              "workflow or verifier");
    EXPECT_EQ(error_of("[[payment_chains]]\nchain_id = 8453\n"),
              "node.toml: payment_chains[0]: needs chain_id and rpc");
    EXPECT_EQ(
        error_of("[[payment_chains]]\nchain_id = 0\nrpc = \"https://x\"\n"),
        "node.toml: payment_chains[0].chain_id: must be an integer in 1..9223372036854775807");
    EXPECT_EQ(error_of("[chain]\nseconds_per_block = 0\n"),
              "node.toml: chain.seconds_per_block: must be a number in 0.001..86400");
}

// docs/node.md §HTTP server limits: the server's connection caps and deadlines.
TEST(node_config, http_server_limits) {
    NodeConfig c;
    auto r = apply_node_config(R"(
[http]
max_connections = 100
max_connections_per_ip = 8
idle_timeout_ms = 2000
header_timeout_ms = 3000
body_timeout_ms = 4000
write_timeout_ms = 5000
max_header_bytes = 8192
max_target_bytes = 2048
keep_alive_requests = 10
)",
                               "node.toml", c);
    ASSERT_TRUE(r) << r.error();
    EXPECT_EQ(c.http.max_connections, 100u);
    EXPECT_EQ(c.http.max_connections_per_ip, 8u);
    EXPECT_EQ(c.http.idle_timeout_ms, 2000u);
    EXPECT_EQ(c.http.header_timeout_ms, 3000u);
    EXPECT_EQ(c.http.body_timeout_ms, 4000u);
    EXPECT_EQ(c.http.write_timeout_ms, 5000u);
    EXPECT_EQ(c.http.max_header_bytes, 8192u);
    EXPECT_EQ(c.http.max_target_bytes, 2048u);
    EXPECT_EQ(c.http.keep_alive_requests, 10u);
    EXPECT_NE(error_of("[http]\nmax_header_bytes = 100\n").find("http.max_header_bytes"),
              std::string::npos);
    EXPECT_NE(error_of("[http]\nwrite_timeout_ms = 0\n").find("http.write_timeout_ms"),
              std::string::npos);
    EXPECT_NE(error_of("[http]\nmax_connections_per_ip = 0\n").find("http.max_connections_per_ip"),
              std::string::npos);
    EXPECT_NE(error_of("[http]\nheader_timeout_ms = 10\n").find("http.header_timeout_ms"),
              std::string::npos);
}

TEST(node_config, syntax_errors_give_line_and_column) {
    const std::string e = error_of("[http]\nport = = 80\n");
    EXPECT_EQ(e.rfind("node.toml:2:", 0), 0u) << e;
}

TEST(node_config, validate_checks_addresses_and_files) {
    NodeConfig c;
    c.trust.trusted = {"0x1234"};
    auto r = validate(c);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().rfind("trust.trusted:", 0), 0u) << r.error();
    c = NodeConfig{};
    c.fetch.ca_file = (testing::scratch_dir() / "missing.pem").string();
    r = validate(c);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().rfind("fetch.ca_file:", 0), 0u) << r.error();
    c = NodeConfig{};
    ASSERT_TRUE(apply_node_config(R"(
[[registries]]
kind = "identity"
address = "0x8004A818BFB912233c491871b3d84c89A494BD9e"
[[registries]]
kind = "reputation"
address = "0x8004a818bfb912233c491871b3d84c89a494bd9e"
)",
                                  "node.toml", c));
    // One contract may emit the events of two kinds (sources.hpp).
    EXPECT_TRUE(validate(c).has_value());
    c = NodeConfig{};
    ASSERT_TRUE(apply_node_config(R"(
[[registries]]
kind = "identity"
address = "0x8004A818BFB912233c491871b3d84c89A494BD9e"
[[registries]]
kind = "reputation"
address = "0x8004a818bfb912233c491871b3d84c89a494bd9e"
[[registries]]
kind = "reputation"
address = "0x8004A818BFB912233c491871b3d84c89A494BD9e"
)",
                                  "node.toml", c));
    r = validate(c);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error(),
              "registries[1] and registries[2] name one contract as one kind twice "
              "(0x8004A818BFB912233c491871b3d84c89A494BD9e): give it once");
}

/// The error validate() gives for `text`, or "" when it passes.
std::string validation_error_of(std::string_view text) {
    NodeConfig c;
    if (auto r = apply_node_config(text, "node.toml", c); !r) return r.error();
    auto v = validate(c);
    return v ? std::string() : v.error();
}

TEST(node_config, chains_list_many_chains_each_with_its_registries) {
    NodeConfig c;
    auto r = apply_node_config(R"(
[[chains]]
rpc = "https://mainnet.example/rpc"
ws = "wss://mainnet.example/ws"
chain_id = 1
finality_depth = 64

[[chains]]
rpc = "https://base.example/rpc"
chain_id = 8453
poll_ms = 500
[[chains.registries]]
kind = "identity"
address = "0x8004A169FB4a3325136EB29fA0ceB6D2e539a432"
start_block = 35000000
)",
                               "node.toml", c);
    ASSERT_TRUE(r) << r.error();
    ASSERT_TRUE(validate(c)) << validate(c).error();
    const auto chains = followed_chains(c);
    ASSERT_EQ(chains.size(), 2u);
    EXPECT_EQ(chains[0].chain_id, 1u);
    EXPECT_EQ(chains[0].ws, "wss://mainnet.example/ws");
    EXPECT_EQ(chains[0].finality_depth, 64u);
    EXPECT_TRUE(chains[0].registries.empty());
    EXPECT_EQ(chains[1].chain_id, 8453u);
    EXPECT_EQ(chains[1].poll_ms, 500u);
    ASSERT_EQ(chains[1].registries.size(), 1u);
    EXPECT_EQ(chains[1].registries[0].start_block, 35000000u);
    EXPECT_EQ(chains[1].registries[0].kind, index::ContractKind::identity_registry);
}

TEST(node_config, one_chain_is_chain_with_its_registries) {
    NodeConfig c;
    ASSERT_TRUE(apply_node_config(R"(
[chain]
rpc = "http://127.0.0.1:8545"
[[registries]]
kind = "identity"
address = "0x8004A169FB4a3325136EB29fA0ceB6D2e539a432"
)",
                                  "node.toml", c));
    const auto chains = followed_chains(c);
    ASSERT_EQ(chains.size(), 1u);
    EXPECT_EQ(chains[0].rpc, "http://127.0.0.1:8545");
    EXPECT_EQ(chains[0].registries.size(), 1u);
}

TEST(node_config, chains_errors_name_the_key) {
    EXPECT_EQ(validation_error_of("[[chains]]\nchain_id = 1\n"),
              "node.toml: chains[0].rpc: is required");
    EXPECT_EQ(validation_error_of("[[chains]]\nrpc = \"http://a\"\n"),
              "node.toml: chains[0].chain_id: is required");
    EXPECT_EQ(
        validation_error_of("[[chains]]\nrpc = \"http://a\"\nchain_id = 1\ndevnet_port = 5\n"),
        "node.toml: chains[0].devnet_port: unknown key");
    EXPECT_EQ(validation_error_of(
                  "[[chains]]\nrpc = \"http://a\"\nchain_id = 1\n[[chains]]\nrpc = \"http://b\"\n"
                  "chain_id = 2\n[[chains]]\nrpc = \"http://c\"\nchain_id = 1\n"),
              "chains[2].chain_id: chain 1 is already chains[0]");
    EXPECT_EQ(validation_error_of("[chain]\npoll_ms = 100\n[[chains]]\nrpc = \"http://a\"\n"
                                  "chain_id = 1\n"),
              "chain: the file lists [[chains]]: give every chain there and drop [chain]");
    EXPECT_EQ(validation_error_of("[[chains]]\nrpc = \"http://a\"\nchain_id = 1\n[[registries]]\n"
                                  "kind = \"identity\"\n"
                                  "address = \"0x8004A169FB4a3325136EB29fA0ceB6D2e539a432\"\n"),
              "registries: the file lists [[chains]]: give each chain's registries as "
              "[[chains.registries]]");
    EXPECT_EQ(
        validation_error_of("[[chains]]\nrpc = \"http://a\"\nchain_id = 1\nws = \"http://a\"\n"),
        "chains[0].ws: must be a ws:// or wss:// URL");
    EXPECT_EQ(validation_error_of("[[chains]]\nrpc = \"http://a\"\nchain_id = 1\n"
                                  "[[chains.registries]]\nkind = \"tool\"\naddress = \"0x12\"\n"),
              "node.toml: chains[0].registries[0].address: must be a 0x-prefixed 20-byte address");
    // The same contract as the same kind twice on one chain; the same address on two chains is
    // how ERC-8004 is deployed (vanity addresses) and is fine.
    const std::string twice = R"(
[[chains]]
rpc = "http://a"
chain_id = 1
[[chains.registries]]
kind = "identity"
address = "0x8004A169FB4a3325136EB29fA0ceB6D2e539a432"
[[chains]]
rpc = "http://b"
chain_id = 2
[[chains.registries]]
kind = "identity"
address = "0x8004A169FB4a3325136EB29fA0ceB6D2e539a432"
)";
    EXPECT_EQ(validation_error_of(twice), "");
    EXPECT_EQ(validation_error_of(twice + R"([[chains.registries]]
kind = "identity"
address = "0x8004a169fb4a3325136eb29fa0ceb6d2e539a432"
)"),
              "chains[1].registries[0] and chains[1].registries[1] name one contract as one kind "
              "twice (0x8004A169FB4a3325136EB29fA0ceB6D2e539a432): give it once");
    EXPECT_EQ(validation_error_of("chains = 3\n"),
              "node.toml: chains: must be an array of tables ([[chains]])");
}

TEST(node_config, node_role_and_election) {
    NodeConfig c;
    ASSERT_TRUE(
        apply_node_config("[node]\nrole = \"writer\"\nelection_retry_ms = 250\n"
                          "[health]\nmax_replication_lag_seconds = 5\n",
                          "node.toml", c));
    EXPECT_EQ(c.node.role, NodeRole::writer);
    EXPECT_EQ(c.node.election_retry_ms, 250u);
    EXPECT_EQ(c.health.max_replication_lag_seconds, 5.0);
    EXPECT_EQ(NodeConfig{}.node.role, NodeRole::all);
    EXPECT_EQ(validation_error_of("[node]\nrole = \"reader\"\n"),
              "node.toml: node.role: must be \"all\", \"writer\" or \"api\"");
    EXPECT_EQ(validation_error_of("[node]\nelection_retry_ms = 1\n"),
              "node.toml: node.election_retry_ms: must be an integer in 50..600000");
    // An API node asks no chain for its id.
    EXPECT_EQ(validation_error_of("[node]\nrole = \"api\"\n"),
              "chain.chain_id: an API node (node.role = \"api\") needs each chain's id");
    EXPECT_EQ(validation_error_of("[node]\nrole = \"api\"\n[chain]\nchain_id = 1\n"), "");
}

TEST(node_config, load_reads_a_file_and_names_it) {
    const auto path = testing::write_scratch_file("bad_node.toml", "[http]\nport = -1\n");
    auto r = load_node_config(path);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error(), "bad_node.toml: http.port: must be an integer in 0..65535");
    EXPECT_FALSE(load_node_config(testing::scratch_dir() / "absent.toml").has_value());
}

// docs/node.md §Health and §Integrity: the [health] table and database.check.
TEST(node_config, health_and_integrity_check) {
    NodeConfig c;
    EXPECT_EQ(c.database.check, index::IntegrityCheck::quick);
    EXPECT_EQ(c.health.degraded_status, 503);
    auto r = apply_node_config(R"(
[database]
check = "full"

[health]
max_lag_blocks = 7
degraded_status = 200
)",
                               "node.toml", c);
    ASSERT_TRUE(r) << r.error();
    EXPECT_EQ(c.database.check, index::IntegrityCheck::full);
    EXPECT_EQ(c.health.max_lag_blocks, 7U);
    EXPECT_EQ(c.health.degraded_status, 200);
    EXPECT_EQ(error_of("[database]\ncheck = \"fast\"\n"),
              "node.toml: database.check: must be \"quick\", \"full\" or \"off\"");
    EXPECT_EQ(error_of("[health]\ndegraded_status = 500\n"),
              "node.toml: health.degraded_status: must be 200 or 503");
    EXPECT_EQ(error_of("[health]\nmax_lag = 1\n"), "node.toml: health.max_lag: unknown key");
}

}  // namespace
}  // namespace credence::node
