// The demo's transaction batches (demo_seed.hpp): many keys, several transactions in flight per
// key, waited for together, so that on a devnet with block times the seeding costs a few blocks,
// not one block per transaction. Errors are DemoFailure lines naming the transaction.
// Thread-safety: one owner. Ownership: borrows the RpcClient and the keys (TxnSender does).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include <credence/agent/demo_seed.hpp>
#include <credence/chain/rpc_client.hpp>
#include <credence/chain/txn_sender.hpp>
#include <credence/core/abi_type.hpp>

namespace credence::agent::detail {

inline constexpr uint64_t kTransferGas = 21'000;

/// Sends transactions from many keys, several in flight per key, and waits for them together:
/// on a devnet with block times the seeding costs a few blocks, not one block per transaction.
class Batch {
public:
    explicit Batch(chain::RpcClient& rpc) : rpc_(rpc) {}

    /// Signs and submits; returns the index of the transaction in this batch.
    DemoResult<size_t> submit(const core::SecretKey& key, const chain::TxnRequest& request,
                              std::string what) {
        chain::TxnSender& sender = sender_for(key);
        auto signed_txn = sender.prepare(request);
        if (!signed_txn) return std::unexpected(send_failure(what, signed_txn.error()));
        auto hash = sender.submit(*signed_txn);
        if (!hash) return std::unexpected(send_failure(what, hash.error()));
        pending_.push_back({&sender, *hash, std::move(what)});
        return pending_.size() - 1;
    }
    DemoResult<size_t> call(const core::SecretKey& key, const core::Address& to,
                            core::Result<core::Bytes, core::AbiError> data, std::string what) {
        if (!data) return std::unexpected(DemoFailure{DemoError::abi, what + ": encoding failed"});
        chain::TxnRequest r;
        r.to = to;
        r.data = std::move(*data);
        return submit(key, r, std::move(what));
    }
    DemoResult<size_t> transfer(const core::SecretKey& key, const core::Address& to,
                                const core::Uint256& wei, std::string what) {
        chain::TxnRequest r;
        r.to = to;
        r.value = wei;
        r.gas_limit = kTransferGas;
        return submit(key, r, std::move(what));
    }
    /// Waits for every submitted transaction; receipts in submission order.
    DemoResult<std::vector<chain::Receipt>> wait_all() {
        std::vector<chain::Receipt> receipts;
        receipts.reserve(pending_.size());
        for (auto& p : pending_) {
            auto r = p.sender->wait(p.hash);
            if (!r) return std::unexpected(send_failure(p.what, r.error()));
            receipts.push_back(std::move(*r));
        }
        pending_.clear();
        return receipts;
    }
    [[nodiscard]] const core::Hash32& hash(size_t i) const { return pending_[i].hash; }

private:
    struct Pending {
        chain::TxnSender* sender;
        core::Hash32 hash;
        std::string what;
    };
    chain::TxnSender& sender_for(const core::SecretKey& key) {
        const core::Address a = core::address_of(key);
        for (auto& [address, sender] : senders_)
            if (address == a) return *sender;
        chain::SenderOptions o;
        o.receipt_timeout = std::chrono::milliseconds{60'000};
        senders_.emplace_back(a, std::make_unique<chain::TxnSender>(rpc_, key, o));
        return *senders_.back().second;
    }
    static DemoFailure send_failure(const std::string& what, const chain::SendFailure& f) {
        std::string detail = fmt::format("{}: {}: {}", what, chain::to_string(f.code), f.detail);
        return DemoFailure{DemoError::send, std::move(detail)};
    }

    chain::RpcClient& rpc_;
    std::vector<std::pair<core::Address, std::unique_ptr<chain::TxnSender>>> senders_;
    std::vector<Pending> pending_;
};

}  // namespace credence::agent::detail
