// ERC-8257 §7 Consumer Verification: the pure part over bytes (ERC-8257 vectors, the spec's
// example), then the whole procedure against a real devnet (tools registered through the
// ToolRegistry) and a real HTTPS server serving good and adversarial manifests. Every ToolReason
// §7 Handling lists is reached here.
#include <credence/verify/verifiers/tool_verifier.hpp>

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <credence/chain/txn_sender.hpp>
#include <credence/core/jcs.hpp>
#include <credence/core/keccak.hpp>
#include <credence/verify/store/index_checks.hpp>

#include "support/devnet.hpp"
#include "support/erc_examples.hpp"
#include "support/https_server.hpp"
#include "support/vectors.hpp"

namespace {

namespace tr = credence::chain::bindings::tool_registry;
using credence::core::Address;
using credence::core::Hash32;
using credence::core::Uint256;
using credence::verify::CheckStatus;
using credence::verify::PredicateRisk;
using credence::verify::ToolConfig;
using credence::verify::ToolReason;
using credence::verify::ToolVerdict;
using credence::verify::ToolVerification;
using credence::verify::verify_manifest_bytes;
using nlohmann::json;

credence::core::ByteView bytes_of(const std::string& s) {
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

Hash32 hash32(const std::string& hex) {
    auto h = credence::core::from_hex_fixed<32>(hex);
    EXPECT_TRUE(h.has_value()) << hex;
    return h ? *h : Hash32{};
}

Address address(const std::string& hex) {
    auto a = Address::from_hex(hex);
    EXPECT_TRUE(a.has_value()) << hex;
    return a ? *a : Address{};
}

/// keccak256 of the RFC 8785 form (core/jcs is tested against the RFC's own vectors).
Hash32 jcs_hash(const std::string& text) {
    auto jcs = credence::core::canonicalize(text);
    EXPECT_TRUE(jcs.has_value());
    return credence::core::keccak256(jcs ? *jcs : std::string());
}

std::string dump(const ToolVerification& v) { return v.to_json().dump(2); }

// ---- pure: the ERC-8257 vectors ---------------------------------------------------------------

struct VectorConfig {
    json vec = credence::testing::read_vector_json("erc8257/manifest-vectors.json");
    ToolConfig config(const char* name, const char* slug) {
        ToolConfig c;
        c.creator = address(vec[name]["manifest"]["creatorAddress"].get<std::string>());
        c.metadata_uri =
            std::string("https://tools.example.com/.well-known/ai-tool/") + slug + ".json";
        c.manifest_hash = hash32(vec[name]["keccak"].get<std::string>());
        return c;
    }
};

// The NFC vector passes checks 1-4 (its keccak is the ERC's), and the schema then refuses the
// draft `type` string the ERC computed the vectors with (§2: SHOULD reject an unknown type).
TEST(verify_tool_manifest, nfc_vector_passes_the_four_checks) {
    VectorConfig v;
    const std::string jcs = v.vec["erc_NFC"]["jcs"];
    const auto r = verify_manifest_bytes(bytes_of(jcs), v.config("erc_NFC", "cafe"));
    for (auto c : r.checks) EXPECT_EQ(c, CheckStatus::passed) << dump(r);
    ASSERT_TRUE(r.manifest_hash);
    EXPECT_EQ(credence::core::to_hex(*r.manifest_hash), v.vec["erc_NFC"]["keccak"]);
    EXPECT_EQ(r.verdict, ToolVerdict::unverified);
    EXPECT_EQ(r.reason, ToolReason::schema_violation) << dump(r);
    EXPECT_NE(r.detail.find("/type"), std::string::npos) << r.detail;
}

// §Canonical Manifest Bytes: an NFD manifest is refused even against its own (NFD) hash.
TEST(verify_tool_manifest, nfd_vector_is_not_nfc) {
    VectorConfig v;
    const std::string jcs = v.vec["erc_NFD"]["jcs"];
    const auto r = verify_manifest_bytes(bytes_of(jcs), v.config("erc_NFD", "cafe"));
    EXPECT_EQ(r.reason, ToolReason::not_nfc) << dump(r);
    EXPECT_EQ(r.checks[2], CheckStatus::failed);
}

// §Canonical Manifest Bytes: a BOM is refused, not stripped; NFC bytes against the NFD hash are
// a hash mismatch (the divergence the vectors document).
TEST(verify_tool_manifest, bom_vector_and_nfc_nfd_divergence) {
    VectorConfig v;
    const std::string jcs = v.vec["erc_BOM"]["jcs"];
    auto bom = verify_manifest_bytes(bytes_of("\xEF\xBB\xBF" + jcs), v.config("erc_BOM", "bom"));
    EXPECT_EQ(bom.reason, ToolReason::bom) << dump(bom);
    auto config = v.config("erc_NFD", "cafe");
    const std::string nfc = v.vec["erc_NFC"]["jcs"];
    auto mismatch = verify_manifest_bytes(bytes_of(nfc), config);
    EXPECT_EQ(mismatch.reason, ToolReason::hash_mismatch) << dump(mismatch);
    EXPECT_FALSE(mismatch.config_reread);  // no reread hook given
}

// ---- pure: the spec's free-tool example ----------------------------------------------------

struct Example {
    json manifest =
        json::parse(credence::testing::read_erc_example("erc8257-free-tool-manifest.json"));
    std::string uri = "https://tools.example.com/.well-known/ai-tool/nft-price-oracle.json";

    ToolConfig config_for(const std::string& text) const {
        ToolConfig c;
        c.creator = address(manifest["creatorAddress"].get<std::string>());
        c.metadata_uri = uri;
        c.manifest_hash = jcs_hash(text);
        return c;
    }
    ToolVerification run(const json& m) const {
        const std::string text = m.dump(2);
        return verify_manifest_bytes(bytes_of(text), config_for(text));
    }
};

TEST(verify_tool_manifest, spec_example_is_canonical) {
    Example e;
    const auto r = e.run(e.manifest);
    EXPECT_EQ(r.verdict, ToolVerdict::canonical) << dump(r);
    EXPECT_EQ(r.reason, ToolReason::none);
    EXPECT_EQ(r.slug, "nft-price-oracle");
    EXPECT_TRUE(r.issues.empty());
    EXPECT_EQ(r.to_json()["verdict"], "canonical");
    EXPECT_EQ(r.to_json()["checks"]["creatorBinding"], "passed");
}

// Each failure reason reachable without network, with the check that fails.
TEST(verify_tool_manifest, each_offline_failure_has_its_reason) {
    Example e;
    struct Case {
        const char* what;
        std::string uri;
        std::function<void(json&)> mutate;
        ToolReason reason;
        size_t check;
    };
    const std::string good = e.uri;
    const std::vector<Case> cases = {
        {"origin mismatch", good, [](json& m) { m["endpoint"] = "https://evil.example.com/x"; },
         ToolReason::origin_mismatch, 1},
        {"port mismatch", good, [](json& m) { m["endpoint"] = "https://tools.example.com:8443/x"; },
         ToolReason::origin_mismatch, 1},
        {"endpoint http", good, [](json& m) { m["endpoint"] = "http://tools.example.com/x"; },
         ToolReason::bad_endpoint, 1},
        {"endpoint missing", good, [](json& m) { m.erase("endpoint"); }, ToolReason::bad_endpoint,
         1},
        {"query on uri", good + "?v=2", [](json&) {}, ToolReason::query_or_fragment, 1},
        {"fragment on uri", good + "#x", [](json&) {}, ToolReason::query_or_fragment, 1},
        {"http uri", "http://tools.example.com/.well-known/ai-tool/a.json", [](json&) {},
         ToolReason::not_https, 1},
        {"idn uri", "https://t\xc3\xb6ols.example.com/.well-known/ai-tool/a.json", [](json&) {},
         ToolReason::non_ace_host, 1},
        {"slug", "https://tools.example.com/.well-known/ai-tool/Oracle.json", [](json&) {},
         ToolReason::slug_grammar, 1},
        {"not well-known", "https://tools.example.com/ai-tool/a.json", [](json&) {},
         ToolReason::not_well_known, 1},
        {"userinfo", "https://u@tools.example.com/.well-known/ai-tool/a.json", [](json&) {},
         ToolReason::bad_uri, 1},
        {"uri too long",
         "https://tools.example.com/.well-known/ai-tool/" + std::string(2100, 'a') + ".json",
         [](json&) {}, ToolReason::uri_too_long, 1},
        {"uppercase creator", good,
         [](json& m) { m["creatorAddress"] = "0xABCDEFabcdef1234567890abcdefabcdef123456"; },
         ToolReason::uppercase_hex, 2},
        {"uppercase kind", good,
         [](json& m) {
             m["access"] = {
                 {"requirements", {{{"kind", "0xABCD1234"}, {"data", "0x"}, {"label", "l"}}}}};
         },
         ToolReason::uppercase_hex, 2},
        {"other creator", good,
         [](json& m) { m["creatorAddress"] = "0x1111111111111111111111111111111111111111"; },
         ToolReason::creator_mismatch, 3},
        {"schema", good, [](json& m) { m["tags"] = {"dup", "dup"}; }, ToolReason::schema_violation,
         4},
    };
    for (const auto& c : cases) {
        json m = e.manifest;
        c.mutate(m);
        const std::string text = m.dump(2);
        ToolConfig config = e.config_for(text);
        config.creator = address(e.manifest["creatorAddress"].get<std::string>());
        config.metadata_uri = c.uri;
        const auto r = verify_manifest_bytes(bytes_of(text), config);
        EXPECT_EQ(r.verdict, ToolVerdict::unverified) << c.what;
        EXPECT_EQ(r.reason, c.reason) << c.what << "\n" << dump(r);
        if (c.check < 4) {
            EXPECT_EQ(r.checks[c.check], CheckStatus::failed) << c.what;
        }
        EXPECT_FALSE(r.detail.empty()) << c.what;
    }
    // Bytes that are not JSON, and bytes over 1 MiB.
    const auto junk = verify_manifest_bytes(bytes_of("{\"a\":1,\"a\":2}"), e.config_for("{}"));
    EXPECT_EQ(junk.reason, ToolReason::invalid_json);
    const std::string big(size_t{1} << 20 | 1, ' ');
    EXPECT_EQ(verify_manifest_bytes(bytes_of(big), e.config_for("{}")).reason,
              ToolReason::too_large);
}

// §7 Handling item 5: one re-read on a mismatch, never more; a fresh matching hash verifies.
TEST(verify_tool_manifest, hash_mismatch_rereads_exactly_once) {
    Example e;
    const std::string text = e.manifest.dump();
    ToolConfig stale = e.config_for(text);
    stale.manifest_hash = Hash32{};
    int reads = 0;
    auto fresh = verify_manifest_bytes(bytes_of(text), stale, [&]() {
        ++reads;
        return std::optional<ToolConfig>(e.config_for(text));
    });
    EXPECT_EQ(reads, 1);
    EXPECT_TRUE(fresh.config_reread);
    EXPECT_EQ(fresh.verdict, ToolVerdict::canonical) << dump(fresh);
    EXPECT_EQ(fresh.config->manifest_hash, jcs_hash(text));

    reads = 0;
    auto still = verify_manifest_bytes(bytes_of(text), stale, [&]() {
        ++reads;
        return std::optional<ToolConfig>(stale);
    });
    EXPECT_EQ(reads, 1);
    EXPECT_EQ(still.reason, ToolReason::hash_mismatch);
    // A re-read that moved the URI cannot vouch for bytes fetched from the old one.
    auto moved = verify_manifest_bytes(bytes_of(text), stale, [&]() {
        ToolConfig c = e.config_for(text);
        c.metadata_uri = "https://tools.example.com/.well-known/ai-tool/other.json";
        return std::optional<ToolConfig>(c);
    });
    EXPECT_EQ(moved.reason, ToolReason::hash_mismatch);
}

TEST(verify_tool_manifest, access_predicate_interface_id_is_the_spec_value) {
    // ERC-8257 §9 table: IAccessPredicate 0xbdf9dc18.
    const auto constants = json::parse(credence::testing::read_erc_example("erc-constants.json"));
    const auto id = credence::verify::access_predicate_interface_id();
    const std::string hex = credence::core::to_hex(credence::core::ByteView(id.data(), id.size()));
    EXPECT_EQ(constants.at("interfaceIds").at("IAccessPredicate").get<std::string>(), hex);
}

// ---- the whole procedure: devnet + HTTPS server --------------------------------------------

class VerifyToolLive : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        auto d = credence::testing::Devnet::start();
        if (!d) {
            start_error_ = d.error();
            return;
        }
        devnet_ = std::move(*d);
        server_ = std::make_unique<credence::testing::HttpsServer>(
            std::vector<std::string>{"tools.test", "other.test"});
    }
    static void TearDownTestSuite() {
        server_.reset();
        devnet_.reset();
    }
    void SetUp() override {
        ASSERT_TRUE(devnet_) << start_error_;
        rpc_ = std::make_unique<credence::chain::RpcClient>(devnet_->rpc());
        fetcher_ = make_fetcher({});
    }

    static std::unique_ptr<credence::verify::Fetcher> make_fetcher(
        std::vector<std::string> extra_connect_to) {
        credence::verify::FetcherConfig config;
        config.connect_to = server_->connect_to();
        for (auto& c : extra_connect_to) config.connect_to.push_back(std::move(c));
        config.ca_file = server_->ca_file();
        config.allow_hosts = {"127.0.0.1"};
        return credence::verify::make_curl_fetcher(std::move(config));
    }

    Address registry() const { return devnet_->address("ToolRegistry"); }

    /// The spec's free-tool example on https://tools.test with `creator_index`'s address.
    json manifest(size_t creator_index = 0) const {
        json m = Example().manifest;
        m["endpoint"] = "https://tools.test/api";
        m["creatorAddress"] = devnet_->dev_address(creator_index).to_lower_hex();
        return m;
    }

    /// registerTool from dev account `from`; returns the new tool id.
    Uint256 register_tool(const std::string& uri, const Hash32& hash, size_t from = 0,
                          const Address& predicate = Address{}) {
        const auto key = devnet_->secret_key(from);
        credence::chain::TxnSender sender(*rpc_, key);
        auto data = tr::register_tool(uri, hash, predicate);
        EXPECT_TRUE(data);
        credence::chain::TxnRequest req;
        req.to = registry();
        req.data = *data;
        auto receipt = sender.send(req);
        EXPECT_TRUE(receipt) << (receipt ? "" : receipt.error().detail);
        if (!receipt) return Uint256{};
        for (const auto& log : receipt->logs)
            if (auto ev = tr::decode_tool_registered_event(log.topics, log.data))
                return ev->tool_id;
        ADD_FAILURE() << "no ToolRegistered event";
        return Uint256{};
    }

    /// Serves `body` at https://tools.test/.well-known/ai-tool/<slug>.json and registers it with
    /// the keccak256 of its JCS form.
    Uint256 publish(const std::string& slug, const std::string& body, size_t from = 0,
                    const Address& predicate = Address{}) {
        const std::string path = "/.well-known/ai-tool/" + slug + ".json";
        server_->serve("tools.test", path, body);
        auto jcs = credence::core::canonicalize(body);
        const Hash32 hash = jcs ? credence::core::keccak256(*jcs) : credence::core::keccak256(body);
        return register_tool("https://tools.test" + path, hash, from, predicate);
    }

    ToolVerification verify(const Uint256& id, credence::verify::Fetcher* fetcher = nullptr,
                            credence::verify::ToolVerifyOptions options = {}) {
        return credence::verify::verify_tool(*rpc_, registry(), id,
                                             fetcher != nullptr ? *fetcher : *fetcher_, options);
    }

    static inline std::unique_ptr<credence::testing::Devnet> devnet_;
    static inline std::unique_ptr<credence::testing::HttpsServer> server_;
    static inline std::string start_error_;
    std::unique_ptr<credence::chain::RpcClient> rpc_;
    std::unique_ptr<credence::verify::Fetcher> fetcher_;
};

TEST_F(VerifyToolLive, good_manifest_is_canonical) {
    const auto id = publish("good", manifest().dump(2));
    const auto r = verify(id);
    EXPECT_EQ(r.verdict, ToolVerdict::canonical) << dump(r);
    EXPECT_EQ(r.slug, "good");
    ASSERT_TRUE(r.predicate);
    EXPECT_TRUE(r.predicate->open_access);
    EXPECT_TRUE(r.predicate->risks.empty());
    EXPECT_FALSE(r.config_reread);
    EXPECT_EQ(r.to_json()["toolId"], id.limbs[0]);
}

// §7 Handling item 1: a 3xx is a failure, never followed (even to a good manifest).
TEST_F(VerifyToolLive, redirect_is_unverified) {
    const auto body = manifest().dump();
    server_->serve("tools.test", "/.well-known/ai-tool/target.json", body);
    server_->redirect("tools.test", "/.well-known/ai-tool/moved.json",
                      "https://tools.test/.well-known/ai-tool/target.json", 301);
    const auto id =
        register_tool("https://tools.test/.well-known/ai-tool/moved.json", jcs_hash(body));
    const auto r = verify(id);
    EXPECT_EQ(r.reason, ToolReason::redirect) << dump(r);
    EXPECT_EQ(server_->hits("tools.test", "/.well-known/ai-tool/target.json"), 0u);
}

// The byte rules over the network: BOM, NFD, uppercase hex (each registered with the hash of
// its own JCS form, so only the byte rule can fail).
TEST_F(VerifyToolLive, byte_rule_violations_are_unverified) {
    auto nfd = manifest();
    nfd["name"] = "cafe\xCC\x81-oracle";
    auto upper = manifest();
    upper["creatorAddress"] = devnet_->dev_address(0).to_checksum_hex();
    const std::string bom_body = "\xEF\xBB\xBF" + manifest().dump();
    server_->serve("tools.test", "/.well-known/ai-tool/bom.json", bom_body);
    const auto bom_id = register_tool("https://tools.test/.well-known/ai-tool/bom.json",
                                      jcs_hash(manifest().dump()));
    EXPECT_EQ(verify(bom_id).reason, ToolReason::bom);
    EXPECT_EQ(verify(publish("nfd", nfd.dump())).reason, ToolReason::not_nfc);
    EXPECT_EQ(verify(publish("upper", upper.dump())).reason, ToolReason::uppercase_hex);
}

// Check 4: a manifest naming dev 1, registered by dev 0 (the §7 impersonation case).
TEST_F(VerifyToolLive, wrong_creator_is_unverified) {
    const auto id = publish("someone-else", manifest(1).dump(), 0);
    const auto r = verify(id);
    EXPECT_EQ(r.reason, ToolReason::creator_mismatch) << dump(r);
    EXPECT_EQ(r.checks[3], CheckStatus::failed);
    EXPECT_EQ(r.checks[2], CheckStatus::passed);
}

// Check 2: the manifest's endpoint is on another origin.
TEST_F(VerifyToolLive, origin_mismatch_is_unverified) {
    auto m = manifest();
    m["endpoint"] = "https://other.test/api";
    const auto r = verify(publish("elsewhere", m.dump()));
    EXPECT_EQ(r.reason, ToolReason::origin_mismatch) << dump(r);
}

// W2: a query string on the onchain URI; the URL is never even fetched.
TEST_F(VerifyToolLive, query_string_on_metadata_uri_is_unverified) {
    const auto body = manifest().dump();
    server_->serve("tools.test", "/.well-known/ai-tool/q.json", body);
    const auto id =
        register_tool("https://tools.test/.well-known/ai-tool/q.json?v=1", jcs_hash(body));
    const auto r = verify(id);
    EXPECT_EQ(r.reason, ToolReason::query_or_fragment) << dump(r);
    EXPECT_EQ(server_->hits("tools.test", "/.well-known/ai-tool/q.json"), 0u);
}

// Check 3: registered with a hash of other bytes; one re-read of getToolConfig, then unverified.
TEST_F(VerifyToolLive, hash_mismatch_is_unverified_after_one_reread) {
    server_->serve("tools.test", "/.well-known/ai-tool/stale.json", manifest().dump());
    const auto id = register_tool("https://tools.test/.well-known/ai-tool/stale.json",
                                  credence::core::keccak256(std::string("other bytes")));
    const auto r = verify(id);
    EXPECT_EQ(r.reason, ToolReason::hash_mismatch) << dump(r);
    EXPECT_TRUE(r.config_reread);
}

// §7 Handling item 5, the benign race: updateToolMetadata lands between getToolConfig and the
// fetch (the server sends it while answering), so the one re-read sees the new hash.
TEST_F(VerifyToolLive, update_racing_the_fetch_verifies_after_the_reread) {
    const std::string uri = "https://tools.test/.well-known/ai-tool/racy.json";
    const std::string old_body = manifest().dump();
    const auto id = register_tool(uri, jcs_hash(old_body));
    auto updated = manifest();
    updated["description"] = "A newer description.";
    const std::string new_body = updated.dump();
    const Hash32 new_hash = jcs_hash(new_body);
    std::atomic<int> served{0};
    const std::string rpc_url = devnet_->rpc_url();
    const auto key = devnet_->secret_key(0);
    const Address reg = registry();
    server_->handle("tools.test", "/.well-known/ai-tool/racy.json",
                    [&](const httplib::Request&, httplib::Response& res) {
                        if (served++ == 0) {
                            auto rpc = credence::chain::RpcClient::make_http(rpc_url);
                            credence::chain::TxnSender sender(rpc, key);
                            credence::chain::TxnRequest req;
                            req.to = reg;
                            req.data = *tr::update_tool_metadata(id, uri, new_hash);
                            (void)sender.send(req);
                        }
                        res.set_content(new_body, "application/json");
                    });
    const auto r = verify(id);
    EXPECT_EQ(r.verdict, ToolVerdict::canonical) << dump(r);
    EXPECT_TRUE(r.config_reread);
    ASSERT_TRUE(r.config);
    EXPECT_EQ(r.config->manifest_hash, new_hash);
}

// Check 1 failures: 404, TLS, truncated, too large, timeout, unresolvable host.
TEST_F(VerifyToolLive, fetch_failures_have_their_reasons) {
    const auto body = manifest().dump();
    const Hash32 hash = jcs_hash(body);
    server_->serve("tools.test", "/.well-known/ai-tool/gone.json", "not here", "text/plain", 404);
    EXPECT_EQ(
        verify(register_tool("https://tools.test/.well-known/ai-tool/gone.json", hash)).reason,
        ToolReason::http_status);

    server_->lying_length("tools.test", "/.well-known/ai-tool/short.json", body.substr(0, 20),
                          body.size());
    EXPECT_EQ(
        verify(register_tool("https://tools.test/.well-known/ai-tool/short.json", hash)).reason,
        ToolReason::truncated);

    server_->serve("tools.test", "/.well-known/ai-tool/huge.json",
                   std::string((size_t{1} << 20) + 10, ' '));
    EXPECT_EQ(
        verify(register_tool("https://tools.test/.well-known/ai-tool/huge.json", hash)).reason,
        ToolReason::too_large);

    // A host the test certificate does not name, routed to the same server: TLS fails.
    auto tls_fetcher =
        make_fetcher({"untrusted.test:443:127.0.0.1:" + std::to_string(server_->port())});
    const auto tls_id = register_tool("https://untrusted.test/.well-known/ai-tool/a.json", hash);
    EXPECT_EQ(verify(tls_id, tls_fetcher.get()).reason, ToolReason::tls_error);

    server_->slow_drip("tools.test", "/.well-known/ai-tool/drip.json", body,
                       std::chrono::milliseconds(200));
    credence::verify::ToolVerifyOptions quick;
    quick.policy.total_timeout = std::chrono::milliseconds(1000);
    const auto start = std::chrono::steady_clock::now();
    const auto drip = verify(
        register_tool("https://tools.test/.well-known/ai-tool/drip.json", hash), nullptr, quick);
    EXPECT_EQ(drip.reason, ToolReason::timeout) << dump(drip);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4));

    // Nothing listens on port 1: the connection is refused.
    auto closed_fetcher = make_fetcher({"closed.test:443:127.0.0.1:1"});
    const auto closed =
        verify(register_tool("https://closed.test/.well-known/ai-tool/a.json", hash),
               closed_fetcher.get());
    EXPECT_EQ(closed.reason, ToolReason::network_error) << dump(closed);
}

TEST_F(VerifyToolLive, unknown_tool_is_tool_not_found) {
    const auto r = verify(Uint256{999'999});
    EXPECT_EQ(r.reason, ToolReason::tool_not_found) << dump(r);
    EXPECT_EQ(r.verdict, ToolVerdict::unverified);
}

// §Zero-Code Access Predicates: flagged, the verdict unchanged.
TEST_F(VerifyToolLive, predicate_without_code_is_flagged) {
    const Address empty = address("0x00000000000000000000000000000000000c0de0");
    const auto r = verify(publish("nocode", manifest().dump(), 0, empty));
    EXPECT_EQ(r.verdict, ToolVerdict::canonical) << dump(r);
    ASSERT_TRUE(r.predicate);
    EXPECT_EQ(r.predicate->risks, std::vector<PredicateRisk>{PredicateRisk::no_code});
    EXPECT_EQ(r.to_json()["predicate"]["risks"][0], "no_code");
}

// §Predicate Validation at Registration: code that does not advertise IAccessPredicate (code set
// after registration at a zero-code predicate address, which the registry accepts).
TEST_F(VerifyToolLive, predicate_without_iaccesspredicate_is_flagged) {
    const Address target = address("0x00000000000000000000000000000000000c0de1");
    const auto id = publish("noerc165", manifest().dump(), 0, target);
    ASSERT_TRUE(rpc_->request("anvil_setCode", json::array({target.to_lower_hex(), "0x00"})));
    const auto r = verify(id);
    EXPECT_EQ(r.verdict, ToolVerdict::canonical) << dump(r);
    ASSERT_TRUE(r.predicate);
    EXPECT_EQ(r.predicate->risks, std::vector<PredicateRisk>{PredicateRisk::no_iaccesspredicate});
}

// §Predicate Upgradeability: an ERC-1967 implementation slot set on the predicate. contracts/ has
// no ERC1967Proxy, so the slot of a deployed IAccessPredicate (AllowlistPredicate) is written
// with anvil_setStorageAt: the same onchain state a proxy has.
TEST_F(VerifyToolLive, erc1967_proxy_predicate_is_flagged_with_its_implementation) {
    const Address predicate = devnet_->address("AllowlistPredicate");
    const auto id = publish("proxied", manifest().dump(), 0, predicate);
    auto before = verify(id);
    ASSERT_TRUE(before.predicate);
    EXPECT_TRUE(before.predicate->risks.empty()) << dump(before);
    const std::string impl = "0x000000000000000000000000000000000000000000000000000000000000beef";
    ASSERT_TRUE(rpc_->request(
        "anvil_setStorageAt",
        json::array({predicate.to_lower_hex(),
                     std::string(credence::verify::kErc1967ImplementationSlot), impl})));
    const auto r = verify(id);
    EXPECT_EQ(r.verdict, ToolVerdict::canonical) << dump(r);
    ASSERT_TRUE(r.predicate);
    EXPECT_EQ(r.predicate->risks, std::vector<PredicateRisk>{PredicateRisk::erc1967_proxy});
    ASSERT_TRUE(r.predicate->implementation);
    EXPECT_EQ(r.predicate->implementation->to_lower_hex(),
              "0x000000000000000000000000000000000000beef");
    ASSERT_TRUE(rpc_->request(
        "anvil_setStorageAt",
        json::array({predicate.to_lower_hex(),
                     std::string(credence::verify::kErc1967ImplementationSlot),
                     "0x0000000000000000000000000000000000000000000000000000000000000000"})));
}

// The reverifier's check for tools: one record per due subject, status from the verdict.
TEST_F(VerifyToolLive, tool_check_records_verified_and_unverified) {
    const auto good = publish("stored-good", manifest().dump());
    auto m = manifest();
    m["endpoint"] = "https://other.test/api";
    const auto bad = publish("stored-bad", m.dump());
    auto subject = [&](const Uint256& id) {
        credence::verify::Subject s;
        s.kind = credence::verify::SubjectKind::tool;
        s.contract = registry();
        const auto be = id.to_word();
        s.id.assign(be.begin(), be.end());
        return s;
    };
    const std::vector<credence::verify::DueSubject> due = {{subject(good), 0, ""},
                                                           {subject(bad), 0, ""}};
    const auto check = credence::verify::make_tool_check(*fetcher_, *rpc_);
    const auto records = check(due);
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(records[0].status, credence::verify::VerificationStatus::verified)
        << records[0].detail;
    EXPECT_TRUE(records[0].reason.empty());
    EXPECT_EQ(records[1].status, credence::verify::VerificationStatus::unverified);
    EXPECT_EQ(records[1].reason, "origin_mismatch");
    EXPECT_EQ(json::parse(records[1].report_json)["reason"], "origin_mismatch");
    EXPECT_TRUE(records[1].subject == due[1].subject);
}

}  // namespace
