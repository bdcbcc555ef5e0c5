// The simdjson eth_getLogs parser: valid bodies, the nlohmann path's strictness, and every kind of
// malformed body mapped to bad_json / bad_response / rpc_error.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <credence/chain/rpc_codec.hpp>
#include <credence/chain/rpc_jsonrpc.hpp>
#include <credence/index/log_json.hpp>

#include "support/fault_rpc_server.hpp"

namespace credence::index {
namespace {

using chain::RpcErrorKind;
using nlohmann::json;
using testing::make_log;
using testing::ok_body;

core::Address addr(uint8_t b) {
    core::Address a;
    a.bytes.fill(b);
    return a;
}

// The same body through the nlohmann path (chain::decode_response + chain::read_logs).
std::vector<RawLog> via_nlohmann(const std::string& body, uint64_t id) {
    auto j = chain::decode_response(body, id);
    EXPECT_TRUE(j) << j.error().to_string();
    auto logs = chain::read_logs(*j);
    EXPECT_TRUE(logs) << logs.error().to_string();
    std::vector<RawLog> out;
    for (const auto& l : *logs) {
        out.push_back(RawLog{l.block_num, l.block_hash, l.txn_hash, l.txn_index, l.log_index,
                             l.address, l.topics, l.data, l.removed, l.block_timestamp});
    }
    return out;
}

chain::RpcError parse_error(const std::string& body, uint64_t id = 7) {
    auto r = parse_logs_response(body, id);
    EXPECT_FALSE(r) << body;
    return r ? chain::RpcError{} : r.error();
}

std::string body_with(const json& log, uint64_t id = 7) { return ok_body(id, json::array({log})); }

TEST(index_log_json, parses_logs_like_the_nlohmann_path) {
    json logs = json::array();
    for (uint64_t i = 0; i < 50; ++i) logs.push_back(make_log(100 + i / 3, i, addr(0xaa), i % 5));
    logs[3]["data"] = "0x";
    logs[4].erase("removed");              // optional
    logs[5]["blockTimestamp"] = "0x6543";  // newer nodes add the block's time
    logs[6]["totalDifficulty"] = "0x1";    // unknown members: ignored
    const std::string body = ok_body(7, logs);
    auto parsed = parse_logs_response(body, 7);
    ASSERT_TRUE(parsed) << parsed.error().to_string();
    ASSERT_EQ(parsed->size(), 50u);
    EXPECT_EQ(*parsed, via_nlohmann(body, 7));
    EXPECT_EQ((*parsed)[5].block_timestamp, 0x6543u);
    EXPECT_EQ((*parsed)[4].block_timestamp, std::nullopt);
    EXPECT_EQ((*parsed)[10].block_num, 103u);
    EXPECT_EQ((*parsed)[10].log_index, 10u);
    EXPECT_EQ((*parsed)[10].topics.size(), 0u);
    EXPECT_EQ((*parsed)[9].topics.size(), 4u);
    EXPECT_EQ((*parsed)[3].data.size(), 0u);
    EXPECT_EQ((*parsed)[0].address, addr(0xaa));
}

TEST(index_log_json, parser_is_reusable_and_in_place_keeps_the_body) {
    LogJsonParser parser;
    std::string body = body_with(make_log(5, 1, addr(1)), 3);
    const std::string copy = body;
    auto a = parser.parse_in_place(body, 3);
    ASSERT_TRUE(a) << a.error().to_string();
    EXPECT_EQ(body, copy);
    auto b = parser.parse(ok_body(4, json::array()), 4);
    ASSERT_TRUE(b) << b.error().to_string();
    EXPECT_TRUE(b->empty());
    auto c = parser.parse(copy, 3);
    ASSERT_TRUE(c);
    EXPECT_EQ(*a, *c);
}

TEST(index_log_json, five_topics_are_parsed_not_judged) {
    // LogSource skips such a log with a reason; the parser must not fail the whole body.
    auto r = parse_logs_response(body_with(make_log(1, 0, addr(2), 5)), 7);
    ASSERT_TRUE(r) << r.error().to_string();
    EXPECT_EQ(r->front().topics.size(), 5u);
}

TEST(index_log_json, garbage_and_truncated_bodies_are_bad_json) {
    EXPECT_EQ(parse_error("<html>502 Bad Gateway</html>").kind, RpcErrorKind::bad_json);
    EXPECT_EQ(parse_error("").kind, RpcErrorKind::bad_json);
    const std::string full = body_with(make_log(1, 0, addr(2)));
    for (size_t cut : {size_t{1}, size_t{10}, full.size() / 2, full.size() - 1}) {
        EXPECT_EQ(parse_error(full.substr(0, cut)).kind, RpcErrorKind::bad_json) << cut;
    }
    EXPECT_EQ(parse_error(full + " x").kind, RpcErrorKind::bad_json);
    EXPECT_EQ(parse_error("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":[\xff]}").kind,
              RpcErrorKind::bad_json);
}

TEST(index_log_json, wrong_envelope_is_bad_response) {
    auto e = parse_error(ok_body(8, json::array()), 7);
    EXPECT_EQ(e.kind, RpcErrorKind::bad_response);
    EXPECT_EQ(e.message, "response id does not match request id");
    EXPECT_EQ(parse_error(R"({"jsonrpc":"2.0","id":"7","result":[]})").message,
              "response id does not match request id");
    EXPECT_EQ(parse_error(R"({"jsonrpc":"2.0","id":7.0,"result":[]})").message,
              "response id does not match request id");
    EXPECT_EQ(parse_error(R"({"jsonrpc":"1.0","id":7,"result":[]})").message,
              "jsonrpc is not \"2.0\"");
    EXPECT_EQ(parse_error(R"({"jsonrpc":"2.0","id":7})").message, "neither result nor error");
    EXPECT_EQ(parse_error(R"({"jsonrpc":"2.0","id":7,"result":null})").message,
              "result: expected an array");
    EXPECT_EQ(parse_error(R"([{"jsonrpc":"2.0","id":7,"result":[]}])").message,
              "response is not an object");
    EXPECT_EQ(parse_error(R"({"jsonrpc":"2.0","id":7,"result":[],"result":[]})").message,
              "repeated member result");
}

TEST(index_log_json, malformed_fields_name_the_log_and_field) {
    auto with = [](const char* field, json value) {
        json log = make_log(9, 0, addr(3));
        log[field] = std::move(value);
        return parse_error(ok_body(7, json::array({make_log(9, 0, addr(3)), log})));
    };
    EXPECT_EQ(with("blockNumber", "0x012").message,
              "log 1: blockNumber: quantity has leading zeros");
    EXPECT_EQ(with("blockNumber", "12").message,
              "log 1: blockNumber: quantity must be 0x-prefixed with at least one digit");
    EXPECT_EQ(with("blockNumber", "0x").message,
              "log 1: blockNumber: quantity must be 0x-prefixed with at least one digit");
    EXPECT_EQ(with("logIndex", "0x1g").message, "log 1: logIndex: quantity has a non-hex digit");
    EXPECT_EQ(with("logIndex", "0x10000000000000000").message,
              "log 1: logIndex: quantity exceeds 64 bits");
    EXPECT_EQ(with("logIndex", 5).message, "log 1: logIndex: quantity must be a string");
    EXPECT_EQ(with("data", "0xabc").message, "log 1: data: bad hex data: odd number of hex digits");
    EXPECT_EQ(with("data", "abcd").message, "log 1: data: bad hex data: missing 0x prefix");
    EXPECT_EQ(with("data", "0xzz").message, "log 1: data: bad hex data: invalid hex digit");
    EXPECT_EQ(with("address", "0x1234").message, "log 1: address: address must be 0x + 40 hex");
    EXPECT_EQ(with("blockHash", std::string(66, 'a')).message,
              "log 1: blockHash: hash must be 0x + 64 hex");
    EXPECT_EQ(with("topics", json::array({"0x00"})).message,
              "log 1: topics: hash must be 0x + 64 hex");
    EXPECT_EQ(with("topics", "0x").message, "log 1: topics: expected an array");
    EXPECT_EQ(with("removed", "false").message, "log 1: removed: expected a boolean");
    json missing = make_log(9, 0, addr(3));
    missing.erase("logIndex");
    EXPECT_EQ(parse_error(body_with(missing)).message, "log 0: missing field logIndex");
    EXPECT_EQ(parse_error(ok_body(7, json::array({1}))).message, "log 0: log must be an object");
    // A repeated member is ambiguous (RFC 8259 §4): refused, not last-wins.
    std::string dup = body_with(make_log(9, 0, addr(3)));
    dup.insert(dup.find("\"address\""), R"("logIndex":"0x5",)");
    EXPECT_EQ(parse_error(dup).message, "log 0: logIndex: repeated member");
    for (const auto& e : {with("blockNumber", "0x012"), with("data", "0xzz")}) {
        EXPECT_EQ(e.kind, RpcErrorKind::bad_response);
    }
}

TEST(index_log_json, removed_null_is_false_and_true_is_kept) {
    json log = make_log(1, 0, addr(4));
    log["removed"] = nullptr;
    auto a = parse_logs_response(body_with(log), 7);
    ASSERT_TRUE(a);
    EXPECT_FALSE(a->front().removed);
    log["removed"] = true;
    auto b = parse_logs_response(body_with(log), 7);
    ASSERT_TRUE(b);
    EXPECT_TRUE(b->front().removed);
}

TEST(index_log_json, error_object_is_rpc_error_with_code_message_and_data) {
    auto e = parse_error(
        R"({"jsonrpc":"2.0","id":7,"error":{"code":-32005,"message":"query returned more than 10000 results","data":{"from":"0x1"}}})");
    EXPECT_EQ(e.kind, RpcErrorKind::rpc_error);
    EXPECT_EQ(e.code, -32005);
    EXPECT_EQ(e.message, "query returned more than 10000 results");
    EXPECT_EQ(e.data_json, R"({"from":"0x1"})");
    // JSON-RPC 2.0 §5: an error about a request the server could not read comes with id null.
    auto n = parse_error(
        R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})");
    EXPECT_EQ(n.kind, RpcErrorKind::rpc_error);
    EXPECT_EQ(n.code, -32700);
    // error: null is no error.
    auto ok = parse_logs_response(R"({"jsonrpc":"2.0","id":7,"error":null,"result":[]})", 7);
    ASSERT_TRUE(ok) << ok.error().to_string();
}

TEST(index_log_json, escaped_hex_matches_the_nlohmann_path) {
    // "\u0030x.." is "0x..": both parsers unescape before reading hex.
    std::string body = body_with(make_log(1, 0, addr(5)));
    const auto at = body.find("\"data\":\"0x");
    body.replace(at + 8, 1, "\\u0030");
    auto a = parse_logs_response(body, 7);
    ASSERT_TRUE(a) << a.error().to_string();
    EXPECT_EQ(*a, via_nlohmann(body, 7));
}

}  // namespace
}  // namespace credence::index
