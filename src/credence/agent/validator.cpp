#include <credence/agent/validator.hpp>

#include <algorithm>
#include <unordered_set>
#include <utility>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <credence/agent/runtime.hpp>
#include <credence/chain/bindings/validation_registry.hpp>
#include <credence/chain/contract_call.hpp>
#include <credence/chain/revert.hpp>
#include <credence/chain/txn_sender.hpp>
#include <credence/core/data_uri.hpp>
#include <credence/core/keccak.hpp>

namespace credence::agent {

std::string_view to_string(ValidationRefusal r) noexcept {
    switch (r) {
        case ValidationRefusal::fetch_failed:
            return "fetch_failed";
        case ValidationRefusal::hash_mismatch:
            return "hash_mismatch";
        case ValidationRefusal::handler_failed:
            return "handler_failed";
        case ValidationRefusal::publish_failed:
            return "publish_failed";
        case ValidationRefusal::rejected:
            return "rejected";
    }
    return "unknown";
}

namespace {

namespace vr = chain::bindings::validation_registry;
using detail::fail;

/// The response's score: the handler output's "score" member when it is a JSON object with an
/// integer 0..100 there (ERC-8004 §Validation Response: "a value between 0 and 100").
std::optional<uint8_t> score_of(core::ByteView output) {
    const std::string_view text(reinterpret_cast<const char*>(output.data()),  // NOLINT
                                output.size());
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object() || !j.contains("score")) return std::nullopt;
    const auto& s = j["score"];
    if (!s.is_number_integer()) return std::nullopt;
    const auto v = s.get<int64_t>();
    if (v < 0 || v > 100) return std::nullopt;
    return static_cast<uint8_t>(v);
}

}  // namespace

struct Validator::Impl {
    chain::RpcClient rpc;
    core::SecretKey key;
    core::Address address;
    std::unique_ptr<Handler> handler;
    std::unique_ptr<verify::Fetcher> fetcher;
    Publisher* publisher = nullptr;
    ValidatorConfig config;
    uint64_t chain_id = 0;
    detail::Cursor cursor;
    std::optional<chain::TxnSender> sender;
    std::unordered_set<std::string> done;

    Impl(chain::RpcClient r, core::SecretKey k, std::unique_ptr<Handler> h,
         std::unique_ptr<verify::Fetcher> f, Publisher* p, ValidatorConfig c)
        : rpc(std::move(r)),
          key(std::move(k)),
          address(core::address_of(key)),
          handler(std::move(h)),
          fetcher(std::move(f)),
          publisher(p),
          config(std::move(c)),
          cursor(config.state_dir / "validator_cursor.json", config.start_block) {}

    AgentResult<vr::GetValidationStatusResult> status(const core::Hash32& request_hash) {
        chain::ContractCaller caller(rpc);
        auto r = vr::call::get_validation_status(caller, config.registry, request_hash);
        if (!r) return detail::call_failed(r.error());
        return std::move(*r);
    }

    /// validationResponse; a revert comes back as its description in `revert`.
    AgentResult<void> respond(const core::Hash32& request_hash, uint8_t score,
                              const std::string& uri, const core::Hash32& response_hash,
                              const std::string& tag, std::optional<std::string>& revert) {
        auto data = vr::validation_response(request_hash, score, uri, response_hash, tag);
        if (!data) return fail(AgentError::abi, data.error().detail);
        if (!sender) {
            chain::SenderOptions o;
            o.chain_id = chain_id;
            o.confirmations = config.txn_confirmations;
            o.receipt_timeout = config.receipt_timeout;
            sender.emplace(rpc, key, o);
        }
        chain::TxnRequest req;
        req.to = config.registry;
        req.data = std::move(*data);
        auto receipt = sender->send(req);
        if (receipt) return {};
        if (receipt.error().code == chain::SendError::reverted) {
            revert = chain::describe_credence_revert(receipt.error().revert_data);
            return {};
        }
        sender.reset();
        return fail(AgentError::rpc,
                    fmt::format("validationResponse: {}: {}",
                                chain::to_string(receipt.error().code), receipt.error().detail));
    }

    AgentResult<ValidationReport> process(const vr::ValidationRequestEvent& e) {
        ValidationReport rep;
        rep.request_hash = e.request_hash;
        rep.agent_id = e.agent_id;
        rep.request_uri = e.request_uri;
        auto st = status(e.request_hash);
        if (!st) return std::unexpected(st.error());
        // Done when the final tag is on-chain with a response file (a restart answers nothing
        // twice); a soft response alone leaves the hard one to send.
        if (st->response_hash != core::Hash32{} && st->tag == config.tag) {
            rep.answered = true;
            rep.already_answered = true;
            rep.score = static_cast<uint8_t>(st->response);
            rep.response_hash = st->response_hash;
            return rep;
        }
        const bool soft_done =
            config.soft_tag && st->response_hash != core::Hash32{} && st->tag == *config.soft_tag;

        auto refuse = [&](ValidationRefusal why, std::string detail) {
            rep.refusal = why;
            rep.detail = std::move(detail);
            return rep;
        };
        auto fetched = fetcher->fetch(e.request_uri, config.fetch_policy);
        if (!fetched)
            return refuse(ValidationRefusal::fetch_failed,
                          fmt::format("{}: {}", verify::to_string(fetched.error().code),
                                      fetched.error().detail));
        // ERC-8004 §Validation Request: requestHash commits to the request's content.
        const core::Hash32 content_hash = core::keccak256(fetched->body);
        if (content_hash != e.request_hash)
            return refuse(ValidationRefusal::hash_mismatch,
                          fmt::format("keccak256(content) = {}, requestHash = {}",
                                      core::to_hex(content_hash), core::to_hex(e.request_hash)));

        HandlerInput in;
        in.kind = JobKind::validation;
        in.chain_id = chain_id;
        in.contract = config.registry;
        in.agent = address;
        in.input_hash = content_hash;
        in.input = fetched->body;
        in.request_hash = e.request_hash;
        in.request_uri = e.request_uri;
        auto out = handler->handle(in);
        if (!out)
            return refuse(ValidationRefusal::handler_failed,
                          fmt::format("{}: {}", to_string(out.error().code), out.error().detail));
        if (out->decline) return refuse(ValidationRefusal::handler_failed, "the handler declined");
        rep.score = score_of(out->output).value_or(config.default_score);
        rep.response_hash = core::keccak256(out->output);
        if (publisher != nullptr) {
            auto uri = publisher->publish(e.request_hash, out->output);
            if (!uri) return refuse(ValidationRefusal::publish_failed, uri.error());
            rep.response_uri = *uri;
        } else {
            auto uri = core::encode_base64_data_uri("application/json", out->output);
            if (!uri)
                return refuse(ValidationRefusal::publish_failed,
                              std::string(core::to_string(uri.error().code)));
            rep.response_uri = *uri;
        }
        // ERC-8004: "validationResponse() can be called multiple times ... soft finality and
        // hard finality using tag".
        std::vector<std::string> tags;
        if (config.soft_tag && !soft_done) tags.push_back(*config.soft_tag);
        tags.push_back(config.tag);
        for (const auto& tag : tags) {
            std::optional<std::string> revert;
            if (auto r = respond(e.request_hash, rep.score, rep.response_uri, rep.response_hash,
                                 tag, revert);
                !r)
                return std::unexpected(r.error());
            if (revert) return refuse(ValidationRefusal::rejected, *revert);
            rep.tags_sent.push_back(tag);
        }
        rep.answered = true;
        return rep;
    }

    /// ValidationRequest(validator = this address): the indexed validator is the second topic.
    [[nodiscard]] std::vector<chain::TopicFilter> request_topics() const {
        core::Hash32 who{};
        std::copy(address.bytes.begin(), address.bytes.end(), who.begin() + 12);
        return {std::vector<core::Hash32>{vr::kValidationRequestTopic},
                std::vector<core::Hash32>{who}};
    }

    AgentResult<std::vector<ValidationReport>> step() {
        const auto topics = request_topics();
        auto batch = detail::read_logs(rpc, cursor, config.registry, topics, 0,
                                       config.max_log_range, config.reorg_depth);
        if (!batch) return std::unexpected(batch.error());
        if (batch->reorged) done.clear();
        std::vector<ValidationReport> reports;
        for (const auto& log : batch->logs) {
            auto e = vr::decode_validation_request_event(log.topics, log.data);
            if (!e || e->validator_address != address) continue;
            if (done.contains(core::to_hex(e->request_hash))) continue;
            auto r = process(*e);
            if (!r) return std::unexpected(r.error());  // the cursor stays: retried next step
            done.insert(core::to_hex(e->request_hash));
            reports.push_back(std::move(*r));
        }
        if (!batch->empty_range) {
            if (auto s = cursor.save(batch->to_block, batch->to_hash); !s)
                return std::unexpected(s.error());
        }
        return reports;
    }
};

Validator::Validator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Validator::~Validator() = default;

AgentResult<std::unique_ptr<Validator>> Validator::create(chain::RpcClient rpc, core::SecretKey key,
                                                          std::unique_ptr<Handler> handler,
                                                          std::unique_ptr<verify::Fetcher> fetcher,
                                                          Publisher* publisher,
                                                          ValidatorConfig config) {
    if (!handler) return fail(AgentError::config, "no handler");
    if (config.state_dir.empty()) return fail(AgentError::config, "no state directory");
    std::error_code ec;
    std::filesystem::create_directories(config.state_dir, ec);
    if (ec)
        return fail(AgentError::state,
                    fmt::format("{}: {}", config.state_dir.string(), ec.message()));
    if (!fetcher) fetcher = verify::make_curl_fetcher({});
    auto impl = std::make_unique<Impl>(std::move(rpc), std::move(key), std::move(handler),
                                       std::move(fetcher), publisher, std::move(config));
    auto id = impl->rpc.chain_id();
    if (!id) return fail(AgentError::rpc, fmt::format("eth_chainId: {}", id.error().to_string()));
    impl->chain_id = *id;
    if (auto r = impl->cursor.load(); !r) return std::unexpected(r.error());
    return std::unique_ptr<Validator>(new Validator(std::move(impl)));
}

const core::Address& Validator::address() const noexcept { return impl_->address; }

AgentResult<std::vector<ValidationReport>> Validator::step() { return impl_->step(); }

void Validator::run(const std::stop_token& stop,
                    const std::function<void(const ValidationReport&)>& on_report,
                    const std::function<void(const AgentFailure&)>& on_error) {
    const PollTiming timing{impl_->config.poll_interval, impl_->config.max_backoff};
    PollSleep sleep = impl_->config.sleep;
    std::unique_ptr<chain::LogWakeup> wakeup;
    if (const std::optional<chain::SubscribeConfig>& subscribe = impl_->config.subscribe;
        !sleep && subscribe) {
        wakeup = std::make_unique<chain::LogWakeup>(
            *subscribe,
            chain::SubscriptionFilter::logs({impl_->config.registry}, impl_->request_topics()),
            fmt::format("ValidationRequest logs of {} for {}",
                        impl_->config.registry.to_checksum_hex(),
                        impl_->address.to_checksum_hex()));
        sleep = [&wakeup](const std::stop_token& st, std::chrono::milliseconds pause) {
            return wakeup->sleep(st, pause);
        };
    }
    run_report_loop<ValidationReport>(
        stop, timing, sleep, [this] { return step(); }, on_report, on_error);
}

}  // namespace credence::agent
