// Pure tests of the JSON-RPC layer: strict QUANTITY/DATA readers (execution-apis value encoding),
// the JSON-RPC 2.0 envelope, parameter encoding, the retry classification and backoff bounds.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <credence/chain/rpc_codec.hpp>
#include <credence/chain/rpc_jsonrpc.hpp>
#include <credence/chain/rpc_retry.hpp>

namespace credence::chain {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

TEST(chain_rpc_codec, quantity_accepts_canonical_forms) {
    EXPECT_EQ(*parse_quantity("0x0"), core::Uint256(0));
    EXPECT_EQ(*parse_quantity("0x1"), core::Uint256(1));
    EXPECT_EQ(*parse_quantity("0x400"), core::Uint256(1024));
    EXPECT_EQ(*parse_quantity("0x" + std::string(64, 'f')), core::Uint256::max());
    EXPECT_EQ(*parse_quantity_u64("0xffffffffffffffff"), ~uint64_t{0});
}

TEST(chain_rpc_codec, quantity_rejects_non_canonical_forms) {
    // execution-apis: "0x" prefix, at least one digit, no leading zeros.
    for (const char* bad :
         {"", "0x", "0", "400", "0x0400", "0x00", "0xg", "-0x1", " 0x1", "0x1 "}) {
        auto r = parse_quantity(bad);
        ASSERT_FALSE(r) << bad;
        EXPECT_EQ(r.error().kind, RpcErrorKind::bad_response) << bad;
    }
    EXPECT_FALSE(parse_quantity("0x1" + std::string(64, '0')));  // 257 bits
    EXPECT_FALSE(parse_quantity_u64("0x10000000000000000"));     // 2^64
    EXPECT_FALSE(read_quantity(json(1)));                        // numbers are not QUANTITY
}

TEST(chain_rpc_codec, data_hash_and_address_are_strict) {
    EXPECT_EQ(*read_data(json("0x")), core::Bytes{});
    EXPECT_EQ(*read_data(json("0x00ff")), (core::Bytes{0x00, 0xff}));
    EXPECT_FALSE(read_data(json("00ff")));  // DATA needs the prefix
    EXPECT_FALSE(read_data(json("0x0")));   // odd length
    EXPECT_FALSE(read_hash(json("0x" + std::string(62, '1'))));
    EXPECT_TRUE(read_hash(json("0x" + std::string(64, 'a'))));
    EXPECT_FALSE(read_hash(json(std::string(64, 'a'))));
    EXPECT_TRUE(read_address(json("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266")));
    EXPECT_FALSE(read_address(json("0xf39fd6e51aad88f6f4ce6ab8827279cfffb922")));
    EXPECT_EQ(to_quantity(0), "0x0");
    EXPECT_EQ(to_quantity(255), "0xff");
}

TEST(chain_rpc_codec, block_tags_and_numbers_encode) {
    EXPECT_EQ(BlockId().to_param(), "latest");
    EXPECT_EQ(BlockId::pending().to_param(), "pending");
    EXPECT_EQ(BlockId::finalized().to_param(), "finalized");
    EXPECT_EQ(BlockId(uint64_t{26}).to_param(), "0x1a");
}

TEST(chain_rpc_codec, log_filter_encodes_null_and_or_topics) {
    LogFilter f;
    f.from_block = uint64_t{1};
    f.to_block = BlockId::latest();
    f.addresses = {*core::Address::from_hex("0x0000000000000000000000000000000000000001")};
    core::Hash32 t{};
    t[31] = 7;
    f.topics = {std::nullopt, std::vector<core::Hash32>{t, core::Hash32{}}};
    const json j = to_json(f);
    EXPECT_EQ(j["fromBlock"], "0x1");
    EXPECT_EQ(j["toBlock"], "latest");
    EXPECT_EQ(j["address"], "0x0000000000000000000000000000000000000001");
    ASSERT_EQ(j["topics"].size(), 2u);
    EXPECT_TRUE(j["topics"][0].is_null());
    EXPECT_EQ(j["topics"][1][0], "0x" + std::string(62, '0') + "07");
    EXPECT_EQ(j["topics"][1].size(), 2u);
    LogFilter by_hash;
    by_hash.block_hash = t;
    const json h = to_json(by_hash);
    EXPECT_FALSE(h.contains("fromBlock"));  // EIP-234: blockHash excludes the range
    EXPECT_TRUE(h.contains("blockHash"));
}

TEST(chain_rpc_codec, receipt_rejects_missing_and_bad_fields) {
    const std::string h = "0x" + std::string(64, '1');
    json r = {{"transactionHash", h},
              {"transactionIndex", "0x0"},
              {"blockHash", h},
              {"blockNumber", "0x5"},
              {"from", "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"},
              {"to", nullptr},
              {"status", "0x1"},
              {"gasUsed", "0x5208"},
              {"cumulativeGasUsed", "0x5208"},
              {"effectiveGasPrice", "0x3b9aca00"},
              {"contractAddress", "0x5fbdb2315678afecb367f032d93f642f64180aa3"},
              {"logs", json::array()}};
    auto ok = read_receipt(r);
    ASSERT_TRUE(ok) << ok.error().to_string();
    EXPECT_TRUE(ok->status);
    EXPECT_EQ(ok->gas_used, 21000u);
    EXPECT_FALSE(ok->to.has_value());
    EXPECT_TRUE(ok->contract_address.has_value());
    json bad_status = r;
    bad_status["status"] = "0x2";  // EIP-658: 0 or 1
    EXPECT_FALSE(read_receipt(bad_status));
    json missing = r;
    missing.erase("gasUsed");
    auto m = read_receipt(missing);
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().message.find("gasUsed"), std::string::npos);
}

TEST(chain_rpc_jsonrpc, request_has_version_id_method_params) {
    const json j = json::parse(encode_request(7, RpcCall{"eth_chainId", json::array()}));
    EXPECT_EQ(
        j,
        (json{
            {"jsonrpc", "2.0"}, {"id", 7}, {"method", "eth_chainId"}, {"params", json::array()}}));
}

TEST(chain_rpc_jsonrpc, response_checks_version_id_and_members) {
    EXPECT_EQ(*decode_response(R"({"jsonrpc":"2.0","id":3,"result":"0x1"})", 3), json("0x1"));
    EXPECT_EQ(*decode_response(R"({"jsonrpc":"2.0","id":3,"result":null})", 3), json(nullptr));
    auto kind = [](std::string_view body) { return decode_response(body, 3).error().kind; };
    EXPECT_EQ(kind(R"({"jsonrpc":"1.0","id":3,"result":1})"), RpcErrorKind::bad_response);
    EXPECT_EQ(kind(R"({"jsonrpc":"2.0","id":4,"result":1})"), RpcErrorKind::bad_response);
    EXPECT_EQ(kind(R"({"jsonrpc":"2.0","id":3})"), RpcErrorKind::bad_response);
    EXPECT_EQ(kind(R"([{"jsonrpc":"2.0","id":3,"result":1}])"), RpcErrorKind::bad_response);
    EXPECT_EQ(kind("not json"), RpcErrorKind::bad_json);
    // JSON-RPC 2.0 §5: a parse error is answered with id null; its error object is reported.
    auto parse_err = decode_response(
        R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})", 3);
    ASSERT_FALSE(parse_err);
    EXPECT_EQ(parse_err.error().kind, RpcErrorKind::rpc_error);
    EXPECT_EQ(parse_err.error().code, -32700);
}

TEST(chain_rpc_jsonrpc, error_data_hex_becomes_bytes_else_json_text) {
    auto hex = decode_response(
        R"({"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"reverted","data":"0xdead"}})", 1);
    ASSERT_FALSE(hex);
    EXPECT_EQ(hex.error().data, (core::Bytes{0xde, 0xad}));
    auto nested = decode_response(
        R"({"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"m","data":{"data":"0xbe"}}})",
        1);
    ASSERT_FALSE(nested);
    EXPECT_EQ(nested.error().data, (core::Bytes{0xbe}));
    auto text = decode_response(
        R"({"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"m","data":"not hex"}})", 1);
    ASSERT_FALSE(text);
    EXPECT_TRUE(text.error().data.empty());
    EXPECT_EQ(text.error().data_json, R"("not hex")");
}

TEST(chain_rpc_jsonrpc, batch_rejects_duplicate_ids) {
    auto out = decode_batch(
        R"([{"jsonrpc":"2.0","id":1,"result":1},{"jsonrpc":"2.0","id":1,"result":2}])", 1, 2);
    ASSERT_FALSE(out);
    EXPECT_EQ(out.error().kind, RpcErrorKind::bad_response);
}

TEST(chain_rpc_retry, only_transport_timeout_429_and_5xx_are_retryable) {
    RpcError e;
    e.kind = RpcErrorKind::transport;
    EXPECT_TRUE(is_retryable(e));
    e.kind = RpcErrorKind::timeout;
    EXPECT_TRUE(is_retryable(e));
    e.kind = RpcErrorKind::http_status;
    for (int s : {429, 500, 502, 503, 504}) {
        e.http_status = s;
        EXPECT_TRUE(is_retryable(e)) << s;
    }
    for (int s : {400, 401, 403, 404, 413}) {
        e.http_status = s;
        EXPECT_FALSE(is_retryable(e)) << s;
    }
    for (auto k : {RpcErrorKind::rpc_error, RpcErrorKind::bad_json, RpcErrorKind::bad_response,
                   RpcErrorKind::too_large, RpcErrorKind::invalid_argument}) {
        e.kind = k;
        EXPECT_FALSE(is_retryable(e)) << to_string(k);
    }
}

TEST(chain_rpc_retry, backoff_doubles_with_jitter_and_is_capped) {
    RetryPolicy p;
    p.base_delay = milliseconds(100);
    p.max_delay = milliseconds(1'000);
    p.max_retry_after = milliseconds(3'000);
    RpcError e;
    EXPECT_EQ(retry_delay(p, 1, e, 0.0), milliseconds(50));  // equal jitter: [d/2, d]
    EXPECT_EQ(retry_delay(p, 1, e, 0.999), milliseconds(99));
    EXPECT_EQ(retry_delay(p, 3, e, 0.0), milliseconds(200));
    EXPECT_EQ(retry_delay(p, 10, e, 0.0), milliseconds(500));  // capped at max_delay
    EXPECT_EQ(retry_delay(p, 1000, e, 0.0), milliseconds(500));
    e.retry_after = milliseconds(2'000);
    EXPECT_EQ(retry_delay(p, 1, e, 0.5), milliseconds(2'000));
    e.retry_after = milliseconds(60'000);
    EXPECT_EQ(retry_delay(p, 1, e, 0.5), milliseconds(3'000));
}

TEST(chain_rpc_error, to_string_is_one_line) {
    RpcError e;
    e.kind = RpcErrorKind::rpc_error;
    e.code = -32000;
    e.message = "line one\nline two";
    EXPECT_EQ(e.to_string(), "rpc_error -32000: line one line two");
}

}  // namespace
}  // namespace credence::chain
