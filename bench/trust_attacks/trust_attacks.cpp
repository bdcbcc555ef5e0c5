// The trust attack suite (docs/trust.md, docs/benchmarks.md §Trust under attack): each scenario
// builds an honest world and an attack on a fresh devnet (anvil, every contract deployed) with
// real signed transactions, indexes it with the real indexer, verifies the payments and traces
// the fundings as the node does, then scores it. It prints, per scenario, the target's score
// against its honest-only score (the same index with the attackers' reviews and validations
// left out) in points on 0..100, and Kendall's tau of the honest agents' scores against their
// honest-only scores. Goals: |shift| <= 5 points and tau >= 0.9; a scenario that misses one says
// so.
//
//   trust_attacks [scenario...]     (default: all; --list names them)
//   NO_FUNDING=1 trust_attacks      the same, scored without the funding evidence
//
// The honest world: 12 agents of 6 owners, quality rising with the agent's number; 30 honest
// clients funded by an exchange (which also funds 30 customers who never rate), each rating three
// agents near their quality and paying the owner first for two of them (x402-style, cited as
// proofOfPayment in a data: feedback file).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <vector>

#include <fmt/core.h>

#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/reputation_registry.hpp>
#include <credence/chain/bindings/validation_registry.hpp>
#include <credence/chain/rpc_codec.hpp>
#include <credence/chain/txn_sender.hpp>
#include <credence/core/data_uri.hpp>
#include <credence/core/feedback_file.hpp>
#include <credence/core/keccak.hpp>
#include <credence/index/database.hpp>
#include <credence/index/indexer.hpp>
#include <credence/trust/score.hpp>
#include <credence/trust/score_index.hpp>
#include <credence/verify/net/fetch.hpp>
#include <credence/verify/store/funding_pass.hpp>
#include <credence/verify/store/index_checks.hpp>
#include <credence/verify/store/reverifier.hpp>

#include "support/devnet.hpp"
#include "support/scratch.hpp"

namespace {

namespace chain = credence::chain;
namespace core = credence::core;
namespace index = credence::index;
namespace trust = credence::trust;
namespace verify = credence::verify;
namespace idr = chain::bindings::identity_registry;
namespace rep = chain::bindings::reputation_registry;
namespace val = chain::bindings::validation_registry;
using credence::testing::Devnet;

constexpr size_t kOwners = 6;
constexpr size_t kAgents = 12;
constexpr size_t kClients = 30;
constexpr size_t kCustomers = 30;
const core::Uint256 kEther{1'000'000'000'000'000'000ULL};
const core::Uint256 kCent{10'000'000'000'000'000ULL};    // 0.01 ETH
const core::Uint256 kPayment{1'000'000'000'000'000ULL};  // 0.001 ETH

core::SecretKey key_of(std::string_view role, size_t i) {
    return core::SecretKey::from_bytes(
               core::keccak256(fmt::format("credence.trust-attacks/{}/{}", role, i)))
        .value();
}

[[noreturn]] void die(const std::string& what) {
    fmt::print(stderr, "trust_attacks: {}\n", what);
    std::exit(1);
}

/// Signs and sends from many keys, several transactions in flight per key, then waits for all.
class Sender {
public:
    explicit Sender(chain::RpcClient& rpc) : rpc_(rpc) {}
    void send(const core::SecretKey& key, const core::Address& to, const core::Uint256& value,
              core::Bytes data = {}) {
        chain::TxnRequest r;
        r.to = to;
        r.value = value;
        r.data = std::move(data);
        if (r.data.empty()) r.gas_limit = 21'000;
        chain::TxnSender& sender = sender_for(key);
        auto signed_txn = sender.prepare(r);
        if (!signed_txn) die("prepare: " + signed_txn.error().detail);
        auto hash = sender.submit(*signed_txn);
        if (!hash) die("submit: " + hash.error().detail);
        pending_.emplace_back(&sender, *hash);
    }
    void call(const core::SecretKey& key, const core::Address& to,
              core::Result<core::Bytes, core::AbiError> data) {
        if (!data) die("encoding a call failed");
        send(key, to, core::Uint256{}, std::move(*data));
    }
    std::vector<chain::Receipt> wait_all() {
        std::vector<chain::Receipt> out;
        for (auto& [sender, hash] : pending_) {
            auto r = sender->wait(hash);
            if (!r) die("wait: " + r.error().detail);
            if (!r->status) die("a transaction reverted: " + core::to_hex(hash));
            out.push_back(std::move(*r));
        }
        pending_.clear();
        return out;
    }

private:
    chain::TxnSender& sender_for(const core::SecretKey& key) {
        const core::Address a = core::address_of(key);
        for (auto& [address, sender] : senders_)
            if (address == a) return *sender;
        senders_.emplace_back(a, std::make_unique<chain::TxnSender>(rpc_, key));
        return *senders_.back().second;
    }
    chain::RpcClient& rpc_;
    std::vector<std::pair<core::Address, std::unique_ptr<chain::TxnSender>>> senders_;
    std::vector<std::pair<chain::TxnSender*, core::Hash32>> pending_;
};

/// One world on one devnet: the honest part, and what a scenario adds.
struct World {
    std::unique_ptr<Devnet> devnet;
    std::unique_ptr<chain::RpcClient> rpc;
    std::unique_ptr<Sender> out;
    core::Address identity, reputation, validation;
    std::optional<core::SecretKey> faucet;  // anvil's first development key
    std::vector<core::SecretKey> owners;
    std::vector<uint64_t> agent_ids;  ///< honest agents, by quality
    std::vector<core::Address> agent_owner;
    // What the attack added:
    std::set<core::Address> attackers;  ///< reviewers and validators left out of honest-only
    /// The reviews the honest-only world leaves out (default: every review by an attacker).
    std::function<bool(const trust::Review&)> excluded;
    std::set<uint64_t> attacker_agents;  ///< agents the attack registered (not ranked)
    uint64_t target = 0;
    std::string note;

    /// An agent registered by `owner`; its id.
    uint64_t register_agent(const core::SecretKey& owner, const std::string& uri) {
        out->call(owner, identity, idr::register_1(uri));
        const auto receipts = out->wait_all();
        for (const auto& log : receipts.front().logs) {
            if (log.address != identity || log.topics.empty() ||
                log.topics[0] != idr::kRegisteredTopic)
                continue;
            auto ev = idr::decode_registered_event(log.topics, log.data);
            if (ev) return ev->agent_id.limbs[0];
        }
        die("no Registered event");
    }
    /// Feedback `value` (0..100) on `agent` from `client`, citing `payment` when given.
    void rate(const core::SecretKey& client, uint64_t agent, uint64_t value,
              const std::optional<core::Hash32>& payment = std::nullopt,
              const core::Address* payee = nullptr) {
        core::FeedbackFile file;
        file.agent_registry = {devnet->chain_id(), identity.bytes};
        file.agent_id = core::Uint256{agent};
        file.client_chain_id = devnet->chain_id();
        const core::Address from = core::address_of(client);
        file.client_address = from.bytes;
        file.created_at = "2026-01-01T00:00:00Z";
        file.value = {core::Int256(core::Uint256{value}), 0};
        file.tag1 = "starred";
        if (payment && payee != nullptr) {
            file.proof_of_payment =
                core::ProofOfPayment{from.to_checksum_hex(), payee->to_checksum_hex(),
                                     std::to_string(devnet->chain_id()), core::to_hex(*payment)};
        }
        auto built = core::build_feedback_file(file);
        if (!built) die("feedback file: " + built.error().detail);
        auto uri = core::encode_base64_data_uri("application/json", core::as_bytes(built->bytes));
        if (!uri) die("data: URI");
        out->call(client, reputation,
                  rep::give_feedback(file.agent_id, file.value.value, 0, "starred", "", "", *uri,
                                     built->feedback_hash));
    }
    /// `client` pays `payee`; the payment's transaction hash.
    core::Hash32 pay(const core::SecretKey& client, const core::Address& payee) {
        out->send(client, payee, kPayment);
        return out->wait_all().front().txn_hash;
    }
    void mine(uint64_t blocks) {
        if (!rpc->request("anvil_mine", nlohmann::json::array({chain::to_quantity(blocks)})))
            die("anvil_mine");
    }
};

/// The honest world on a fresh devnet.
World make_world() {
    World w;
    auto devnet = Devnet::start();
    if (!devnet) die(devnet.error());
    w.devnet = std::move(*devnet);
    w.rpc = std::make_unique<chain::RpcClient>(w.devnet->rpc());
    w.out = std::make_unique<Sender>(*w.rpc);
    w.identity = w.devnet->address("IdentityRegistry");
    w.reputation = w.devnet->address("ReputationRegistry");
    w.validation = w.devnet->address("ValidationRegistry");
    w.faucet.emplace(w.devnet->secret_key(0));
    const core::SecretKey exchange = key_of("exchange", 0);
    for (size_t i = 0; i < kOwners; ++i) {
        w.owners.push_back(key_of("owner", i));
        w.out->send(*w.faucet, core::address_of(w.owners.back()), kEther);
    }
    w.out->send(*w.faucet, core::address_of(exchange), kEther * core::Uint256{kClients + 2});
    w.out->wait_all();
    for (size_t i = 0; i < std::max(kClients, kCustomers); ++i) {
        if (i < kClients) w.out->send(exchange, core::address_of(key_of("client", i)), kEther);
        if (i < kCustomers) w.out->send(exchange, core::address_of(key_of("customer", i)), kCent);
    }
    w.out->wait_all();
    for (size_t a = 0; a < kAgents; ++a) {
        const core::SecretKey& owner = w.owners[a % kOwners];
        w.agent_ids.push_back(
            w.register_agent(owner, fmt::format("https://agents.example/{}.json", a)));
        w.agent_owner.push_back(core::address_of(owner));
    }
    // Client j rates agents j, j+4 and j+8 (mod 12) near their quality, paying for two of them.
    for (size_t j = 0; j < kClients; ++j) {
        const core::SecretKey client = key_of("client", j);
        for (size_t k = 0; k < 3; ++k) {
            const size_t a = (j + 4 * k) % kAgents;
            const uint64_t quality = 20 + 6 * a;  // 20..86
            const uint64_t value = quality + (j * 7 + k * 3) % 11 - 5;
            if (k < 2) {
                const core::Hash32 paid = w.pay(client, w.agent_owner[a]);
                w.rate(client, w.agent_ids[a], value, paid, &w.agent_owner[a]);
            } else {
                w.rate(client, w.agent_ids[a], value);
            }
        }
    }
    w.out->wait_all();
    return w;
}

/// Indexes the world, verifies its payments, traces its fundings and loads the trust graph.
trust::TrustInputs observe(World& w, trust::TrustConfig& config) {
    const auto path = credence::testing::scratch_dir() /
                      fmt::format("trust-attacks-{}.sqlite", w.devnet->anvil().port());
    auto db = index::open_database(path.string());
    if (!db) die(db.error().to_string());
    index::IndexerOptions io;
    io.chain_id = w.devnet->chain_id();
    io.finality_depth = 0;
    io.sources = index::sources_from_deployment(w.devnet->deployment());
    index::Indexer indexer(io, w.devnet->rpc(), **db);
    if (auto r = indexer.start(); !r) die(r.error().message);
    if (auto r = indexer.run(std::stop_token{}, false, std::chrono::milliseconds(10),
                             [](const index::StepReport&) {});
        !r)
        die(r.error().message);
    auto fetcher = verify::make_curl_fetcher({});
    verify::FeedbackVerifyOptions fo;
    chain::RpcClient rpc = w.devnet->rpc();
    const uint64_t chain_id = w.devnet->chain_id();
    fo.rpc_for_chain = [&rpc, chain_id](uint64_t id) { return id == chain_id ? &rpc : nullptr; };
    const std::map<verify::SubjectKind, verify::BatchCheck> checks{
        {verify::SubjectKind::feedback, verify::make_feedback_check(*fetcher, rpc, fo)}};
    verify::ReverifyOptions ro;
    ro.now = 1;
    ro.batch_size = 256;
    if (auto r = verify::reverify_due(**db, chain_id, checks, ro); !r) die(r.error().to_string());
    auto head = rpc.block_number();
    if (!head) die("eth_blockNumber");
    for (;;) {
        verify::FundingPassOptions fp;
        fp.head = *head;
        fp.now = 1;
        fp.max_addresses = 4'096;
        auto traced = verify::trace_fundings(**db, rpc, chain_id, fp);
        if (!traced) die(traced.error().to_string());
        if (traced->traced == 0) break;
    }
    trust::TrustSources ts;
    ts.chain_id = chain_id;
    ts.identity_registry = w.identity;
    ts.reputation_registry = w.reputation;
    ts.validation_registry = w.validation;
    ts.head_block_num = *head;
    ts.now = static_cast<int64_t>(w.devnet->chain_time());
    ts.seconds_per_block = 1;
    auto inputs = trust::load_trust_inputs(**db, ts);
    if (!inputs) die(inputs.error().to_string());
    config.now = ts.now;
    return std::move(*inputs);
}

// Kendall's tau-b of two score lists (ties counted on either side).
double kendall_tau(const std::vector<double>& x, const std::vector<double>& y) {
    double concordant = 0, discordant = 0, ties_x = 0, ties_y = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        for (size_t j = i + 1; j < x.size(); ++j) {
            const double dx = x[i] - x[j];
            const double dy = y[i] - y[j];
            if (dx == 0 && dy == 0) continue;
            if (dx == 0) {
                ++ties_x;
            } else if (dy == 0) {
                ++ties_y;
            } else if ((dx > 0) == (dy > 0)) {
                ++concordant;
            } else {
                ++discordant;
            }
        }
    }
    const double denominator =
        std::sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y));
    return denominator > 0 ? (concordant - discordant) / denominator : 1.0;
}

struct Outcome {
    std::string name;
    double attacked = 0, honest = 0, tau = 1;
    double seconds = 0;
    std::string note;
};

Outcome measure(const std::string& name, World& w) {
    trust::TrustConfig config;
    trust::TrustInputs all = observe(w, config);
    // NO_FUNDING=1: the same worlds scored without the funding evidence, to show what it adds.
    if (const char* off = std::getenv("NO_FUNDING"); off != nullptr && std::string(off) == "1")
        all.fundings.clear();
    trust::TrustInputs honest = all;
    std::erase_if(honest.reviews, [&](const trust::Review& r) {
        return w.excluded ? w.excluded(r) : w.attackers.contains(r.client);
    });
    for (auto& agent : honest.agents) {
        std::vector<std::pair<core::Address, uint8_t>> kept;
        for (const auto& v : agent.validations)
            if (!w.attackers.contains(v.first)) kept.push_back(v);
        agent.validations = std::move(kept);
    }
    const trust::TrustResult a = trust::compute_trust(all, config);
    const trust::TrustResult h = trust::compute_trust(honest, config);
    const auto index_of = [&](uint64_t id) {
        core::Bytes key(32, 0);
        for (size_t i = 0; i < 8; ++i) key[31 - i] = static_cast<uint8_t>(id >> (8 * i));
        for (size_t i = 0; i < all.agents.size(); ++i)
            if (all.agents[i].agent_id == key) return i;
        die(fmt::format("agent {} not indexed", id));
    };
    Outcome o;
    o.name = name;
    o.attacked = a.agents[index_of(w.target)].score * 100;
    o.honest = h.agents[index_of(w.target)].score * 100;
    std::vector<double> ranked_a, ranked_h;
    for (const uint64_t id : w.agent_ids) {
        if (id == w.target || w.attacker_agents.contains(id)) continue;
        ranked_a.push_back(a.agents[index_of(id)].score);
        ranked_h.push_back(h.agents[index_of(id)].score);
    }
    o.tau = kendall_tau(ranked_a, ranked_h);
    o.note = w.note;
    return o;
}

// ---- the scenarios ----

/// A funder funded by the faucet (the attacker's wallet).
core::SecretKey attacker_wallet(World& w, std::string_view label, const core::Uint256& wei) {
    core::SecretKey k = key_of(label, 0);
    w.out->send(*w.faucet, core::address_of(k), wei);
    w.out->wait_all();
    return k;
}

void sybil_cluster(World& w, size_t size, uint64_t rating, uint64_t target) {
    w.target = target;
    const core::SecretKey op = attacker_wallet(w, "operator", kCent * core::Uint256{size + 10});
    std::vector<core::SecretKey> sybils;
    for (size_t i = 0; i < size; ++i) {
        sybils.push_back(key_of("sybil", i));
        w.out->send(op, core::address_of(sybils.back()), kCent);
        w.attackers.insert(core::address_of(sybils.back()));
    }
    w.out->wait_all();
    for (const auto& s : sybils) w.rate(s, target, rating);
    w.out->wait_all();
}

void circular_payments(World& w) {
    w.target = w.agent_ids[0];
    const core::SecretKey& owner = w.owners[0];
    for (size_t i = 0; i < 20; ++i) {
        const core::SecretKey s = key_of("circular", i);
        w.out->send(owner, core::address_of(s), kCent);
        w.attackers.insert(core::address_of(s));
    }
    w.out->wait_all();
    for (size_t i = 0; i < 20; ++i) {
        const core::SecretKey s = key_of("circular", i);
        const core::Hash32 paid = w.pay(s, w.agent_owner[0]);
        w.rate(s, w.target, 100, paid, &w.agent_owner[0]);
    }
    w.out->wait_all();
    w.note = "Sybils funded by the owner pay the owner";
}

void slow_drip(World& w) {
    w.target = w.agent_ids[0];
    const core::SecretKey root = attacker_wallet(w, "drip-root", kEther * core::Uint256{2});
    for (size_t f = 0; f < 10; ++f) {
        const core::SecretKey funder = key_of("drip-funder", f);
        w.out->send(root, core::address_of(funder), kCent * core::Uint256{12});
        w.out->wait_all();
        w.mine(50);
        std::vector<core::SecretKey> sybils;
        for (size_t s = 0; s < 10; ++s) {
            sybils.push_back(key_of("drip-sybil", f * 10 + s));
            w.out->send(funder, core::address_of(sybils.back()), kCent);
            w.attackers.insert(core::address_of(sybils.back()));
        }
        w.out->wait_all();
        w.mine(50);
        for (const auto& s : sybils) w.rate(s, w.target, 100);
        w.out->wait_all();
    }
    w.note = "100 Sybils via 10 funders from one root, over ~1,000 blocks";
}

void collusion_ring(World& w) {
    const core::SecretKey root = attacker_wallet(w, "ring-root", kEther * core::Uint256{2});
    std::vector<core::SecretKey> members;
    for (size_t i = 0; i < 5; ++i) {
        members.push_back(key_of("ring", i));
        w.out->send(root, core::address_of(members.back()), kCent * core::Uint256{20});
        w.attackers.insert(core::address_of(members.back()));
    }
    w.out->wait_all();
    std::vector<uint64_t> ring_agents;
    for (size_t i = 0; i < 5; ++i) {
        ring_agents.push_back(
            w.register_agent(members[i], fmt::format("https://ring.example/{}.json", i)));
        w.attacker_agents.insert(ring_agents.back());
    }
    for (size_t i = 0; i < 5; ++i)
        for (size_t j = 0; j < 5; ++j)
            if (i != j) w.rate(members[i], ring_agents[j], 100);
    w.out->wait_all();
    w.target = ring_agents[0];
    w.note = "5 owners rate each other's agents 100";
}

void whitewash(World& w) {
    // The worst agent's owner registers a fresh identity for the same service, and transfers the
    // old agent away: the new identity starts from nothing, the old keeps its reviews.
    const core::SecretKey& owner = w.owners[0];
    const uint64_t fresh = w.register_agent(owner, "https://agents.example/0-new.json");
    w.out->call(owner, w.identity,
                idr::transfer_from(core::address_of(owner), core::address_of(key_of("buyer", 0)),
                                   core::Uint256{w.agent_ids[0]}));
    w.out->wait_all();
    w.attacker_agents.insert(fresh);
    w.target = w.agent_ids[0];
    w.note = fmt::format(
        "re-registered as agent {} and transferred: the old agent keeps its "
        "reviews, the new one has none",
        fresh);
}

void paid_then_unpaid(World& w) {
    w.target = w.agent_ids[0];
    const core::SecretKey op = attacker_wallet(w, "operator", kEther);
    const core::SecretKey reviewer = key_of("one-payer", 0);
    w.out->send(op, core::address_of(reviewer), kCent * core::Uint256{10});
    w.out->wait_all();
    w.attackers.insert(core::address_of(reviewer));
    const core::Hash32 paid = w.pay(reviewer, w.agent_owner[0]);
    w.rate(reviewer, w.target, 100, paid, &w.agent_owner[0]);
    for (size_t i = 0; i < 20; ++i) w.rate(reviewer, w.target, 100);
    w.out->wait_all();
    // The paid review is a customer's voice; the honest-only world keeps it and drops the rest.
    w.excluded = [who = core::address_of(reviewer)](const trust::Review& r) {
        return r.client == who && !r.payment_verified;
    };
    w.note = "one paid review, then 20 unpaid ones (honest-only keeps the paid one)";
}

void owner_wallets(World& w) {
    w.target = w.agent_ids[0];
    for (size_t i = 0; i < 20; ++i) {
        const core::SecretKey s = key_of("owner-wallet", i);
        w.out->send(w.owners[0], core::address_of(s), kCent);
        w.attackers.insert(core::address_of(s));
    }
    w.out->wait_all();
    for (size_t i = 0; i < 20; ++i) w.rate(key_of("owner-wallet", i), w.target, 100);
    w.out->wait_all();
    w.note = "the owner rates its agent through 20 fresh wallets";
}

void friendly_validator(World& w) {
    w.target = w.agent_ids[0];
    const core::SecretKey validator = key_of("validator", 0);
    w.out->send(w.owners[0], core::address_of(validator), kCent * core::Uint256{10});
    w.out->wait_all();
    w.attackers.insert(core::address_of(validator));
    for (size_t i = 0; i < 10; ++i) {
        core::Hash32 request = core::keccak256(fmt::format("request/{}", i));
        w.out->call(w.owners[0], w.validation,
                    val::validation_request(core::address_of(validator), core::Uint256{w.target},
                                            "", request));
        w.out->wait_all();
        w.out->call(validator, w.validation,
                    val::validation_response(request, 100, "", core::Hash32{}, "approved"));
    }
    w.out->wait_all();
    w.note = "a validator funded by the owner approves 10 requests";
}

struct Scenario {
    std::string name;
    void (*build)(World&);
};

const std::vector<Scenario>& scenarios() {
    static const std::vector<Scenario> all{
        {"cluster-10", [](World& w) { sybil_cluster(w, 10, 100, w.agent_ids[0]); }},
        {"cluster-100", [](World& w) { sybil_cluster(w, 100, 100, w.agent_ids[0]); }},
        {"cluster-1000", [](World& w) { sybil_cluster(w, 1'000, 100, w.agent_ids[0]); }},
        {"circular-payments", circular_payments},
        {"slow-drip", slow_drip},
        {"collusion-ring", collusion_ring},
        {"review-bomb",
         [](World& w) {
             sybil_cluster(w, 100, 0, w.agent_ids[kAgents - 1]);
             w.note = "100 Sybils rate the best agent 0";
         }},
        {"whitewash", whitewash},
        {"paid-then-unpaid", paid_then_unpaid},
        {"owner-wallets", owner_wallets},
        {"friendly-validator", friendly_validator},
    };
    return all;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> wanted(argv + 1, argv + argc);
    if (wanted.size() == 1 && wanted[0] == "--list") {
        for (const auto& s : scenarios()) fmt::print("{}\n", s.name);
        return 0;
    }
    std::vector<Outcome> outcomes;
    for (const auto& s : scenarios()) {
        if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), s.name) == wanted.end())
            continue;
        const auto started = std::chrono::steady_clock::now();
        World w = make_world();
        s.build(w);
        Outcome o = measure(s.name, w);
        o.seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        fmt::print(
            "{:<20} target {:5.1f} vs honest-only {:5.1f}: shift {:+5.1f} pts, tau {:.3f}  "
            "{}{}({:.0f} s)\n",
            o.name, o.attacked, o.honest, o.attacked - o.honest, o.tau,
            std::abs(o.attacked - o.honest) <= 5 && o.tau >= 0.9 ? "" : "MISSED  ",
            o.note.empty() ? "" : o.note + " ", o.seconds);
        std::fflush(stdout);
        outcomes.push_back(std::move(o));
    }
    size_t missed = 0;
    for (const auto& o : outcomes)
        if (std::abs(o.attacked - o.honest) > 5 || o.tau < 0.9) ++missed;
    fmt::print("{} scenarios, {} within 5 points with tau >= 0.9, {} missed\n", outcomes.size(),
               outcomes.size() - missed, missed);
    return 0;
}
