// libFuzzer target for the eth_getLogs response parser (index/log_json.hpp): the body comes from
// whatever node or provider the indexer is pointed at, so it is untrusted, and it is large.
//
// Checks: parse_logs_response never crashes or hangs; a parse in place and a parse of a copy agree
// with each other (one reused parser); the nlohmann path of the JSON-RPC client
// (chain::decode_response + chain::read_logs) agrees with it: when log_json accepts a body, the
// nlohmann path accepts it too (unless nlohmann rejects the JSON itself, where the two JSON
// parsers may differ) and reads the same logs; a JSON-RPC error comes back as the same error;
// every failure has a message.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <credence/chain/rpc_codec.hpp>
#include <credence/chain/rpc_jsonrpc.hpp>
#include <credence/index/log_json.hpp>

using namespace credence;

namespace {

constexpr uint64_t kId = 1;

index::RawLog to_raw(const chain::Log& l) {
    return index::RawLog{l.block_num, l.block_hash, l.txn_hash, l.txn_index, l.log_index,
                         l.address,   l.topics,     l.data,     l.removed, l.block_timestamp};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    static index::LogJsonParser parser;  // reused across inputs, as LogSource does
    const auto ours = parser.parse(text, kId);
    std::string copy(text);
    const auto in_place = parser.parse_in_place(copy, kId);
    if (copy != text) std::abort();
    if (ours.has_value() != in_place.has_value()) std::abort();
    if (ours && *ours != *in_place) std::abort();
    if (!ours && (ours.error().kind != in_place.error().kind ||
                  ours.error().message != in_place.error().message))
        std::abort();
    if (!ours && ours.error().message.empty() &&
        ours.error().kind != chain::RpcErrorKind::rpc_error)
        std::abort();

    const auto envelope = chain::decode_response(text, kId);
    if (ours) {
        if (!envelope) {
            if (envelope.error().kind == chain::RpcErrorKind::bad_json) return 0;
            std::abort();  // log_json accepted a shape the client refuses
        }
        const auto theirs = chain::read_logs(*envelope);
        if (!theirs || theirs->size() != ours->size()) std::abort();
        for (size_t i = 0; i < ours->size(); ++i) {
            if (to_raw((*theirs)[i]) != (*ours)[i]) std::abort();
        }
        return 0;
    }
    if (ours.error().kind == chain::RpcErrorKind::rpc_error) {
        if (envelope || envelope.error().kind != chain::RpcErrorKind::rpc_error ||
            envelope.error().code != ours.error().code ||
            envelope.error().message != ours.error().message ||
            envelope.error().data != ours.error().data)
            std::abort();
    }
    return 0;
}
