// Verifying the off-chain files the ERC-8004 Reputation and Validation registries point to:
// feedback files (feedbackURI / feedbackHash), response files (responseURI / responseHash), and
// validation request and response files (requestURI / requestHash, responseURI / responseHash)
// (docs/architecture.md §verify/).
//
// Integrity, as ERC-8004 words it:
//   - §Giving Feedback: "Where provided, feedbackHash is the KECCAK-256 hash of the content
//     referenced by feedbackURI ... For IPFS (or other content-addressed URIs), feedbackHash is
//     OPTIONAL and can be omitted (e.g., set to bytes32(0))". §Appending Responses says the same of
//     responseHash, and §Validation Response of the validator's responseHash ("in case the resource
//     is not on IPFS"). So a non-zero hash is always checked (even for ipfs://), and a zero hash is
//     accepted for ipfs:// because the fetcher checks the bytes against the CID
//     (verify/net/fetch.hpp). HashRule::optional_for_content_addressed.
//   - §Validation Request: requestHash "is a commitment to this data (keccak256 of the request
//     payload) and identifies the request"; it is mandatory and has no IPFS exemption, so it is
//     always compared. HashRule::required.
//   - A zero hash on an https:// URI leaves the content unverifiable (the host can change it at
//     will): status `unverified`, reason hash_missing. A data: URI's bytes are part of the on-chain
//     URI itself, so they cannot change: a zero hash there is Integrity::inline_data, verified.
// Feedback files are then validated (core/feedback_file.hpp validate_feedback_file, ERC-8004
// §Off-Chain Feedback File Structure) and their MUST fields compared with the NewFeedback event
// (check_feedback_file: agentRegistry, agentId, clientAddress, value, valueDecimals); a
// proofOfPayment is checked on its chain when we have an RPC for it
// (verifiers/payment_verifier.hpp). ERC-8004 defines no structure for response or validation files,
// so those get the hash check only.
//
// Status: `failed` when any error was found (the report lists every one, `reason` is the first);
// `unverified` when nothing is wrong but integrity could not be established; `absent` when the
// chain points to no file; else `verified`. A payment that could not be checked (chain_unavailable,
// rpc_failure) is a warning; a payment proven false is an error.
//
// The *_bytes functions are pure; the others fetch (Fetcher, feedback_policy()) and read the chain.
// Nothing throws. Thread-safety: pure functions; the I/O ones use the given Fetcher (thread-safe)
// and RpcClient (not thread-safe).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/chain/rpc_client.hpp>
#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/error.hpp>
#include <credence/core/feedback_file.hpp>
#include <credence/core/registration_file.hpp>
#include <credence/verify/net/fetch.hpp>
#include <credence/verify/verifiers/payment_verifier.hpp>

namespace credence::verify {

enum class FileStatus { verified, unverified, failed, absent };
[[nodiscard]] std::string_view to_string(FileStatus s) noexcept;

enum class FileReason {
    fetch_failed,    ///< the fetcher failed (FileVerification::fetch_error says how)
    hash_mismatch,   ///< keccak256(bytes) != the on-chain hash
    cid_mismatch,    ///< ipfs://: the gateway's bytes do not hash to the CID
    hash_missing,    ///< zero hash on a URI that is not content-addressed (warning)
    not_json,        ///< a feedback file that is not JSON
    invalid_file,    ///< a feedback file that breaks ERC-8004 §Off-Chain Feedback File Structure
    field_mismatch,  ///< a MUST field differs from the on-chain event
    revoked,         ///< the feedback was revoked on-chain (warning)
    payment_bad_proof,
    payment_chain_unavailable,  ///< warning: no RPC for the payment's chain
    payment_rpc_failure,        ///< warning: the node failed
    payment_not_found,
    payment_failed,
    payment_wrong_parties,
    payment_no_value,
    payment_claim_mismatch,
};
[[nodiscard]] std::string_view to_string(FileReason r) noexcept;
[[nodiscard]] FileReason to_file_reason(PaymentReason r) noexcept;

/// How the bytes were tied to the chain.
enum class Integrity { none, keccak256, cid, keccak256_and_cid, inline_data };
[[nodiscard]] std::string_view to_string(Integrity i) noexcept;

enum class HashRule {
    optional_for_content_addressed,  ///< feedbackHash, responseHash: zero allowed for ipfs://
    required,                        ///< validation requestHash: always keccak256 of the payload
};

struct FileIssue {
    FileReason reason;
    core::IssueSeverity severity = core::IssueSeverity::error;
    std::string path;  ///< JSON Pointer into the file for file issues, else ""
    std::string message;
};

/// The outcome for one URI + hash pair.
struct FileVerification {
    FileStatus status = FileStatus::absent;
    std::optional<FileReason> reason;  ///< first error, or the warning that made it unverified
    std::string uri;
    core::Hash32 onchain_hash{};
    std::optional<core::Hash32> computed_hash;  ///< keccak256 of the bytes, when fetched
    Integrity integrity = Integrity::none;
    std::optional<FetchError> fetch_error;
    std::vector<FileIssue> issues;
    [[nodiscard]] nlohmann::json to_json() const;
};

/// Pure: the integrity verdict for `bytes` served for `uri` (an ipfs:// URI's bytes were already
/// checked against the CID by the fetcher).
[[nodiscard]] FileVerification verify_file_bytes(std::string_view uri,
                                                 const core::Hash32& onchain_hash,
                                                 core::ByteView bytes, HashRule rule);
/// Fetches `uri` with feedback_policy() and checks it. An empty URI is `absent`.
[[nodiscard]] FileVerification verify_file(Fetcher& fetcher, std::string_view uri,
                                           const core::Hash32& onchain_hash, HashRule rule);

// ---- feedback ---------------------------------------------------------------------------------

/// A response appended to a feedback (ERC-8004 §Appending Responses, ResponseAppended event).
struct OnchainResponse {
    core::Address responder;
    std::string response_uri;
    core::Hash32 response_hash{};
    uint64_t block_num = 0;
};

/// What the chain says about one feedback: the NewFeedback event (the URI and hash are only
/// emitted, ERC-8004 §Giving Feedback), readFeedback's revoked flag, and who may be paid.
struct OnchainFeedbackRecord {
    core::OnchainFeedback facts;  // agentRegistry, agentId, clientAddress, value + decimals
    uint64_t feedback_index = 0;
    std::string feedback_uri;
    core::Hash32 feedback_hash{};
    bool revoked = false;
    uint64_t block_num = 0;
    core::Hash32 txn_hash{};
    /// The agent's wallet (when set) and owner: the accepted payees of a proofOfPayment.
    std::vector<core::Address> payees;
    std::vector<OnchainResponse> responses;
};

struct FeedbackVerification {
    FileStatus status = FileStatus::absent;
    std::optional<FileReason> reason;
    FileVerification content;                ///< fetch + hash; its issues are also in `issues`
    std::optional<core::FeedbackFile> file;  ///< when it parsed as a JSON object
    /// The file itself when it parsed as a JSON object, for readers of members the report does
    /// not keep (text, tags: the agent0 subgraph's FeedbackFile, docs/graphql.md).
    std::optional<nlohmann::json> document;
    std::vector<core::FeedbackMismatch> mismatches;
    std::optional<PaymentVerification> payment;  ///< when the file has a proofOfPayment
    std::vector<FileIssue> issues;               ///< every finding, errors and warnings
    std::vector<FileVerification> responses;     ///< one per OnchainFeedbackRecord::responses
    /// A strong signal for the reputation engine: the file proves a real payment to the agent.
    [[nodiscard]] bool payment_verified() const noexcept { return payment && payment->verified; }
    [[nodiscard]] nlohmann::json to_json() const;
};

/// Pure: checks the file's bytes (hash, structure, MUST fields). The payment is not checked
/// (`payment` stays empty; file->proof_of_payment says whether there is one).
[[nodiscard]] FeedbackVerification verify_feedback_bytes(core::ByteView bytes,
                                                         const OnchainFeedbackRecord& record);

struct FeedbackVerifyOptions {
    /// RPC for a payment's chain; null or returning nullptr: payments are not checked.
    RpcForChain rpc_for_chain;
    bool check_responses = true;
};

/// Fetches the feedback file and checks it, its proofOfPayment and its responses' files.
[[nodiscard]] FeedbackVerification verify_feedback(Fetcher& fetcher,
                                                   const OnchainFeedbackRecord& record,
                                                   const FeedbackVerifyOptions& options = {});

enum class ReadError {
    rpc_failure,  ///< the node failed
    not_found,    ///< no such feedback / validation request
    bad_answer,   ///< an event or a call result that does not decode
};
[[nodiscard]] std::string_view to_string(ReadError e) noexcept;

/// Reads feedback (agent_id, client, feedback_index) from the ReputationRegistry at `registry`:
/// the NewFeedback event through eth_getLogs (topics agentId and clientAddress; feedbackIndex is
/// not indexed), the identity registry it is bound to, readFeedback's revoked flag, the agent's
/// owner and wallet, and the ResponseAppended events.
[[nodiscard]] core::Result<OnchainFeedbackRecord, ReadError> read_onchain_feedback(
    chain::RpcClient& rpc, const core::Address& registry, const core::Uint256& agent_id,
    const core::Address& client, uint64_t feedback_index);

// ---- validation -------------------------------------------------------------------------------

struct OnchainValidationResponse {
    uint8_t response = 0;
    std::string response_uri;
    core::Hash32 response_hash{};
    std::string tag;
    uint64_t block_num = 0;
};

/// ERC-8004 §Validation Registry: the ValidationRequest event and every ValidationResponse event
/// for one requestHash (validationResponse may be called many times, §Validation Response).
struct OnchainValidationRecord {
    core::Hash32 request_hash{};
    core::Address validator;
    core::Uint256 agent_id;
    std::string request_uri;
    std::vector<OnchainValidationResponse> responses;
};

struct ValidationVerification {
    FileStatus status = FileStatus::absent;  ///< the worst of the request and the responses
    std::optional<FileReason> reason;
    FileVerification request;
    std::vector<FileVerification> responses;
    [[nodiscard]] nlohmann::json to_json(const OnchainValidationRecord& record) const;
};

[[nodiscard]] ValidationVerification verify_validation(Fetcher& fetcher,
                                                       const OnchainValidationRecord& record);

[[nodiscard]] core::Result<OnchainValidationRecord, ReadError> read_onchain_validation(
    chain::RpcClient& rpc, const core::Address& registry, const core::Hash32& request_hash);

}  // namespace credence::verify
