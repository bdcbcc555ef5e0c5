// CIDs and IPFS content verification against references we did not compute: the npm packages
// multiformats, @ipld/dag-pb and ipfs-unixfs (run through node at test time), the well-known
// published CIDs of "hello world\n", and ethers' sha256 vectors. Then ipfs:// fetches through
// real HTTPS "gateways" on loopback serving right and wrong bytes (docs/architecture.md §verify/).
#include <credence/verify/net/cid.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <httplib.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <credence/verify/net/fetch.hpp>

#include "support/https_server.hpp"
#include "support/process.hpp"
#include "support/vectors.hpp"

namespace {

using credence::core::Bytes;
using credence::verify::CidCodec;
using credence::verify::CidError;
using credence::verify::FetchError;

Bytes hex(const std::string& h) {
    auto b = credence::core::from_hex(h);
    EXPECT_TRUE(b.has_value()) << h;
    return b ? *b : Bytes{};
}

std::string text(const Bytes& b) { return {b.begin(), b.end()}; }

// Builds reference CIDs and blocks with the JavaScript implementations. Each case: content (hex),
// raw CIDv1 in base32 and base58btc, the dag-pb UnixFS block (hex) with its CIDv1 and CIDv0.
constexpr const char* kNodeScript = R"JS(
import { CID } from 'multiformats/cid'
import { sha256, sha512 } from 'multiformats/hashes/sha2'
import * as raw from 'multiformats/codecs/raw'
import { base58btc } from 'multiformats/bases/base58'
import * as dagPb from '@ipld/dag-pb'
import { UnixFS } from 'ipfs-unixfs'
const contents = [
  new Uint8Array(0),
  new TextEncoder().encode('hello world\n'),
  new TextEncoder().encode(JSON.stringify({ type: 'https://eips.ethereum.org/EIPS/eip-8004#registration-v1', name: 'agent' })),
  Uint8Array.from({ length: 5000 }, (_, i) => (i * 7 + 3) & 0xff),
]
const hex = (b) => Buffer.from(b).toString('hex')
const out = { cases: [] }
for (const [i, data] of contents.entries()) {
  const rawCid = CID.create(1, raw.code, await sha256.digest(data))
  const file = new UnixFS({ type: i === 3 ? 'raw' : 'file', data })
  const block = dagPb.encode(dagPb.prepare({ Data: file.marshal() }))
  const pbCid = CID.create(1, dagPb.code, await sha256.digest(block))
  out.cases.push({ content: hex(data), raw: rawCid.toString(), rawZ: rawCid.toString(base58btc),
                   block: hex(block), pb: pbCid.toString(), pbV0: pbCid.toV0().toString() })
}
const dir = dagPb.encode(dagPb.prepare({ Data: new UnixFS({ type: 'directory' }).marshal() }))
out.directory = { block: hex(dir), cid: CID.create(1, dagPb.code, await sha256.digest(dir)).toString() }
const leaf = CID.parse(out.cases[1].raw)
const linked = dagPb.encode(dagPb.prepare({ Data: new UnixFS({ type: 'file', blockSizes: [12n] }).marshal(),
                                            Links: [{ Hash: leaf, Name: '', Tsize: 12 }] }))
out.multiBlock = { block: hex(linked), cid: CID.create(1, dagPb.code, await sha256.digest(linked)).toString() }
// A multi-block file as an importer would chunk it: raw leaves under a File node, and that node
// under a second level with one more leaf; then a node whose blocksizes lie about its leaves.
const enc = new TextEncoder()
const chunks = ['part one, ', 'part two, ', 'part three\n', 'and more\n'].map((t) => enc.encode(t))
const leaves = []
for (const c of chunks) leaves.push({ cid: CID.create(1, raw.code, await sha256.digest(c)), bytes: c })
const fileNode = async (links, sizes) => {
  const block = dagPb.encode(dagPb.prepare({
    Data: new UnixFS({ type: 'file', blockSizes: sizes.map(BigInt) }).marshal(),
    Links: links.map((l, i) => ({ Hash: l, Name: '', Tsize: sizes[i] })) }))
  return { block, cid: CID.create(1, dagPb.code, await sha256.digest(block)) }
}
const level1 = await fileNode(leaves.slice(0, 3).map((l) => l.cid), chunks.slice(0, 3).map((c) => c.length))
const level2 = await fileNode([level1.cid, leaves[3].cid],
                              [chunks[0].length + chunks[1].length + chunks[2].length, chunks[3].length])
const lying = await fileNode(leaves.slice(0, 3).map((l) => l.cid), [1, 1, 1])
const blocks = {}
for (const l of leaves) blocks[l.cid.toString()] = hex(l.bytes)
for (const n of [level1, level2, lying]) blocks[n.cid.toString()] = hex(n.block)
out.multiFile = { blocks, level1: level1.cid.toString(), level2: level2.cid.toString(),
                  level1V0: level1.cid.toV0().toString(), lying: lying.cid.toString(),
                  content: hex(Buffer.concat(chunks.slice(0, 3))), deepContent: hex(Buffer.concat(chunks)) }
out.otherHash = CID.create(1, raw.code, await sha512.digest(contents[1])).toString()
out.cborCid = CID.create(1, 0x71, await sha256.digest(contents[1])).toString()
console.log(JSON.stringify(out))
)JS";

// The reference document from node, or null when node or the npm packages are missing.
const nlohmann::json& reference() {
    static const nlohmann::json doc = [] {
        // The checkout holding node_modules: $CREDENCE_SOURCE_DIR, else the checkout this test
        // was built from.
        const std::filesystem::path source = credence::testing::source_dir();
        const std::filesystem::path node = credence::testing::find_program("node");
        const auto script = source / "node_modules" / ".credence_cid_test.mjs";
        if (node.empty() || !std::filesystem::exists(source / "node_modules" / "multiformats"))
            return nlohmann::json();
        // The script must sit under node_modules' parent for its imports to resolve; the name is
        // per process so parallel test runs do not collide.
        const auto path = script.string() + "." + std::to_string(getpid()) + ".mjs";
        if (FILE* f = std::fopen(path.c_str(), "w")) {
            std::fputs(kNodeScript, f);
            std::fclose(f);
        }
        const auto run = credence::testing::run_command(node, {path});
        std::filesystem::remove(path);
        return nlohmann::json::parse(run.out, nullptr, false);
    }();
    return doc;
}

#define REQUIRE_REFERENCE()                                  \
    if (reference().is_discarded() || reference().is_null()) \
    GTEST_SKIP() << "node with multiformats/@ipld/dag-pb/ipfs-unixfs (npm install) needed"

}  // namespace

TEST(verify_cid, published_hello_world_cids) {
    // The CIDs of "hello world\n" that the IPFS docs use: `ipfs add` (CIDv0, dag-pb) and the raw
    // leaf CIDv1.
    const auto v0 = credence::verify::parse_cid("QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o");
    ASSERT_TRUE(v0.has_value());
    EXPECT_EQ(v0->version, 0U);
    EXPECT_EQ(v0->codec, CidCodec::dag_pb);
    const auto v1 =
        credence::verify::parse_cid("bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4");
    ASSERT_TRUE(v1.has_value());
    EXPECT_EQ(v1->version, 1U);
    EXPECT_EQ(v1->codec, CidCodec::raw);
    const auto content = credence::verify::extract_block_content(
        *v1, credence::core::as_bytes(std::string_view("hello world\n")));
    ASSERT_TRUE(content.has_value());
    EXPECT_EQ(text(*content), "hello world\n");
}

TEST(verify_cid, sha256_matches_ethers_vectors) {
    const auto v = credence::testing::read_vector_json("ethers/hashes.json");
    ASSERT_FALSE(v.empty());
    for (const auto& c : v) {
        const Bytes data = hex(c["data"].get<std::string>());
        EXPECT_EQ(credence::core::to_hex(credence::verify::sha256(data)),
                  c["sha256"].get<std::string>())
            << c["name"];
    }
}

TEST(verify_cid, raw_and_dag_pb_match_the_javascript_implementation) {
    REQUIRE_REFERENCE();
    for (const auto& c : reference()["cases"]) {
        const Bytes content = hex(c["content"].get<std::string>());
        const Bytes block = hex(c["block"].get<std::string>());
        for (const char* key : {"raw", "rawZ"}) {
            const auto cid = credence::verify::parse_cid(c[key].get<std::string>());
            ASSERT_TRUE(cid.has_value()) << c[key];
            EXPECT_EQ(cid->codec, CidCodec::raw);
            EXPECT_EQ(credence::verify::to_string(*cid), c["raw"].get<std::string>());
            const auto got = credence::verify::extract_block_content(*cid, content);
            ASSERT_TRUE(got.has_value()) << c[key];
            EXPECT_EQ(*got, content);
        }
        for (const char* key : {"pb", "pbV0"}) {
            const auto cid = credence::verify::parse_cid(c[key].get<std::string>());
            ASSERT_TRUE(cid.has_value()) << c[key];
            EXPECT_EQ(cid->codec, CidCodec::dag_pb);
            EXPECT_EQ(credence::verify::to_string(*cid), c[key].get<std::string>());
            const auto got = credence::verify::extract_block_content(*cid, block);
            ASSERT_TRUE(got.has_value()) << c[key] << ": " << got.error().detail;
            EXPECT_EQ(*got, content);
            // The same bytes under the wrong CID: the digest check fails.
            const auto raw_cid = credence::verify::parse_cid(c["raw"].get<std::string>());
            EXPECT_EQ(credence::verify::extract_block_content(*raw_cid, block).error().code,
                      CidError::digest_mismatch);
        }
    }
}

TEST(verify_cid, directories_and_multi_block_files_are_refused) {
    REQUIRE_REFERENCE();
    const auto& dir = reference()["directory"];
    const auto dir_cid = credence::verify::parse_cid(dir["cid"].get<std::string>());
    ASSERT_TRUE(dir_cid.has_value());
    EXPECT_EQ(credence::verify::extract_block_content(*dir_cid, hex(dir["block"])).error().code,
              CidError::unsupported_unixfs);
    const auto& multi = reference()["multiBlock"];
    const auto multi_cid = credence::verify::parse_cid(multi["cid"].get<std::string>());
    ASSERT_TRUE(multi_cid.has_value());
    EXPECT_EQ(credence::verify::extract_block_content(*multi_cid, hex(multi["block"])).error().code,
              CidError::multi_block);
}

TEST(verify_cid, unsupported_hashes_codecs_and_bases_are_refused) {
    REQUIRE_REFERENCE();
    EXPECT_EQ(credence::verify::parse_cid(reference()["otherHash"].get<std::string>()).error().code,
              CidError::unsupported_hash);
    EXPECT_EQ(credence::verify::parse_cid(reference()["cborCid"].get<std::string>()).error().code,
              CidError::unsupported_codec);
}

TEST(verify_cid, malformed_text_is_refused) {
    const std::string good = "bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4";
    EXPECT_EQ(credence::verify::parse_cid("").error().code, CidError::bad_multibase);
    // Multibase 'B' (uppercase base32), 'f' (base16), 'u' (base64url) are not supported.
    EXPECT_EQ(credence::verify::parse_cid("B" + good.substr(1)).error().code,
              CidError::bad_multibase);
    EXPECT_EQ(credence::verify::parse_cid("f01551220").error().code, CidError::bad_multibase);
    // Uppercase inside a lowercase base32 CID, and characters outside base58.
    EXPECT_EQ(
        credence::verify::parse_cid("bafkreiFjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4")
            .error()
            .code,
        CidError::bad_encoding);
    EXPECT_EQ(
        credence::verify::parse_cid("QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff50").error().code,
        CidError::bad_encoding);  // '0' is not base58
    // Truncated digest, trailing bytes.
    EXPECT_FALSE(credence::verify::parse_cid(good.substr(0, good.size() - 4)).has_value());
    EXPECT_EQ(credence::verify::parse_cid(good + "aa").error().code, CidError::trailing_bytes);
    // Non-canonical pad bits: the last character changed in its low (padding) bits.
    EXPECT_EQ(credence::verify::parse_cid(good.substr(0, good.size() - 1) + "5").error().code,
              CidError::bad_encoding);
    EXPECT_EQ(credence::verify::parse_cid(std::string(200, 'b')).error().code,
              CidError::bad_encoding);
}

// ---------------------------------------------------------------------------------------------
// ipfs:// through gateways

namespace {

struct Gateways {
    credence::testing::HttpsServer good{{"gw-good.test", "gw-bad.test", "gw-down.test"}};

    credence::verify::FetcherConfig config(std::vector<std::string> gateways) const {
        credence::verify::FetcherConfig c;
        c.ca_file = good.ca_file();
        c.connect_to = good.connect_to();
        c.allow_hosts = {"127.0.0.1"};
        c.ipfs_gateways = std::move(gateways);
        return c;
    }
    void serve_block(const std::string& host, const std::string& cid, const Bytes& block) {
        good.handle(host, "/ipfs/" + cid,
                    [block](const httplib::Request& req, httplib::Response& res) {
                        // A trustless gateway answers ?format=raw with the raw block.
                        if (req.get_param_value("format") != "raw") {
                            res.status = 400;
                            return;
                        }
                        res.set_content(std::string(block.begin(), block.end()),
                                        "application/vnd.ipld.raw");
                    });
    }
};

credence::verify::FetchPolicy policy() {
    auto p = credence::verify::feedback_policy();
    p.total_timeout = std::chrono::milliseconds(3'000);
    return p;
}

}  // namespace

TEST(verify_ipfs, raw_and_dag_pb_through_a_gateway) {
    REQUIRE_REFERENCE();
    Gateways gw;
    const auto& c = reference()["cases"][2];
    const Bytes content = hex(c["content"]);
    gw.serve_block("gw-good.test", c["raw"], content);
    gw.serve_block("gw-good.test", c["pbV0"], hex(c["block"]));
    auto fetcher = credence::verify::make_curl_fetcher(gw.config({"https://gw-good.test/"}));
    for (const char* key : {"raw", "pbV0"}) {
        const std::string url = "ipfs://" + c[key].get<std::string>();
        const auto r = fetcher->fetch(url, policy());
        ASSERT_TRUE(r.has_value()) << r.error().detail;
        EXPECT_EQ(r->body, content);
        EXPECT_EQ(r->final_url, url);
    }
}

TEST(verify_ipfs, wrong_content_is_content_mismatch) {
    REQUIRE_REFERENCE();
    Gateways gw;
    const auto& c = reference()["cases"][1];
    gw.serve_block("gw-bad.test", c["raw"], credence::core::Bytes{'e', 'v', 'i', 'l'});
    const auto r = credence::verify::make_curl_fetcher(gw.config({"https://gw-bad.test"}))
                       ->fetch("ipfs://" + c["raw"].get<std::string>(), policy());
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, FetchError::content_mismatch);
}

TEST(verify_ipfs, next_gateway_after_a_failure_or_wrong_bytes) {
    REQUIRE_REFERENCE();
    Gateways gw;
    const auto& c = reference()["cases"][1];
    const std::string cid = c["raw"];
    gw.serve_block("gw-bad.test", cid, credence::core::Bytes{'e', 'v', 'i', 'l'});
    gw.serve_block("gw-good.test", cid, hex(c["content"]));
    // gw-down.test has no route (404), gw-bad.test lies, gw-good.test serves the block.
    const auto r =
        credence::verify::make_curl_fetcher(
            gw.config({"https://gw-down.test", "https://gw-bad.test", "https://gw-good.test"}))
            ->fetch("ipfs://" + cid, policy());
    ASSERT_TRUE(r.has_value()) << r.error().detail;
    EXPECT_EQ(text(r->body), "hello world\n");
    EXPECT_EQ(gw.good.hits("gw-down.test", "/ipfs/" + cid), 1U);
    EXPECT_EQ(gw.good.hits("gw-bad.test", "/ipfs/" + cid), 1U);
}

// UnixFS spec §File: a file of several blocks is its root's children in order. Every block comes
// through the gateways and is checked against its own CID; the tree's blocksizes must match what
// the leaves hold; the policy's size bounds the whole file.
TEST(verify_ipfs, multi_block_files_are_their_leaves_in_order) {
    REQUIRE_REFERENCE();
    Gateways gw;
    const auto& m = reference()["multiFile"];
    for (const auto& [cid, block] : m["blocks"].items())
        gw.serve_block("gw-good.test", cid, hex(block));
    // The same root asked for by its CIDv0 text.
    gw.serve_block("gw-good.test", m["level1V0"], hex(m["blocks"][m["level1"].get<std::string>()]));
    auto fetcher = credence::verify::make_curl_fetcher(gw.config({"https://gw-good.test"}));
    for (const char* key : {"level1", "level1V0"}) {
        const auto r = fetcher->fetch("ipfs://" + m[key].get<std::string>(), policy());
        ASSERT_TRUE(r.has_value()) << key << ": " << r.error().detail;
        EXPECT_EQ(r->body, hex(m["content"])) << key;
    }
    const auto deep = fetcher->fetch("ipfs://" + m["level2"].get<std::string>(), policy());
    ASSERT_TRUE(deep.has_value()) << deep.error().detail;
    EXPECT_EQ(text(deep->body), text(hex(m["deepContent"])));
    EXPECT_EQ(text(deep->body), "part one, part two, part three\nand more\n");

    const auto lying = fetcher->fetch("ipfs://" + m["lying"].get<std::string>(), policy());
    ASSERT_FALSE(lying.has_value());
    EXPECT_EQ(lying.error().code, FetchError::bad_cid) << lying.error().detail;

    auto small = policy();
    small.max_bytes = 20;  // the whole file is 30 bytes; each of its blocks is under 20
    const auto big = fetcher->fetch("ipfs://" + m["level1"].get<std::string>(), small);
    ASSERT_FALSE(big.has_value());
    EXPECT_EQ(big.error().code, FetchError::too_large);
}

TEST(verify_ipfs, a_leaf_with_wrong_bytes_is_content_mismatch) {
    REQUIRE_REFERENCE();
    Gateways gw;
    const auto& m = reference()["multiFile"];
    std::string tampered;
    for (const auto& [cid, block] : m["blocks"].items()) {
        // The second leaf ("part two, ") is served with other bytes.
        const bool second = hex(block) == Bytes{'p', 'a', 'r', 't', ' ', 't', 'w', 'o', ',', ' '};
        if (second) tampered = cid;
        gw.serve_block("gw-good.test", cid, second ? Bytes{'e', 'v', 'i', 'l'} : hex(block));
    }
    ASSERT_FALSE(tampered.empty());
    const auto r = credence::verify::make_curl_fetcher(gw.config({"https://gw-good.test"}))
                       ->fetch("ipfs://" + m["level1"].get<std::string>(), policy());
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, FetchError::content_mismatch);
    EXPECT_EQ(gw.good.hits("gw-good.test", "/ipfs/" + tampered), 1U);
}

// FetcherConfig::gateway_backoff: a gateway that failed is asked after the others while it
// rests, and asked again (first) once a later answer of its checks out or the pause is over; with
// every gateway resting, all are still tried.
TEST(verify_ipfs, a_failing_gateway_rests_behind_the_others) {
    REQUIRE_REFERENCE();
    Gateways gw;
    const std::string first = reference()["cases"][1]["raw"];
    const std::string second = reference()["cases"][2]["raw"];
    gw.serve_block("gw-good.test", first, hex(reference()["cases"][1]["content"]));
    gw.serve_block("gw-good.test", second, hex(reference()["cases"][2]["content"]));
    auto config = gw.config({"https://gw-down.test", "https://gw-good.test"});
    config.gateway_backoff = std::chrono::milliseconds(60'000);
    auto fetcher = credence::verify::make_curl_fetcher(config);
    ASSERT_TRUE(fetcher->fetch("ipfs://" + first, policy()));
    EXPECT_EQ(gw.good.hits("gw-down.test", "/ipfs/" + first), 1U);  // 404: it rests now
    ASSERT_TRUE(fetcher->fetch("ipfs://" + second, policy()));
    EXPECT_EQ(gw.good.hits("gw-down.test", "/ipfs/" + second), 0U);  // the good one answered first
    EXPECT_EQ(gw.good.hits("gw-good.test", "/ipfs/" + second), 1U);

    // No pause: the configured order every time.
    config.gateway_backoff = std::chrono::milliseconds(0);
    auto plain = credence::verify::make_curl_fetcher(config);
    ASSERT_TRUE(plain->fetch("ipfs://" + first, policy()));
    ASSERT_TRUE(plain->fetch("ipfs://" + first, policy()));
    EXPECT_EQ(gw.good.hits("gw-down.test", "/ipfs/" + first), 3U);

    // Every gateway resting: still tried.
    auto only_down = gw.config({"https://gw-down.test"});
    only_down.gateway_backoff = std::chrono::milliseconds(60'000);
    auto lonely = credence::verify::make_curl_fetcher(only_down);
    EXPECT_FALSE(lonely->fetch("ipfs://" + second, policy()));
    EXPECT_FALSE(lonely->fetch("ipfs://" + second, policy()));
    EXPECT_EQ(gw.good.hits("gw-down.test", "/ipfs/" + second), 2U);
}

TEST(verify_ipfs, bad_cid_and_no_gateway) {
    Gateways gw;
    auto with = credence::verify::make_curl_fetcher(gw.config({"https://gw-good.test"}));
    EXPECT_EQ(with->fetch("ipfs://not-a-cid", policy()).error().code, FetchError::bad_cid);
    EXPECT_EQ(
        with->fetch("ipfs://QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o/dir/file.json", policy())
            .error()
            .code,
        FetchError::bad_cid);
    auto without = credence::verify::make_curl_fetcher(gw.config({}));
    EXPECT_EQ(without->fetch("ipfs://QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o", policy())
                  .error()
                  .code,
              FetchError::no_gateway);
}
