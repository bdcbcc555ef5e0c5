// proofOfPayment checks (docs/architecture.md §verify/) against a real anvil: real ETH transfers, a
// real revert, and a real ERC-20 Transfer log emitted by EVM code installed with anvil_setCode.
#include <credence/verify/verifiers/payment_verifier.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include <credence/chain/rpc_codec.hpp>
#include <credence/core/keccak.hpp>

#include "support/devnet.hpp"

namespace {

using namespace credence;
using credence::testing::Devnet;
using nlohmann::json;

// Sends from an unlocked dev account and waits for the receipt (anvil mines each txn).
core::Hash32 send(Devnet& devnet, const core::Address& from, const core::Address& to, uint64_t wei,
                  const std::string& data = "0x", bool fixed_gas = false) {
    auto rpc = devnet.rpc();
    json txn = {{"from", from.to_lower_hex()},
                {"to", to.to_lower_hex()},
                {"value", chain::to_quantity(wei)},
                {"data", data}};
    // A reverting call cannot be gas-estimated: give it gas so that anvil mines it anyway.
    if (fixed_gas) txn["gas"] = "0x30000";
    auto hash = rpc.request("eth_sendTransaction", json::array({txn}));
    EXPECT_TRUE(hash) << (hash ? "" : hash.error().to_string());
    if (!hash) return {};
    auto parsed = core::from_hex_fixed<32>(hash->get<std::string>());
    EXPECT_TRUE(parsed);
    for (int i = 0; i < 100; ++i) {
        auto receipt = rpc.get_transaction_receipt(*parsed);
        if (receipt && *receipt) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return *parsed;
}

std::string hex_word(const core::Hash32& w) { return core::to_hex(w, false); }

core::Hash32 address_word(const core::Address& a) {
    core::Hash32 w{};
    std::copy(a.bytes.begin(), a.bytes.end(), w.begin() + 12);
    return w;
}

// EVM code that behaves like a token's transfer(to, amount) as far as logs go: it emits
// Transfer(msg.sender, to, amount) from calldata (to = word 0, amount = word 1). No balances: the
// checker reads logs only, as it must for x402's transferWithAuthorization.
std::string transfer_emitter_code() {
    return "0x"
           "602035"  // PUSH1 0x20 CALLDATALOAD      amount
           "600052"  // PUSH1 0 MSTORE               mem[0..32] = amount
           "600035"  // PUSH1 0 CALLDATALOAD         to            (topic2)
           "33"      // CALLER                       from          (topic1)
           "7f" +    // PUSH32 Transfer topic                      (topic0)
           hex_word(verify::erc20_transfer_topic()) +
           "6020"  // PUSH1 32                     size
           "6000"  // PUSH1 0                      offset
           "a3"    // LOG3
           "00";   // STOP
}

class PaymentProof : public credence::testing::SharedDevnetFixture {
protected:
    core::Address client() { return devnet().dev_address(1); }
    core::Address owner() { return devnet().dev_address(0); }
    core::Address stranger() { return devnet().dev_address(5); }
    verify::PaymentParties parties() { return {client(), {owner()}}; }

    core::ProofOfPayment proof(const core::Hash32& txn, const std::string& to = {}) {
        return {client().to_checksum_hex(), to.empty() ? owner().to_checksum_hex() : to,
                std::to_string(devnet().chain_id()), core::to_hex(txn)};
    }
    verify::PaymentVerification check(const core::ProofOfPayment& p,
                                      const verify::PaymentParties& who) {
        chain::RpcClient rpc = devnet().rpc();
        const uint64_t id = devnet().chain_id();
        return verify::verify_payment(p, who, [&](uint64_t chain) -> chain::RpcClient* {
            return chain == id ? &rpc : nullptr;
        });
    }
    verify::PaymentVerification check(const core::ProofOfPayment& p) { return check(p, parties()); }

    core::Address install(const std::string& code, uint8_t tag) {
        core::Address at{};
        at.bytes.fill(tag);
        auto rpc = devnet().rpc();
        auto r = rpc.request("anvil_setCode", json::array({at.to_lower_hex(), code}));
        EXPECT_TRUE(r) << (r ? "" : r.error().to_string());
        return at;
    }
};

}  // namespace

TEST_F(PaymentProof, eth_from_client_to_owner_is_verified) {
    const auto txn = send(devnet(), client(), owner(), 1'000'000'000'000'000'000ULL);
    const auto v = check(proof(txn));
    EXPECT_TRUE(v.verified) << v.detail;
    EXPECT_FALSE(v.reason);
    ASSERT_TRUE(v.kind);
    EXPECT_EQ(*v.kind, verify::PaymentKind::eth);
    EXPECT_EQ(v.amount.to_dec(), "1000000000000000000");
    EXPECT_EQ(v.from, client());
    EXPECT_EQ(v.to, owner());
    EXPECT_EQ(v.txn_hash, txn);
    EXPECT_EQ(v.chain_id, devnet().chain_id());
    ASSERT_TRUE(v.block_num);
    EXPECT_GT(*v.block_num, 0U);
    EXPECT_EQ(v.to_json()["verified"], true);
    EXPECT_EQ(v.to_json()["kind"], "eth");
}

TEST_F(PaymentProof, eth_to_the_agent_wallet_is_verified_too) {
    const core::Address wallet = devnet().dev_address(7);
    const auto txn = send(devnet(), client(), wallet, 5);
    const auto v = check(proof(txn, wallet.to_checksum_hex()), {client(), {owner(), wallet}});
    EXPECT_TRUE(v.verified) << v.detail;
    EXPECT_EQ(v.to, wallet);
}

TEST_F(PaymentProof, eth_to_someone_else_is_wrong_parties) {
    const auto txn = send(devnet(), client(), stranger(), 1000);
    const auto v = check(proof(txn));
    EXPECT_FALSE(v.verified);
    EXPECT_EQ(v.reason, verify::PaymentReason::wrong_parties);
    // Paid by someone other than the client: also wrong parties.
    const auto other = send(devnet(), stranger(), owner(), 1000);
    EXPECT_EQ(check(proof(other)).reason, verify::PaymentReason::wrong_parties);
}

TEST_F(PaymentProof, zero_value_is_no_value) {
    const auto txn = send(devnet(), client(), owner(), 0);
    const auto v = check(proof(txn));
    EXPECT_FALSE(v.verified);
    EXPECT_EQ(v.reason, verify::PaymentReason::no_value);
}

TEST_F(PaymentProof, reverted_txn_is_failed) {
    // A payee that reverts every call (PUSH1 0 PUSH1 0 REVERT): the value never moves.
    const core::Address payee = install("0x60006000fd", 0xEE);
    const auto txn = send(devnet(), client(), payee, 1000, "0x", true);
    auto rpc = devnet().rpc();
    auto receipt = rpc.get_transaction_receipt(txn);
    ASSERT_TRUE(receipt && *receipt);
    ASSERT_FALSE((*receipt)->status);  // really reverted on-chain
    const auto v = check(proof(txn, payee.to_checksum_hex()), {client(), {payee}});
    EXPECT_FALSE(v.verified);
    EXPECT_EQ(v.reason, verify::PaymentReason::failed);
}

TEST_F(PaymentProof, unknown_txn_is_not_found) {
    core::Hash32 missing{};
    missing.fill(0xAB);
    const auto v = check(proof(missing));
    EXPECT_FALSE(v.verified);
    EXPECT_EQ(v.reason, verify::PaymentReason::not_found);
}

TEST_F(PaymentProof, chain_without_rpc_is_unavailable_not_failed) {
    auto p = proof(core::keccak256("x"));
    p.chain_id = "8453";
    const auto v = check(p);
    EXPECT_EQ(v.reason, verify::PaymentReason::chain_unavailable);
    EXPECT_FALSE(verify::is_failure(*v.reason));
    EXPECT_EQ(v.chain_id, 8453U);
    // CAIP-2 chain ids are read too.
    p.chain_id = "eip155:8453";
    EXPECT_EQ(check(p).reason, verify::PaymentReason::chain_unavailable);
}

TEST_F(PaymentProof, claim_naming_other_parties_is_claim_mismatch) {
    const auto txn = send(devnet(), client(), owner(), 1000);
    const auto v = check(proof(txn, stranger().to_checksum_hex()));
    EXPECT_FALSE(v.verified);
    EXPECT_EQ(v.reason, verify::PaymentReason::claim_mismatch);
}

TEST_F(PaymentProof, malformed_proof_is_bad_proof) {
    auto p = proof(core::keccak256("x"));
    p.tx_hash = "0x00";
    EXPECT_EQ(check(p).reason, verify::PaymentReason::bad_proof);
    p = proof(core::keccak256("x"));
    p.chain_id = "one";
    EXPECT_EQ(check(p).reason, verify::PaymentReason::bad_proof);
    p = proof(core::keccak256("x"));
    p.from_address = "0x1234";
    EXPECT_EQ(check(p).reason, verify::PaymentReason::bad_proof);
}

TEST_F(PaymentProof, erc20_transfer_log_from_client_to_owner_is_verified) {
    const core::Address token = install(transfer_emitter_code(), 0x20);
    const std::string data =
        "0x" + hex_word(address_word(owner())) + hex_word(core::Uint256(123456).to_word());
    const auto txn = send(devnet(), client(), token, 0, data);
    const auto v = check(proof(txn));
    EXPECT_TRUE(v.verified) << v.detail;
    ASSERT_TRUE(v.kind);
    EXPECT_EQ(*v.kind, verify::PaymentKind::erc20);
    EXPECT_EQ(v.token, token);
    EXPECT_EQ(v.amount.to_dec(), "123456");
    EXPECT_EQ(v.from, client());
    EXPECT_EQ(v.to, owner());
    EXPECT_EQ(v.to_json()["token"], token.to_checksum_hex());

    // The same token, to a stranger / with amount 0.
    const auto elsewhere =
        send(devnet(), client(), token, 0,
             "0x" + hex_word(address_word(stranger())) + hex_word(core::Uint256(5).to_word()));
    EXPECT_EQ(check(proof(elsewhere)).reason, verify::PaymentReason::wrong_parties);
    const auto zero =
        send(devnet(), client(), token, 0,
             "0x" + hex_word(address_word(owner())) + hex_word(core::Uint256(0).to_word()));
    EXPECT_EQ(check(proof(zero)).reason, verify::PaymentReason::no_value);
}

// Pure: an ERC-721 Transfer (same topic0, the token id as a fourth topic) is not a payment.
TEST(verify_payment, erc721_transfer_is_not_an_erc20_payment) {
    core::Address client{}, owner{}, nft{};
    client.bytes.fill(1);
    owner.bytes.fill(2);
    nft.bytes.fill(3);
    chain::Receipt receipt;
    receipt.status = true;
    receipt.block_num = 9;
    chain::Log log;
    log.address = nft;
    log.topics = {verify::erc20_transfer_topic(), address_word(client), address_word(owner),
                  core::Uint256(1).to_word()};
    receipt.logs.push_back(log);
    verify::PaymentTxn txn{{}, client, nft, core::Uint256(0)};
    verify::PaymentClaim claim{1, {}, client, owner};
    const auto v = verify::evaluate_payment(claim, txn, receipt, {client, {owner}});
    EXPECT_FALSE(v.verified);
    EXPECT_EQ(v.reason, verify::PaymentReason::wrong_parties);
}
