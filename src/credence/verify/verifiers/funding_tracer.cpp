#include <credence/verify/verifiers/funding_tracer.hpp>

#include <array>
#include <exception>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <credence/chain/rpc_codec.hpp>

namespace credence::verify {
namespace {

using chain::RpcErrorKind;
using nlohmann::json;

// Whether `address` had a balance or had sent a transaction at `block_num`: one batch.
chain::RpcResult<bool> funded_at(chain::RpcClient& rpc, const core::Address& address,
                                 uint64_t block_num) {
    const std::array<chain::RpcCall, 2> calls{
        chain::RpcCall{"eth_getBalance",
                       json::array({address.to_lower_hex(), chain::to_quantity(block_num)})},
        chain::RpcCall{"eth_getTransactionCount",
                       json::array({address.to_lower_hex(), chain::to_quantity(block_num)})}};
    auto answers = rpc.batch(calls);
    if (!answers) return std::unexpected(std::move(answers.error()));
    for (auto& a : *answers) {
        if (!a) return std::unexpected(std::move(a.error()));
        auto q = chain::read_quantity(*a);
        if (!q) return std::unexpected(std::move(q.error()));
        if (!q->is_zero()) return true;
    }
    return false;
}

}  // namespace

std::string_view to_string(FundingSource s) noexcept {
    switch (s) {
        case FundingSource::transfer:
            return "transfer";
        case FundingSource::internal:
            return "internal";
        case FundingSource::genesis:
            return "genesis";
        case FundingSource::never:
            return "never";
    }
    return "unknown";
}

chain::RpcResult<Funding> trace_first_funding(chain::RpcClient& rpc, const core::Address& address,
                                              uint64_t head, const FundingLimits& limits) {
    Funding out;
    out.address = address;
    const auto ask = [&](uint64_t block_num) -> chain::RpcResult<bool> {
        if (out.requests >= limits.max_requests) {
            return chain::rpc_fail(RpcErrorKind::invalid_argument,
                                   fmt::format("funding of {}: more than {} requests",
                                               address.to_checksum_hex(), limits.max_requests));
        }
        ++out.requests;
        return funded_at(rpc, address, block_num);
    };
    auto at_head = ask(head);
    if (!at_head) return std::unexpected(std::move(at_head.error()));
    if (!*at_head) return out;  // FundingSource::never
    auto at_genesis = ask(0);
    if (!at_genesis) return std::unexpected(std::move(at_genesis.error()));
    if (*at_genesis) {
        out.source = FundingSource::genesis;
        return out;
    }
    // Invariant: not funded at `lo`, funded at `hi`.
    uint64_t lo = 0;
    uint64_t hi = head;
    while (hi - lo > 1) {
        const uint64_t mid = lo + (hi - lo) / 2;
        auto funded = ask(mid);
        if (!funded) return std::unexpected(std::move(funded.error()));
        (*funded ? hi : lo) = mid;
    }
    out.block_num = hi;
    out.source = FundingSource::internal;
    ++out.requests;
    auto block = rpc.request("eth_getBlockByNumber", json::array({chain::to_quantity(hi), true}));
    if (!block) return std::unexpected(std::move(block.error()));
    try {
        if (!block->is_object() || !block->contains("transactions") ||
            !(*block)["transactions"].is_array()) {
            return chain::rpc_fail(RpcErrorKind::bad_response,
                                   fmt::format("block {} has no transaction list", hi));
        }
        // The first value transfer to the address in its funding block names the funder.
        for (const json& txn : (*block)["transactions"]) {
            if (!txn.is_object()) continue;
            const auto to = txn.find("to");
            if (to == txn.end() || to->is_null()) continue;
            auto to_address = chain::read_address(*to);
            if (!to_address || *to_address != address) continue;
            auto value = chain::read_quantity(txn.value("value", json("0x0")));
            if (!value || value->is_zero()) continue;
            auto from = chain::read_address(txn.value("from", json()));
            auto hash = chain::read_hash(txn.value("hash", json()));
            if (!from || !hash) {
                return chain::rpc_fail(
                    RpcErrorKind::bad_response,
                    fmt::format("block {}: a transaction without from or hash", hi));
            }
            out.source = FundingSource::transfer;
            out.funder = *from;
            out.txn_hash = *hash;
            out.amount = *value;
            break;
        }
    } catch (const std::exception& e) {
        return chain::rpc_fail(RpcErrorKind::bad_response, e.what());
    }
    return out;
}

}  // namespace credence::verify
