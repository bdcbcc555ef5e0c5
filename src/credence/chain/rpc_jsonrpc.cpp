#include <credence/chain/rpc_jsonrpc.hpp>

#include <optional>

namespace credence::chain {
namespace {

using nlohmann::json;

json request_object(uint64_t id, const RpcCall& call) {
    return json{{"jsonrpc", "2.0"},
                {"id", id},
                {"method", call.method},
                {"params", call.params.is_null() ? json::array() : call.params}};
}

RpcResult<json> parse_body(std::string_view body) {
    try {
        return json::parse(body);
    } catch (const json::exception& e) {
        std::string msg = e.what();
        return rpc_fail(RpcErrorKind::bad_json, "response is not JSON: " + msg);
    }
}

// The error object of JSON-RPC 2.0 §5.1: {code: integer, message: string, data?: any}.
RpcError read_error_object(const json& err) {
    RpcError e;
    e.kind = RpcErrorKind::rpc_error;
    if (!err.is_object()) {
        e.kind = RpcErrorKind::bad_response;
        e.message = "error member is not an object";
        return e;
    }
    if (auto it = err.find("code"); it != err.end() && it->is_number_integer()) {
        e.code = it->get<int64_t>();
    }
    if (auto it = err.find("message"); it != err.end() && it->is_string()) {
        e.message = it->get<std::string>();
    }
    if (auto it = err.find("data"); it != err.end() && !it->is_null()) {
        const json* data = &*it;
        // Some nodes nest revert data one level down: {"data": {"data": "0x..."}}.
        if (data->is_object() && data->contains("data") && (*data)["data"].is_string()) {
            data = &(*data)["data"];
        }
        std::optional<core::Bytes> bytes;
        if (data->is_string()) {
            if (auto b = core::from_prefixed_hex(data->get_ref<const std::string&>())) {
                bytes = std::move(*b);
            }
        }
        if (bytes) {
            e.data = std::move(*bytes);
        } else {
            e.data_json = it->dump();
        }
    }
    return e;
}

// Reads the id of a response; only the integer ids we send are meaningful.
std::optional<uint64_t> read_id(const json& obj) {
    auto it = obj.find("id");
    if (it == obj.end() || !it->is_number_unsigned()) return std::nullopt;
    return it->get<uint64_t>();
}

// One response object, already known to carry the right id.
RpcResult<json> read_outcome(json& obj) {
    auto result = obj.find("result");
    auto error = obj.find("error");
    const bool has_result = result != obj.end();
    const bool has_error = error != obj.end() && !error->is_null();
    if (has_error) return std::unexpected(read_error_object(*error));
    if (!has_result) return rpc_fail(RpcErrorKind::bad_response, "neither result nor error");
    return std::move(*result);
}

bool is_v2(const json& obj) {
    auto it = obj.find("jsonrpc");
    return it != obj.end() && it->is_string() && it->get_ref<const std::string&>() == "2.0";
}

}  // namespace

std::string encode_request(uint64_t id, const RpcCall& call) {
    return request_object(id, call).dump();
}

std::string encode_batch(uint64_t first_id, std::span<const RpcCall> calls) {
    json arr = json::array();
    for (size_t i = 0; i < calls.size(); ++i) arr.push_back(request_object(first_id + i, calls[i]));
    return arr.dump();
}

RpcResult<json> decode_response(std::string_view body, uint64_t id) {
    auto parsed = parse_body(body);
    if (!parsed) return parsed;
    json& obj = *parsed;
    if (!obj.is_object()) return rpc_fail(RpcErrorKind::bad_response, "response is not an object");
    if (!is_v2(obj)) return rpc_fail(RpcErrorKind::bad_response, "jsonrpc is not \"2.0\"");
    // §5: a parse or invalid-request error is answered with id null; report that error object.
    auto rid = read_id(obj);
    if (!rid || *rid != id) {
        if (auto err = obj.find("error"); err != obj.end() && !err->is_null()) {
            return std::unexpected(read_error_object(*err));
        }
        return rpc_fail(RpcErrorKind::bad_response, "response id does not match request id");
    }
    return read_outcome(obj);
}

RpcResult<std::vector<RpcResult<json>>> decode_batch(std::string_view body, uint64_t first_id,
                                                     size_t count) {
    auto parsed = parse_body(body);
    if (!parsed) return std::unexpected(std::move(parsed.error()));
    json& arr = *parsed;
    // §6: a batch the server cannot process at all is answered by a single error object.
    if (arr.is_object()) {
        if (auto err = arr.find("error"); err != arr.end() && !err->is_null()) {
            return std::unexpected(read_error_object(*err));
        }
    }
    if (!arr.is_array()) return rpc_fail(RpcErrorKind::bad_response, "batch response not an array");
    std::vector<std::optional<RpcResult<json>>> slots(count);
    for (auto& obj : arr) {
        if (!obj.is_object() || !is_v2(obj)) {
            return rpc_fail(RpcErrorKind::bad_response,
                            "batch element is not a JSON-RPC 2.0 object");
        }
        auto rid = read_id(obj);
        if (!rid || *rid < first_id || *rid - first_id >= count) {
            return rpc_fail(RpcErrorKind::bad_response, "batch response has an unknown id");
        }
        auto& slot = slots[*rid - first_id];
        if (slot) return rpc_fail(RpcErrorKind::bad_response, "batch response repeats an id");
        slot = read_outcome(obj);
    }
    std::vector<RpcResult<json>> out;
    out.reserve(count);
    for (auto& slot : slots) {
        if (slot) {
            out.push_back(std::move(*slot));
        } else {
            out.emplace_back(
                rpc_fail(RpcErrorKind::bad_response, "no response for this call in the batch"));
        }
    }
    return out;
}

}  // namespace credence::chain
