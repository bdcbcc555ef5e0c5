#include <credence/verify/verifiers/feedback_verifier.hpp>

#include <algorithm>
#include <array>
#include <utility>

#include <fmt/core.h>

#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/reputation_registry.hpp>
#include <credence/chain/bindings/validation_registry.hpp>
#include <credence/chain/contract_call.hpp>
#include <credence/core/caip.hpp>
#include <credence/core/keccak.hpp>
#include <credence/verify/net/url.hpp>

namespace credence::verify {
namespace {

namespace rep = chain::bindings::reputation_registry;
namespace idr = chain::bindings::identity_registry;
namespace val = chain::bindings::validation_registry;

bool is_zero(const core::Hash32& h) {
    return std::ranges::all_of(h, [](uint8_t b) { return b == 0; });
}

void add(std::vector<FileIssue>& issues, FileReason reason, core::IssueSeverity severity,
         std::string message, std::string path = {}) {
    issues.push_back({reason, severity, std::move(path), std::move(message)});
}

// The status and headline reason of a finished report: the first error, else the first warning
// that leaves integrity unestablished.
template <typename Report>
void settle(Report& r, Integrity integrity) {
    for (const auto& i : r.issues) {
        if (i.severity == core::IssueSeverity::error) {
            r.status = FileStatus::failed;
            r.reason = i.reason;
            return;
        }
    }
    if (integrity == Integrity::none) {
        r.status = FileStatus::unverified;
        r.reason = FileReason::hash_missing;
        return;
    }
    r.status = FileStatus::verified;
    r.reason.reset();
}

std::string_view field_path(core::FeedbackField f) {
    switch (f) {
        case core::FeedbackField::agent_registry:
            return "/agentRegistry";
        case core::FeedbackField::agent_id:
            return "/agentId";
        case core::FeedbackField::client_address:
            return "/clientAddress";
        case core::FeedbackField::value:
            return "/value";
        case core::FeedbackField::value_decimals:
            return "/valueDecimals";
    }
    return "";
}

nlohmann::json issues_json(const std::vector<FileIssue>& issues) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& i : issues) {
        nlohmann::json j = {{"reason", std::string(to_string(i.reason))},
                            {"severity", std::string(core::to_string(i.severity))},
                            {"message", i.message}};
        if (!i.path.empty()) j["path"] = i.path;
        out.push_back(std::move(j));
    }
    return out;
}

// Topic form of an indexed address (left-padded to 32 bytes).
core::Hash32 address_topic(const core::Address& a) {
    core::Hash32 t{};
    std::ranges::copy(a.bytes, t.begin() + 12);
    return t;
}

core::Result<std::vector<chain::Log>, ReadError> logs_of(chain::RpcClient& rpc,
                                                         const core::Address& registry,
                                                         std::vector<chain::TopicFilter> topics) {
    chain::LogFilter filter;
    filter.from_block = chain::BlockId::earliest();
    filter.to_block = chain::BlockId::latest();
    filter.addresses = {registry};
    filter.topics = std::move(topics);
    auto logs = rpc.get_logs(filter);
    if (!logs)
        return core::fail(ReadError::rpc_failure, "eth_getLogs: " + logs.error().to_string());
    std::erase_if(*logs, [](const chain::Log& l) { return l.removed; });
    return std::move(*logs);
}

/// A call helper's failure as a ReadError. A revert is the contract's answer (an unknown agent),
/// not a node failure.
core::Error<ReadError> read_error(const chain::CallError& e) {
    switch (e.kind) {
        case chain::CallErrorKind::reverted:
            return {ReadError::not_found, e.message()};
        case chain::CallErrorKind::rpc_failure:
            return {ReadError::rpc_failure, e.message()};
        case chain::CallErrorKind::bad_answer:
        case chain::CallErrorKind::encoding:
            break;
    }
    return {ReadError::bad_answer, e.message()};
}

}  // namespace

std::string_view to_string(FileStatus s) noexcept {
    switch (s) {
        case FileStatus::verified:
            return "verified";
        case FileStatus::unverified:
            return "unverified";
        case FileStatus::failed:
            return "failed";
        case FileStatus::absent:
            return "absent";
    }
    return "unknown";
}

std::string_view to_string(FileReason r) noexcept {
    switch (r) {
        case FileReason::fetch_failed:
            return "fetch_failed";
        case FileReason::hash_mismatch:
            return "hash_mismatch";
        case FileReason::cid_mismatch:
            return "cid_mismatch";
        case FileReason::hash_missing:
            return "hash_missing";
        case FileReason::not_json:
            return "not_json";
        case FileReason::invalid_file:
            return "invalid_file";
        case FileReason::field_mismatch:
            return "field_mismatch";
        case FileReason::revoked:
            return "revoked";
        case FileReason::payment_bad_proof:
            return "payment_bad_proof";
        case FileReason::payment_chain_unavailable:
            return "payment_chain_unavailable";
        case FileReason::payment_rpc_failure:
            return "payment_rpc_failure";
        case FileReason::payment_not_found:
            return "payment_not_found";
        case FileReason::payment_failed:
            return "payment_failed";
        case FileReason::payment_wrong_parties:
            return "payment_wrong_parties";
        case FileReason::payment_no_value:
            return "payment_no_value";
        case FileReason::payment_claim_mismatch:
            return "payment_claim_mismatch";
    }
    return "unknown";
}

FileReason to_file_reason(PaymentReason r) noexcept {
    switch (r) {
        case PaymentReason::bad_proof:
            return FileReason::payment_bad_proof;
        case PaymentReason::chain_unavailable:
            return FileReason::payment_chain_unavailable;
        case PaymentReason::rpc_failure:
            return FileReason::payment_rpc_failure;
        case PaymentReason::not_found:
            return FileReason::payment_not_found;
        case PaymentReason::failed:
            return FileReason::payment_failed;
        case PaymentReason::wrong_parties:
            return FileReason::payment_wrong_parties;
        case PaymentReason::no_value:
            return FileReason::payment_no_value;
        case PaymentReason::claim_mismatch:
            return FileReason::payment_claim_mismatch;
    }
    return FileReason::payment_bad_proof;
}

std::string_view to_string(Integrity i) noexcept {
    switch (i) {
        case Integrity::none:
            return "none";
        case Integrity::keccak256:
            return "keccak256";
        case Integrity::cid:
            return "cid";
        case Integrity::keccak256_and_cid:
            return "keccak256+cid";
        case Integrity::inline_data:
            return "inline_data";
    }
    return "unknown";
}

std::string_view to_string(ReadError e) noexcept {
    switch (e) {
        case ReadError::rpc_failure:
            return "rpc_failure";
        case ReadError::not_found:
            return "not_found";
        case ReadError::bad_answer:
            return "bad_answer";
    }
    return "unknown";
}

nlohmann::json FileVerification::to_json() const {
    nlohmann::json j = {{"status", std::string(to_string(status))}, {"uri", uri}};
    if (reason) j["reason"] = std::string(to_string(*reason));
    j["onchainHash"] = core::to_hex(onchain_hash);
    if (computed_hash) j["computedHash"] = core::to_hex(*computed_hash);
    j["integrity"] = std::string(to_string(integrity));
    if (fetch_error) j["fetchError"] = std::string(to_string(*fetch_error));
    j["issues"] = issues_json(issues);
    return j;
}

FileVerification verify_file_bytes(std::string_view uri, const core::Hash32& onchain_hash,
                                   core::ByteView bytes, HashRule rule) {
    FileVerification v;
    v.uri = std::string(uri);
    v.onchain_hash = onchain_hash;
    v.computed_hash = core::keccak256(bytes);
    const bool ipfs = has_scheme(uri, "ipfs");
    // ERC-8004 §Giving Feedback / §Appending Responses / §Validation Response: a hash "where
    // provided" is keccak256 of the content; only content-addressed URIs may omit it (zero).
    // §Validation Request: requestHash is always the keccak256 commitment.
    const bool omitted = is_zero(onchain_hash) && rule == HashRule::optional_for_content_addressed;
    if (!omitted) {
        if (*v.computed_hash != onchain_hash) {
            add(v.issues, FileReason::hash_mismatch, core::IssueSeverity::error,
                fmt::format("keccak256 of the {} bytes served is {}, the chain says {}",
                            bytes.size(), core::to_hex(*v.computed_hash),
                            core::to_hex(onchain_hash)));
        } else {
            v.integrity = ipfs ? Integrity::keccak256_and_cid : Integrity::keccak256;
        }
    } else if (ipfs) {
        v.integrity = Integrity::cid;  // the fetcher checked the bytes against the CID
    } else if (has_scheme(uri, "data")) {
        v.integrity = Integrity::inline_data;  // the bytes are in the on-chain URI itself
    } else {
        add(v.issues, FileReason::hash_missing, core::IssueSeverity::warning,
            "no hash on-chain and the URI is not content-addressed: the content cannot be checked");
    }
    settle(v, v.integrity);
    return v;
}

namespace {

// Fetches; on failure returns the finished report, on success the bytes.
std::expected<core::Bytes, FileVerification> fetch_file(Fetcher& fetcher, std::string_view uri,
                                                        const core::Hash32& onchain_hash) {
    auto r = fetcher.fetch(uri, feedback_policy());
    if (r) return std::move(r->body);
    FileVerification v;
    v.uri = std::string(uri);
    v.onchain_hash = onchain_hash;
    v.fetch_error = r.error().code;
    // The fetcher reports content that does not hash to its CID as content_mismatch.
    const FileReason reason = r.error().code == FetchError::content_mismatch
                                  ? FileReason::cid_mismatch
                                  : FileReason::fetch_failed;
    add(v.issues, reason, core::IssueSeverity::error,
        fmt::format("{}: {}", to_string(r.error().code), r.error().detail));
    settle(v, Integrity::none);
    return std::unexpected(std::move(v));
}

FileVerification absent_file(const core::Hash32& onchain_hash) {
    FileVerification v;
    v.onchain_hash = onchain_hash;
    v.status = FileStatus::absent;
    return v;
}

}  // namespace

FileVerification verify_file(Fetcher& fetcher, std::string_view uri,
                             const core::Hash32& onchain_hash, HashRule rule) {
    if (uri.empty()) return absent_file(onchain_hash);
    auto bytes = fetch_file(fetcher, uri, onchain_hash);
    if (!bytes) return std::move(bytes.error());
    return verify_file_bytes(uri, onchain_hash, *bytes, rule);
}

// ---- feedback ---------------------------------------------------------------------------------

nlohmann::json FeedbackVerification::to_json() const {
    nlohmann::json j = {{"status", std::string(to_string(status))}};
    if (reason) j["reason"] = std::string(to_string(*reason));
    j["content"] = content.to_json();
    j["content"].erase("issues");  // listed once, below
    if (!mismatches.empty()) {
        nlohmann::json m = nlohmann::json::array();
        for (const auto& x : mismatches)
            m.push_back({{"field", std::string(core::to_string(x.field))},
                         {"onchain", x.expected},
                         {"file", x.found}});
        j["mismatches"] = std::move(m);
    }
    if (payment) j["payment"] = payment->to_json();
    j["paymentVerified"] = payment_verified();
    if (document) j["document"] = *document;
    j["issues"] = issues_json(issues);
    if (!responses.empty()) {
        nlohmann::json r = nlohmann::json::array();
        for (const auto& x : responses) r.push_back(x.to_json());
        j["responses"] = std::move(r);
    }
    return j;
}

FeedbackVerification verify_feedback_bytes(core::ByteView bytes,
                                           const OnchainFeedbackRecord& record) {
    FeedbackVerification v;
    v.content = verify_file_bytes(record.feedback_uri, record.feedback_hash, bytes,
                                  HashRule::optional_for_content_addressed);
    v.issues = v.content.issues;
    if (record.revoked)
        add(v.issues, FileReason::revoked, core::IssueSeverity::warning,
            "the feedback was revoked on-chain (ERC-8004 §Revoking Feedback)");
    // ERC-8004 §Off-Chain Feedback File Structure: the file is JSON with six MUST fields.
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()),  // NOLINT
                                bytes.size());
    auto report = core::validate_feedback_file(text);
    if (!report) {
        add(v.issues, FileReason::not_json, core::IssueSeverity::error,
            fmt::format("not JSON: {} {}", core::to_string(report.error().code),
                        report.error().detail));
    } else {
        std::vector<std::string> bad_paths;
        for (const auto& i : report->issues) {
            if (i.severity == core::IssueSeverity::error) bad_paths.push_back(i.path);
            add(v.issues, FileReason::invalid_file, i.severity,
                fmt::format("{}: {}", core::to_string(i.reason), i.message), i.path);
        }
        const bool is_object = std::ranges::none_of(report->issues, [](const auto& i) {
            return i.reason == core::FeedbackReason::not_an_object;
        });
        if (is_object) {
            v.file = report->file;
            // validate_feedback_file bounded the nesting: this parse cannot recurse deeply.
            auto document = nlohmann::json::parse(text, nullptr, false);
            if (document.is_object()) v.document = std::move(document);
            // A field that failed validation is already an error; comparing its default-filled
            // value would only add a spurious mismatch.
            for (auto& m : core::check_feedback_file(report->file, record.facts)) {
                const std::string_view path = field_path(m.field);
                if (std::ranges::find(bad_paths, path) != bad_paths.end()) continue;
                add(v.issues, FileReason::field_mismatch, core::IssueSeverity::error,
                    fmt::format("{}: the chain says {}, the file says {}", core::to_string(m.field),
                                m.expected, m.found),
                    std::string(path));
                v.mismatches.push_back(std::move(m));
            }
        }
    }
    settle(v, v.content.integrity);
    return v;
}

FeedbackVerification verify_feedback(Fetcher& fetcher, const OnchainFeedbackRecord& record,
                                     const FeedbackVerifyOptions& options) {
    FeedbackVerification v;
    if (record.feedback_uri.empty()) {
        // ERC-8004 §Giving Feedback: feedbackURI is OPTIONAL; there is nothing to check.
        v.content = absent_file(record.feedback_hash);
        v.status = FileStatus::absent;
    } else if (auto bytes = fetch_file(fetcher, record.feedback_uri, record.feedback_hash);
               !bytes) {
        v.content = std::move(bytes.error());
        v.issues = v.content.issues;
        settle(v, Integrity::none);
    } else {
        v = verify_feedback_bytes(*bytes, record);
        if (v.file && v.file->proof_of_payment) {
            PaymentParties parties{core::Address{record.facts.client_address}, record.payees};
            v.payment = verify_payment(*v.file->proof_of_payment, parties, options.rpc_for_chain);
            if (!v.payment->verified && v.payment->reason) {
                const auto severity = is_failure(*v.payment->reason) ? core::IssueSeverity::error
                                                                     : core::IssueSeverity::warning;
                add(v.issues, to_file_reason(*v.payment->reason), severity, v.payment->detail,
                    "/proofOfPayment");
            }
            settle(v, v.content.integrity);
        }
    }
    if (options.check_responses) {
        for (const auto& r : record.responses)
            v.responses.push_back(verify_file(fetcher, r.response_uri, r.response_hash,
                                              HashRule::optional_for_content_addressed));
    }
    return v;
}

core::Result<OnchainFeedbackRecord, ReadError> read_onchain_feedback(chain::RpcClient& rpc,
                                                                     const core::Address& registry,
                                                                     const core::Uint256& agent_id,
                                                                     const core::Address& client,
                                                                     uint64_t feedback_index) {
    OnchainFeedbackRecord rec;
    rec.feedback_index = feedback_index;
    // ERC-8004 §Giving Feedback: endpoint, feedbackURI and feedbackHash are emitted, not stored.
    auto logs = logs_of(rpc, registry,
                        {std::vector{rep::kNewFeedbackTopic}, std::vector{agent_id.to_word()},
                         std::vector{address_topic(client)}});
    if (!logs) return std::unexpected(logs.error());
    bool found = false;
    for (const auto& log : *logs) {
        auto ev = rep::decode_new_feedback_event(log.topics, log.data);
        if (!ev) return core::fail(ReadError::bad_answer, "NewFeedback: " + ev.error().detail);
        if (ev->feedback_index != feedback_index) continue;
        if (ev->value_decimals > 255)
            return core::fail(ReadError::bad_answer, "NewFeedback: valueDecimals out of range");
        rec.facts.agent_id = ev->agent_id;
        rec.facts.client_address = ev->client_address.bytes;
        rec.facts.value = {ev->value, static_cast<uint8_t>(ev->value_decimals)};
        rec.feedback_uri = ev->feedback_uri;
        rec.feedback_hash = ev->feedback_hash;
        rec.block_num = log.block_num;
        rec.txn_hash = log.txn_hash;
        found = true;
    }
    if (!found)
        return core::fail(ReadError::not_found,
                          fmt::format("no NewFeedback for agent {} client {} index {}",
                                      agent_id.to_dec(), client.to_checksum_hex(), feedback_index));

    auto chain_id = rpc.chain_id();
    if (!chain_id)
        return core::fail(ReadError::rpc_failure, "eth_chainId: " + chain_id.error().to_string());
    chain::ContractCaller caller(rpc);
    auto identity = rep::call::get_identity_registry(caller, registry);
    if (!identity) return std::unexpected(read_error(identity.error()));
    rec.facts.agent_registry = {*chain_id, identity->bytes};

    auto stored = rep::call::read_feedback(caller, registry, agent_id, client, feedback_index);
    if (!stored) return std::unexpected(read_error(stored.error()));
    rec.revoked = stored->is_revoked;

    // The payees of a proofOfPayment: the agent's wallet (ERC-8004 §agentWallet) and its owner.
    // A revert (the agent is gone) leaves the payee out.
    auto owner = idr::call::owner_of(caller, *identity, agent_id);
    if (owner) rec.payees.push_back(*owner);
    auto wallet = idr::call::get_agent_wallet(caller, *identity, agent_id);
    if (wallet && !wallet->is_zero() && std::ranges::find(rec.payees, *wallet) == rec.payees.end())
        rec.payees.push_back(*wallet);
    for (const auto* r : {&owner, &wallet})
        if (!*r && r->error().kind != chain::CallErrorKind::reverted)
            return std::unexpected(read_error(r->error()));

    // ERC-8004 §Appending Responses: ResponseAppended(agentId, clientAddress indexed, ...,
    // responder indexed); feedbackIndex is not indexed.
    auto responses = logs_of(rpc, registry,
                             {std::vector{rep::kResponseAppendedTopic},
                              std::vector{agent_id.to_word()}, std::vector{address_topic(client)}});
    if (!responses) return std::unexpected(responses.error());
    for (const auto& log : *responses) {
        auto ev = rep::decode_response_appended_event(log.topics, log.data);
        if (!ev) return core::fail(ReadError::bad_answer, "ResponseAppended: " + ev.error().detail);
        if (ev->feedback_index != feedback_index) continue;
        rec.responses.push_back(
            {ev->responder, ev->response_uri, ev->response_hash, log.block_num});
    }
    return rec;
}

// ---- validation -------------------------------------------------------------------------------

nlohmann::json ValidationVerification::to_json(const OnchainValidationRecord& record) const {
    nlohmann::json j = {{"status", std::string(to_string(status))}};
    if (reason) j["reason"] = std::string(to_string(*reason));
    j["requestHash"] = core::to_hex(record.request_hash);
    j["validator"] = record.validator.to_checksum_hex();
    j["agentId"] = record.agent_id.to_dec();
    j["request"] = request.to_json();
    nlohmann::json rs = nlohmann::json::array();
    for (size_t i = 0; i < responses.size(); ++i) {
        nlohmann::json r = responses[i].to_json();
        if (i < record.responses.size()) {
            r["response"] = record.responses[i].response;
            r["tag"] = record.responses[i].tag;
            r["blockNum"] = record.responses[i].block_num;
        }
        rs.push_back(std::move(r));
    }
    j["responses"] = std::move(rs);
    return j;
}

ValidationVerification verify_validation(Fetcher& fetcher, const OnchainValidationRecord& record) {
    ValidationVerification v;
    // ERC-8004 §Validation Request: requestHash = keccak256 of the request payload, always.
    v.request = verify_file(fetcher, record.request_uri, record.request_hash, HashRule::required);
    for (const auto& r : record.responses)
        v.responses.push_back(verify_file(fetcher, r.response_uri, r.response_hash,
                                          HashRule::optional_for_content_addressed));
    // The worst outcome wins: failed > unverified > verified > absent.
    const auto rank = [](FileStatus s) {
        switch (s) {
            case FileStatus::failed:
                return 3;
            case FileStatus::unverified:
                return 2;
            case FileStatus::verified:
                return 1;
            case FileStatus::absent:
                return 0;
        }
        return 0;
    };
    const FileVerification* worst = &v.request;
    for (const auto& r : v.responses)
        if (rank(r.status) > rank(worst->status)) worst = &r;
    v.status = worst->status;
    v.reason = worst->reason;
    return v;
}

core::Result<OnchainValidationRecord, ReadError> read_onchain_validation(
    chain::RpcClient& rpc, const core::Address& registry, const core::Hash32& request_hash) {
    OnchainValidationRecord rec;
    rec.request_hash = request_hash;
    // ValidationRequest(validatorAddress indexed, agentId indexed, requestURI, requestHash
    // indexed).
    auto requests = logs_of(rpc, registry,
                            {std::vector{val::kValidationRequestTopic}, std::nullopt, std::nullopt,
                             std::vector{request_hash}});
    if (!requests) return std::unexpected(requests.error());
    if (requests->empty())
        return core::fail(ReadError::not_found,
                          "no ValidationRequest for " + core::to_hex(request_hash));
    auto req =
        val::decode_validation_request_event(requests->front().topics, requests->front().data);
    if (!req) return core::fail(ReadError::bad_answer, "ValidationRequest: " + req.error().detail);
    rec.validator = req->validator_address;
    rec.agent_id = req->agent_id;
    rec.request_uri = req->request_uri;
    // ValidationResponse(validatorAddress indexed, agentId indexed, requestHash indexed, ...).
    auto responses = logs_of(rpc, registry,
                             {std::vector{val::kValidationResponseTopic}, std::nullopt,
                              std::nullopt, std::vector{request_hash}});
    if (!responses) return std::unexpected(responses.error());
    for (const auto& log : *responses) {
        auto ev = val::decode_validation_response_event(log.topics, log.data);
        if (!ev)
            return core::fail(ReadError::bad_answer, "ValidationResponse: " + ev.error().detail);
        rec.responses.push_back({static_cast<uint8_t>(std::min<uint64_t>(ev->response, 255)),
                                 ev->response_uri, ev->response_hash, ev->tag, log.block_num});
    }
    return rec;
}

}  // namespace credence::verify
