#include "synthetic_rpc.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <exception>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/chain/bindings/single_stage_workflow.hpp>
#include <credence/core/abi.hpp>
#include <credence/core/keccak.hpp>

namespace credence::bench {

namespace {

using nlohmann::json;
namespace workflow = chain::bindings::single_stage_workflow;

struct RpcFailure {
    int code = 0;
    std::string message;
    core::Bytes data;  // revert data, written as "data" when not empty
};
using Failure = std::optional<RpcFailure>;

RpcFailure bad_params(std::string message) { return {-32602, std::move(message), {}}; }
/// geth and anvil: code 3 for a revert.
RpcFailure reverted() { return {3, "execution reverted", {}}; }

/// "00".."ff": two chars per byte, so the hot loop is one 2-byte copy per byte.
const std::array<char, 512>& hex_pairs() {
    static const std::array<char, 512> kPairs = [] {
        std::array<char, 512> t{};
        constexpr std::string_view kDigits = "0123456789abcdef";
        for (size_t i = 0; i < 256; ++i) {
            t[2 * i] = kDigits[i >> 4];
            t[2 * i + 1] = kDigits[i & 15];
        }
        return t;
    }();
    return kPairs;
}

void put_hex(std::string& out, const uint8_t* p, size_t n) {
    const auto& pairs = hex_pairs();
    const size_t at = out.size();
    const size_t size = at + 2 + 2 * n;
    // Geometric growth (resize_and_overwrite would grow to the exact size on every call).
    if (out.capacity() < size) out.reserve(std::max(2 * out.capacity(), size));
    // resize_and_overwrite: no zero-fill of bytes about to be written (resize()'s memset was a
    // sixth of the server's time on large eth_getLogs answers). The new size is returned as
    // computed here, not from the callback's argument: GCC 12's libstdc++ passes the new
    // capacity there when it reallocates, which made answers grow NUL tails.
    out.resize_and_overwrite(size, [&](char* buf, size_t /*capacity*/) {
        char* w = buf + at;
        *w++ = '0';
        *w++ = 'x';
        for (size_t i = 0; i < n; ++i, w += 2) std::memcpy(w, pairs.data() + 2 * p[i], 2);
        return size;
    });
}

void put_hex(std::string& out, core::ByteView b) { put_hex(out, b.data(), b.size()); }

/// JSON-RPC QUANTITY: "0x" and the shortest hex ("0x0" for zero).
void put_quantity(std::string& out, uint64_t v) {
    char buf[16];
    auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v, 16);
    (void)ec;  // 16 hex digits always fit
    out += "0x";
    out.append(buf, end);
}

void put_quoted_hex(std::string& out, core::ByteView b) {
    out += '"';
    put_hex(out, b);
    out += '"';
}

void put_quoted_quantity(std::string& out, uint64_t v) {
    out += '"';
    put_quantity(out, v);
    out += '"';
}

std::optional<uint64_t> parse_quantity(std::string_view s) {
    if (s.size() < 3 || s.size() > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
        return std::nullopt;
    uint64_t v = 0;
    auto [end, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), v, 16);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
}

std::optional<core::Hash32> parse_hash(const json& j) {
    if (!j.is_string()) return std::nullopt;
    auto h = core::from_hex_fixed<32>(j.get_ref<const std::string&>());
    if (!h) return std::nullopt;
    return *h;
}

class Dispatcher {
public:
    Dispatcher(const SyntheticChain& chain, const std::array<std::string, kRegistryCount>& addr,
               const std::array<std::string, kRegistryCount>& code)
        : chain_(chain), address_hex_(addr), code_hex_(code) {}

    /// Appends the result JSON of `method` to `out`, or returns the failure (out is then reset
    /// by the caller).
    Failure run(std::string& out, std::string_view method, const json& params) const {
        if (method == "eth_getLogs") return get_logs(out, params);
        if (method == "eth_getBlockByNumber") return get_block_by_number(out, params);
        if (method == "eth_getBlockByHash") return get_block_by_hash(out, params);
        if (method == "eth_blockNumber") {
            put_quoted_quantity(out, chain_.head());
            return std::nullopt;
        }
        if (method == "eth_chainId") {
            put_quoted_quantity(out, chain_.params().chain_id);
            return std::nullopt;
        }
        if (method == "net_version") {
            out += '"' + std::to_string(chain_.params().chain_id) + '"';
            return std::nullopt;
        }
        if (method == "eth_getCode") return get_code(out, params);
        if (method == "eth_call") return call(out, params);
        if (method == "eth_syncing") {
            out += "false";
            return std::nullopt;
        }
        // What cast asks before an eth_call: a fresh account, cheap gas.
        if (method == "eth_getTransactionCount" || method == "eth_getBalance") {
            out += "\"0x0\"";
            return std::nullopt;
        }
        if (method == "eth_gasPrice" || method == "eth_maxPriorityFeePerGas") {
            out += "\"0x3b9aca00\"";
            return std::nullopt;
        }
        if (method == "web3_clientVersion") {
            out += "\"credence-synthetic-rpc/0.1\"";
            return std::nullopt;
        }
        return RpcFailure{-32601, "the method " + std::string(method) + " does not exist", {}};
    }

private:
    /// A block tag or number; tags that name the head all map to it (the chain never moves).
    [[nodiscard]] std::optional<uint64_t> block_number(const json& j) const {
        if (!j.is_string()) return std::nullopt;
        const auto& s = j.get_ref<const std::string&>();
        if (s == "latest" || s == "pending" || s == "safe" || s == "finalized")
            return chain_.head();
        if (s == "earliest") return 0;
        return parse_quantity(s);
    }

    [[nodiscard]] std::optional<size_t> registry_of(const json& j) const {
        if (!j.is_string()) return std::nullopt;
        std::string s = j.get<std::string>();
        std::transform(s.begin(), s.end(), s.begin(),
                       [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; });
        for (size_t i = 0; i < kRegistryCount; ++i)
            if (s == address_hex_[i]) return i;
        return std::nullopt;
    }

    void put_block(std::string& out, uint64_t n) const {
        const SyntheticBlock& b = chain_.block(n);
        const auto logs = chain_.logs_in(n, n);
        out += R"({"number":)";
        put_quoted_quantity(out, n);
        out += R"(,"hash":)";
        put_quoted_hex(out, b.hash);
        out += R"(,"parentHash":)";
        put_quoted_hex(out, chain_.parent_hash(n));
        out += R"(,"timestamp":)";
        put_quoted_quantity(out, b.timestamp);
        out += R"(,"gasLimit":"0x1c9c380","gasUsed":)";
        const uint64_t txns = logs.empty() ? 0 : logs.back().txn_index + 1;
        put_quoted_quantity(out, txns * 90'000);
        // The remaining header fields are constants (empty tries, zero bloom): the indexer reads
        // none of them, but clients such as cast refuse a header without them.
        out +=
            R"(,"baseFeePerGas":"0x3b9aca00","miner":"0x0000000000000000000000000000000000000000")";
        out +=
            R"(,"difficulty":"0x0","nonce":"0x0000000000000000","size":"0x220","extraData":"0x")";
        out += R"(,"mixHash":"0x0000000000000000000000000000000000000000000000000000000000000000")";
        out +=
            R"(,"sha3Uncles":"0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347")";
        out +=
            R"(,"stateRoot":"0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421")";
        out +=
            R"(,"transactionsRoot":"0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421")";
        out +=
            R"(,"receiptsRoot":"0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421")";
        out += R"(,"logsBloom":"0x)";
        out.append(512, '0');
        out += R"(","uncles":[],"transactions":[)";
        uint32_t last = UINT32_MAX;
        for (const auto& log : logs) {
            if (log.txn_index == last) continue;
            if (last != UINT32_MAX) out += ',';
            last = log.txn_index;
            put_quoted_hex(out, log.txn_hash);
        }
        out += "]}";
    }

    Failure get_block_by_number(std::string& out, const json& params) const {
        if (params.empty()) return bad_params("missing block number");
        const auto n = block_number(params[0]);
        if (!n) return bad_params("invalid block number");
        if (*n > chain_.head())
            out += "null";
        else
            put_block(out, *n);
        return std::nullopt;
    }

    Failure get_block_by_hash(std::string& out, const json& params) const {
        if (params.empty()) return bad_params("missing block hash");
        const auto h = parse_hash(params[0]);
        if (!h) return bad_params("invalid block hash");
        const int64_t n = chain_.find_block(*h);
        if (n < 0)
            out += "null";
        else
            put_block(out, static_cast<uint64_t>(n));
        return std::nullopt;
    }

    Failure get_logs(std::string& out, const json& params) const {
        if (params.empty() || !params[0].is_object()) return bad_params("missing filter object");
        const json& f = params[0];
        uint64_t from = 0;
        uint64_t to = 0;
        if (const auto bh = f.find("blockHash"); bh != f.end()) {
            const auto h = parse_hash(*bh);
            if (!h) return bad_params("invalid blockHash");
            const int64_t n = chain_.find_block(*h);
            if (n < 0) return RpcFailure{-32000, "unknown block", {}};
            from = to = static_cast<uint64_t>(n);
        } else {
            static const json kLatest = "latest";
            const auto fb = f.find("fromBlock");
            const auto tb = f.find("toBlock");
            const auto from_n = block_number(fb == f.end() ? kLatest : *fb);
            const auto to_n = block_number(tb == f.end() ? kLatest : *tb);
            if (!from_n || !to_n) return bad_params("invalid block range params");
            from = *from_n;
            to = *to_n;
            if (from > to) return bad_params("invalid block range params");
        }

        // Which registries the address filter selects (none given: all).
        unsigned mask = (1U << kRegistryCount) - 1;
        if (const auto a = f.find("address"); a != f.end() && !a->is_null()) {
            mask = 0;
            if (a->is_array()) {
                for (const auto& e : *a) {
                    if (!e.is_string()) return bad_params("invalid address");
                    if (const auto r = registry_of(e)) mask |= 1U << *r;
                }
            } else if (a->is_string()) {
                if (const auto r = registry_of(*a)) mask |= 1U << *r;
            } else {
                return bad_params("invalid address");
            }
        }

        // Topic filters: per position, null (any) or one hash or a list of hashes (OR).
        std::array<std::vector<core::Hash32>, 4> wanted;
        std::array<bool, 4> constrained{};
        if (const auto t = f.find("topics"); t != f.end() && !t->is_null()) {
            if (!t->is_array() || t->size() > 4) return bad_params("invalid topics");
            for (size_t i = 0; i < t->size(); ++i) {
                const json& e = (*t)[i];
                if (e.is_null()) continue;
                constrained[i] = true;
                const auto add = [&](const json& one) {
                    const auto h = parse_hash(one);
                    if (h) wanted[i].push_back(*h);
                    return h.has_value();
                };
                if (e.is_array()) {
                    if (e.empty()) constrained[i] = false;
                    for (const auto& one : e)
                        if (!one.is_null() && !add(one)) return bad_params("invalid topic");
                } else if (!add(e)) {
                    return bad_params("invalid topic");
                }
            }
        }

        const auto range = chain_.logs_in(from, to);
        std::vector<const SyntheticLog*> hits;
        hits.reserve(std::min(range.size(), SyntheticRpc::kMaxLogs + 1));
        size_t data_bytes = 0;
        for (const auto& log : range) {
            if (((mask >> static_cast<unsigned>(log.registry)) & 1U) == 0) continue;
            bool match = true;
            const auto topics = chain_.topics(log);
            for (size_t i = 0; i < 4 && match; ++i) {
                if (!constrained[i]) continue;
                match = i < topics.size() &&
                        std::find(wanted[i].begin(), wanted[i].end(), topics[i]) != wanted[i].end();
            }
            if (!match) continue;
            if (hits.size() == SyntheticRpc::kMaxLogs)
                return RpcFailure{-32005, "query returned more than 10000 results", {}};
            hits.push_back(&log);
            data_bytes += log.data_size;
        }

        // An upper bound (a log's fixed part is at most ~650 characters): one allocation.
        out.reserve(out.size() + 16 + hits.size() * 700 + 2 * data_bytes);
        out += '[';
        bool first = true;
        for (const SyntheticLog* log : hits) {
            if (!first) out += ',';
            first = false;
            out += R"({"address":")";
            out += address_hex_[static_cast<size_t>(log->registry)];
            out += R"(","topics":[)";
            const auto topics = chain_.topics(*log);
            for (size_t i = 0; i < topics.size(); ++i) {
                if (i != 0) out += ',';
                put_quoted_hex(out, topics[i]);
            }
            out += R"(],"data":)";
            put_quoted_hex(out, chain_.data(*log));
            out += R"(,"blockNumber":)";
            put_quoted_quantity(out, log->block_num);
            out += R"(,"blockHash":)";
            put_quoted_hex(out, chain_.block(log->block_num).hash);
            out += R"(,"transactionHash":)";
            put_quoted_hex(out, log->txn_hash);
            out += R"(,"transactionIndex":)";
            put_quoted_quantity(out, log->txn_index);
            out += R"(,"logIndex":)";
            put_quoted_quantity(out, log->log_index);
            out += R"(,"removed":false})";
        }
        out += ']';
        return std::nullopt;
    }

    Failure get_code(std::string& out, const json& params) const {
        if (params.empty()) return bad_params("missing address");
        const auto r = registry_of(params[0]);
        out += '"';
        out += r ? code_hex_[*r] : std::string("0x");
        out += '"';
        return std::nullopt;
    }

    // AgentWorkflow.getAgentTask / getAgentReply: the stored struct, or a revert with
    // UnknownTask(bytes32) / UnknownReply(bytes32).
    Failure call(std::string& out, const json& params) const {
        if (params.empty() || !params[0].is_object()) return bad_params("missing call object");
        const json& c = params[0];
        const auto to = c.find("to");
        if (to == c.end()) return bad_params("missing to");
        const auto r = registry_of(*to);
        if (!r) {
            out += "\"0x\"";  // no code: the call succeeds with empty output
            return std::nullopt;
        }
        auto input = c.find("input");
        if (input == c.end()) input = c.find("data");
        if (input == c.end() || !input->is_string()) return bad_params("missing input");
        const auto bytes = core::from_hex(input->get_ref<const std::string&>());
        if (!bytes) return bad_params("invalid input");
        if (static_cast<Registry>(*r) != Registry::workflow || bytes->size() != 36)
            return reverted();
        core::Selector selector{};
        std::copy_n(bytes->begin(), 4, selector.begin());
        core::Hash32 arg{};
        std::copy_n(bytes->begin() + 4, 32, arg.begin());
        const bool task = selector == workflow::kGetAgentTaskSelector;
        if (!task && selector != workflow::kGetAgentReplySelector) return reverted();
        const core::Bytes* result =
            task ? chain_.agent_task_result(arg) : chain_.agent_reply_result(arg);
        if (result == nullptr) {
            const auto error =
                core::selector_of(task ? "UnknownTask(bytes32)" : "UnknownReply(bytes32)");
            RpcFailure f = reverted();
            f.message = "execution reverted: custom error";
            f.data.assign(error.begin(), error.end());
            f.data.insert(f.data.end(), arg.begin(), arg.end());
            return f;
        }
        put_quoted_hex(out, *result);
        return std::nullopt;
    }

    const SyntheticChain& chain_;
    const std::array<std::string, kRegistryCount>& address_hex_;
    const std::array<std::string, kRegistryCount>& code_hex_;
};

void answer_one(std::string& out, const Dispatcher& dispatcher, const json& request) {
    out += R"({"jsonrpc":"2.0","id":)";
    const bool object = request.is_object();
    const auto id = object ? request.find("id") : request.end();
    out += object && id != request.end() ? id->dump() : std::string("null");
    const size_t mark = out.size();
    Failure failure;
    if (!object || !request.contains("method") || !request["method"].is_string()) {
        failure = RpcFailure{-32600, "invalid request", {}};
    } else {
        static const json kNoParams = json::array();
        const auto p = request.find("params");
        const json& params = p == request.end() || p->is_null() ? kNoParams : *p;
        if (!params.is_array()) {
            failure = bad_params("params must be an array");
        } else {
            out += R"(,"result":)";
            try {
                failure =
                    dispatcher.run(out, request["method"].get_ref<const std::string&>(), params);
            } catch (const std::exception& e) {  // a nlohmann type error on odd input
                failure = RpcFailure{-32603, e.what(), {}};
            }
        }
    }
    if (failure) {
        out.resize(mark);
        out += R"(,"error":{"code":)";
        out += std::to_string(failure->code);
        out += R"(,"message":)";
        out += json(failure->message).dump(-1, ' ', false, json::error_handler_t::replace);
        if (!failure->data.empty()) {
            out += R"(,"data":)";
            put_quoted_hex(out, failure->data);
        }
        out += '}';
    }
    out += '}';
}

}  // namespace

SyntheticRpc::SyntheticRpc(const SyntheticChain& chain) : chain_(chain) {
    for (size_t i = 0; i < kRegistryCount; ++i) {
        const auto registry = static_cast<Registry>(i);
        address_hex_[i] = registry_address(registry).to_lower_hex();
        // Placeholder runtime code: only its hash matters to the indexer (ERC-8257 asks it to
        // record the registries' bytecode hashes), so one distinct blob per contract.
        const core::Hash32 tag = core::keccak256(registry_contract(registry));
        std::string code = "0x6080604052348015600e575f5ffd5b50";
        put_hex(code, tag);
        code.erase(code.size() - 66, 2);  // drop the second "0x"
        code_hex_[i] = std::move(code);
    }
}

std::string SyntheticRpc::handle(std::string_view body) const {
    std::string out;
    try {
        const json request = json::parse(body, nullptr, false);
        const Dispatcher dispatcher(chain_, address_hex_, code_hex_);
        if (request.is_discarded()) {
            out = R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}})";
        } else if (request.is_array()) {
            if (request.empty()) {
                out =
                    R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}})";
            } else {
                out += '[';
                for (size_t i = 0; i < request.size(); ++i) {
                    if (i != 0) out += ',';
                    answer_one(out, dispatcher, request[i]);
                }
                out += ']';
            }
        } else {
            answer_one(out, dispatcher, request);
        }
    } catch (const std::exception& e) {  // bad_alloc, or nlohmann on odd input
        out = R"({"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":)" +
              json(std::string(e.what())).dump(-1, ' ', false, json::error_handler_t::replace) +
              "}}";
    }
    return out;
}

}  // namespace credence::bench
