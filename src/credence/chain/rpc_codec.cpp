#include <credence/chain/rpc_codec.hpp>

namespace credence::chain {
namespace {

using nlohmann::json;

std::unexpected<RpcError> bad(std::string what) {
    return rpc_fail(RpcErrorKind::bad_response, std::move(what));
}

// The named member of an object, or nullptr when absent.
const json* member(const json& obj, const char* name) {
    if (!obj.is_object()) return nullptr;
    auto it = obj.find(name);
    return it == obj.end() ? nullptr : &*it;
}

// Reads a required member with `reader`, prefixing errors with the field name.
template <typename Reader>
auto field(const json& obj, const char* name, Reader reader) -> decltype(reader(obj)) {
    const json* m = member(obj, name);
    if (m == nullptr) return bad(std::string("missing field ") + name);
    auto r = reader(*m);
    if (!r) r.error().message = std::string(name) + ": " + r.error().message;
    return r;
}

// Same, but absent or null gives nullopt.
template <typename Reader>
auto optional_field(const json& obj, const char* name, Reader reader)
    -> RpcResult<std::optional<typename decltype(reader(obj))::value_type>> {
    const json* m = member(obj, name);
    if (m == nullptr || m->is_null()) return std::nullopt;
    auto r = reader(*m);
    if (!r) {
        r.error().message = std::string(name) + ": " + r.error().message;
        return std::unexpected(std::move(r.error()));
    }
    return std::optional(std::move(*r));
}

const std::string* as_string(const json& j) {
    return j.is_string() ? j.get_ptr<const std::string*>() : nullptr;
}

}  // namespace

RpcResult<core::Uint256> parse_quantity(std::string_view s) {
    if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) {
        return bad("quantity must be 0x-prefixed with at least one digit");
    }
    const std::string_view digits = s.substr(2);
    // execution-apis: no leading zeros, except the single digit of zero.
    if (digits.size() > 1 && digits[0] == '0') return bad("quantity has leading zeros");
    if (digits.size() > 64) return bad("quantity exceeds 256 bits");
    auto v = core::Uint256::from_hex(digits);
    if (!v) return bad("quantity has a non-hex digit");
    return *v;
}

RpcResult<uint64_t> parse_quantity_u64(std::string_view s) {
    auto v = parse_quantity(s);
    if (!v) return std::unexpected(std::move(v.error()));
    if (!v->fits_u64()) return bad("quantity exceeds 64 bits");
    return v->limbs[0];
}

std::string to_quantity(uint64_t v) { return core::Uint256(v).to_hex(); }

RpcResult<core::Uint256> read_quantity(const json& j) {
    const auto* s = as_string(j);
    if (s == nullptr) return bad("quantity must be a string");
    return parse_quantity(*s);
}

RpcResult<uint64_t> read_u64(const json& j) {
    const auto* s = as_string(j);
    if (s == nullptr) return bad("quantity must be a string");
    return parse_quantity_u64(*s);
}

RpcResult<core::Bytes> read_data(const json& j) {
    const auto* s = as_string(j);
    if (s == nullptr) return bad("data must be a string");
    auto b = core::from_prefixed_hex(*s);
    if (!b) return bad("bad hex data: " + std::string(core::to_string(b.error().code)));
    return std::move(*b);
}

RpcResult<core::Hash32> read_hash(const json& j) {
    const auto* s = as_string(j);
    if (s == nullptr) return bad("hash must be a string");
    if (s->size() != 66 || (*s)[0] != '0' || (*s)[1] != 'x') return bad("hash must be 0x + 64 hex");
    auto h = core::from_hex_fixed<32>(*s);
    if (!h) return bad("bad hash hex");
    return *h;
}

RpcResult<core::Address> read_address(const json& j) {
    const auto* s = as_string(j);
    if (s == nullptr) return bad("address must be a string");
    // DATA, 20 bytes: letter case carries no meaning on the wire, so no EIP-55 check.
    auto a = core::Address::from_hex(*s, core::ChecksumMode::ignore);
    if (!a) return bad("bad address: " + std::string(core::to_string(a.error().code)));
    return *a;
}

namespace {

RpcResult<bool> read_bool(const json& j) {
    if (!j.is_boolean()) return bad("expected a boolean");
    return j.get<bool>();
}

template <typename T, typename Reader>
RpcResult<std::vector<T>> read_array(const json& j, Reader reader) {
    if (!j.is_array()) return bad("expected an array");
    std::vector<T> out;
    out.reserve(j.size());
    for (const auto& e : j) {
        auto v = reader(e);
        if (!v) {
            v.error().message = "[" + std::to_string(out.size()) + "] " + v.error().message;
            return std::unexpected(std::move(v.error()));
        }
        out.push_back(std::move(*v));
    }
    return out;
}

// Assigns the value of a result or returns its error from the enclosing function.
#define CREDENCE_RPC_TRY(lhs, expr)                                                           \
    do {                                                                                      \
        auto credence_rpc_try_ = (expr);                                                      \
        if (!credence_rpc_try_) return std::unexpected(std::move(credence_rpc_try_.error())); \
        (lhs) = std::move(*credence_rpc_try_);                                                \
    } while (false)

// Transaction hashes of a block fetched with hydrated=false; a hydrated block's objects carry a
// "hash" member, which we accept too.
RpcResult<core::Hash32> read_txn_entry(const json& j) {
    if (j.is_object()) return field(j, "hash", read_hash);
    return read_hash(j);
}

}  // namespace

RpcResult<Block> read_block(const json& j) {
    if (!j.is_object()) return bad("block must be an object");
    Block b;
    CREDENCE_RPC_TRY(b.number, field(j, "number", read_u64));
    CREDENCE_RPC_TRY(b.hash, field(j, "hash", read_hash));
    CREDENCE_RPC_TRY(b.parent_hash, field(j, "parentHash", read_hash));
    CREDENCE_RPC_TRY(b.timestamp, field(j, "timestamp", read_u64));
    CREDENCE_RPC_TRY(b.base_fee_per_gas, optional_field(j, "baseFeePerGas", read_quantity));
    CREDENCE_RPC_TRY(b.gas_limit, field(j, "gasLimit", read_u64));
    CREDENCE_RPC_TRY(b.gas_used, field(j, "gasUsed", read_u64));
    CREDENCE_RPC_TRY(b.txn_hashes, field(j, "transactions", [](const json& a) {
                         return read_array<core::Hash32>(a, read_txn_entry);
                     }));
    return b;
}

RpcResult<Log> read_log(const json& j) {
    if (!j.is_object()) return bad("log must be an object");
    Log l;
    CREDENCE_RPC_TRY(l.address, field(j, "address", read_address));
    CREDENCE_RPC_TRY(l.topics, field(j, "topics", [](const json& a) {
                         return read_array<core::Hash32>(a, read_hash);
                     }));
    CREDENCE_RPC_TRY(l.data, field(j, "data", read_data));
    CREDENCE_RPC_TRY(l.block_num, field(j, "blockNumber", read_u64));
    CREDENCE_RPC_TRY(l.block_hash, field(j, "blockHash", read_hash));
    CREDENCE_RPC_TRY(l.txn_hash, field(j, "transactionHash", read_hash));
    CREDENCE_RPC_TRY(l.txn_index, field(j, "transactionIndex", read_u64));
    CREDENCE_RPC_TRY(l.log_index, field(j, "logIndex", read_u64));
    std::optional<bool> removed;
    CREDENCE_RPC_TRY(removed, optional_field(j, "removed", read_bool));
    l.removed = removed.value_or(false);
    CREDENCE_RPC_TRY(l.block_timestamp, optional_field(j, "blockTimestamp", read_u64));
    return l;
}

RpcResult<std::vector<Log>> read_logs(const json& j) { return read_array<Log>(j, read_log); }

RpcResult<Receipt> read_receipt(const json& j) {
    if (!j.is_object()) return bad("receipt must be an object");
    Receipt r;
    CREDENCE_RPC_TRY(r.txn_hash, field(j, "transactionHash", read_hash));
    CREDENCE_RPC_TRY(r.txn_index, field(j, "transactionIndex", read_u64));
    CREDENCE_RPC_TRY(r.block_hash, field(j, "blockHash", read_hash));
    CREDENCE_RPC_TRY(r.block_num, field(j, "blockNumber", read_u64));
    CREDENCE_RPC_TRY(r.from, field(j, "from", read_address));
    CREDENCE_RPC_TRY(r.to, optional_field(j, "to", read_address));
    // EIP-658 status; pre-Byzantium receipts carry a state root instead, which we do not read.
    uint64_t status = 0;
    CREDENCE_RPC_TRY(status, field(j, "status", read_u64));
    if (status > 1) return bad("status must be 0x0 or 0x1");
    r.status = status == 1;
    CREDENCE_RPC_TRY(r.gas_used, field(j, "gasUsed", read_u64));
    CREDENCE_RPC_TRY(r.cumulative_gas_used, field(j, "cumulativeGasUsed", read_u64));
    CREDENCE_RPC_TRY(r.effective_gas_price, field(j, "effectiveGasPrice", read_quantity));
    CREDENCE_RPC_TRY(r.contract_address, optional_field(j, "contractAddress", read_address));
    CREDENCE_RPC_TRY(r.logs, field(j, "logs", read_logs));
    return r;
}

RpcResult<FeeHistory> read_fee_history(const json& j) {
    if (!j.is_object()) return bad("fee history must be an object");
    FeeHistory f;
    CREDENCE_RPC_TRY(f.oldest_block, field(j, "oldestBlock", read_u64));
    CREDENCE_RPC_TRY(f.base_fee_per_gas, field(j, "baseFeePerGas", [](const json& a) {
                         return read_array<core::Uint256>(a, read_quantity);
                     }));
    CREDENCE_RPC_TRY(f.gas_used_ratio, field(j, "gasUsedRatio", [](const json& a) {
                         return read_array<double>(a, [](const json& e) -> RpcResult<double> {
                             if (!e.is_number()) return bad("expected a number");
                             return e.get<double>();
                         });
                     }));
    // `reward` is absent when no percentiles were requested.
    std::optional<std::vector<std::vector<core::Uint256>>> reward;
    CREDENCE_RPC_TRY(reward, optional_field(j, "reward", [](const json& a) {
                         return read_array<std::vector<core::Uint256>>(a, [](const json& row) {
                             return read_array<core::Uint256>(row, read_quantity);
                         });
                     }));
    if (reward) f.reward = std::move(*reward);
    return f;
}

#undef CREDENCE_RPC_TRY

json to_json(const CallRequest& req) {
    json j = json::object();
    if (req.from) j["from"] = req.from->to_lower_hex();
    if (req.to) j["to"] = req.to->to_lower_hex();
    // "input" is the execution-apis name; some older nodes read only "data", so send both.
    const std::string data = core::to_hex(req.data);
    j["input"] = data;
    j["data"] = data;
    if (req.value) j["value"] = req.value->to_hex();
    if (req.gas) j["gas"] = to_quantity(*req.gas);
    return j;
}

json to_json(const LogFilter& filter) {
    json j = json::object();
    if (filter.block_hash) {
        j["blockHash"] = core::to_hex(*filter.block_hash);
    } else {
        j["fromBlock"] = filter.from_block.to_param();
        j["toBlock"] = filter.to_block.to_param();
    }
    if (filter.addresses.size() == 1) {
        j["address"] = filter.addresses.front().to_lower_hex();
    } else if (!filter.addresses.empty()) {
        json a = json::array();
        for (const auto& addr : filter.addresses) a.push_back(addr.to_lower_hex());
        j["address"] = std::move(a);
    }
    if (!filter.topics.empty()) {
        json topics = json::array();
        for (const auto& position : filter.topics) {
            if (!position) {
                topics.push_back(nullptr);
            } else {
                json any = json::array();
                for (const auto& t : *position) any.push_back(core::to_hex(t));
                topics.push_back(std::move(any));
            }
        }
        j["topics"] = std::move(topics);
    }
    return j;
}

std::string BlockId::to_param() const {
    if (const auto* n = std::get_if<uint64_t>(&value_)) return to_quantity(*n);
    switch (std::get<Tag>(value_)) {
        case Tag::latest:
            return "latest";
        case Tag::pending:
            return "pending";
        case Tag::earliest:
            return "earliest";
        case Tag::safe:
            return "safe";
        case Tag::finalized:
            return "finalized";
    }
    return "latest";
}

}  // namespace credence::chain
