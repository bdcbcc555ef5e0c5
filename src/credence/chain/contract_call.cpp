#include <credence/chain/contract_call.hpp>

#include <utility>

#include <credence/chain/revert.hpp>
#include <credence/chain/rpc_codec.hpp>

namespace credence::chain {

CallError call_error(const RpcError& error) {
    if (is_revert(error))
        return {CallErrorKind::reverted, {}, error.data, describe_credence_revert(error.data)};
    return {CallErrorKind::rpc_failure, {}, {}, error.to_string()};
}

CallResult<core::Bytes> call_answer(const RpcResult<nlohmann::json>& answer) {
    if (!answer) return std::unexpected(call_error(answer.error()));
    auto data = read_data(*answer);
    if (!data) return std::unexpected(call_error(data.error()));
    return std::move(*data);
}

CallResult<core::Bytes> ContractCaller::call(const core::Address& to, core::Bytes data) {
    CallRequest req;
    req.to = to;
    req.data = std::move(data);
    auto out = rpc_.call(req, block_);
    if (!out) return std::unexpected(call_error(out.error()));
    return std::move(*out);
}

}  // namespace credence::chain
