// One consistent copy of what the agent0 subgraph would hold for one chain, built from the index
// (snapshot_loader.hpp) and read by SnapshotSource (snapshot_source.hpp). Each entity is a vector
// of compact records; ids, decoded values and references are derived on demand, so a million
// feedback rows cost about 250 bytes each (docs/graphql.md §Memory).
//
// The meaning of each field is the subgraph mappings' (github.com/agent0lab/subgraph, src/*.ts);
// docs/graphql.md lists each one and every place where Credence chooses.
//
// Invariants: rows refer to each other by index into these vectors (kNone: no row); the *_by_*
// lists hold row indexes in chain order. A Snapshot is immutable once built.
// Thread-safety: const access from several threads is safe, except the lazily sorted orders,
// which SnapshotSource guards with its own mutex.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>

namespace credence::subgraph {

inline constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

struct AgentRecord {
    std::string agent_id;  // decimal
    core::Address owner{};
    std::optional<core::Address> wallet;
    std::vector<core::Address> operators;  // ERC-721 Approval's approved, first seen first
    std::optional<std::string> agent_uri;
    int64_t created_at = 0;
    int64_t updated_at = 0;
    int64_t last_activity = 0;
    int64_t total_feedback = 0;  // not revoked
    uint32_t registration_file = kNone;
};

struct RegistrationFileRecord {
    std::string id;
    std::string cid;
    uint32_t agent = kNone;
    std::optional<std::string> name;
    std::optional<std::string> description;
    std::optional<std::string> image;
    std::optional<bool> active;
    std::optional<bool> x402_support;
    std::vector<std::string> supported_trusts;
    std::optional<std::string> endpoints_raw_json;
    std::optional<std::string> mcp_endpoint;
    std::optional<std::string> mcp_version;
    std::optional<std::string> a2a_endpoint;
    std::optional<std::string> a2a_version;
    std::optional<std::string> web_endpoint;
    std::optional<std::string> oasf_endpoint;
    std::optional<std::string> oasf_version;
    std::vector<std::string> oasf_skills;
    std::vector<std::string> oasf_domains;
    std::optional<std::string> email_endpoint;
    std::optional<std::string> ens;
    std::optional<std::string> did;
    std::vector<std::string> mcp_tools;
    std::vector<std::string> mcp_prompts;
    std::vector<std::string> mcp_resources;
    std::vector<std::string> a2a_skills;
    int64_t created_at = 0;
};

struct FeedbackRecord {
    uint32_t agent = kNone;
    core::Address client{};
    uint64_t feedback_index = 0;
    std::string value;  // the decimal value (BigDecimal text)
    std::string tag1;
    std::string tag2;
    std::string endpoint;
    std::string feedback_uri;
    core::Hash32 feedback_hash{};
    bool revoked = false;
    int64_t created_at = 0;
    std::optional<int64_t> revoked_at;
    uint32_t file = kNone;
};

struct FeedbackFileRecord {
    std::string id;
    std::string cid;
    uint32_t feedback = kNone;
    std::optional<std::string> agent_registry;
    std::optional<std::string> agent_id;  // decimal
    std::optional<std::string> client_address;
    std::optional<std::string> created_at_iso;
    std::optional<std::string> value_raw;  // decimal
    std::optional<int64_t> value_decimals;
    std::optional<std::string> text;
    std::optional<std::string> mcp_tool;
    std::optional<std::string> mcp_prompt;
    std::optional<std::string> mcp_resource;
    std::vector<std::string> a2a_skills;
    std::optional<std::string> a2a_context_id;
    std::optional<std::string> a2a_task_id;
    std::vector<std::string> oasf_skills;
    std::vector<std::string> oasf_domains;
    std::optional<std::string> proof_from;
    std::optional<std::string> proof_to;
    std::optional<std::string> proof_chain_id;
    std::optional<std::string> proof_txn_hash;
    std::optional<std::string> tag1;
    std::optional<std::string> tag2;
    int64_t created_at = 0;
};

struct ResponseRecord {
    uint32_t feedback = kNone;
    core::Hash32 txn_hash{};
    uint64_t log_index = 0;
    core::Address responder{};
    std::string response_uri;
    core::Hash32 response_hash{};
    int64_t created_at = 0;
};

struct ValidationRecord {
    core::Hash32 request_hash{};
    uint32_t agent = kNone;
    core::Address validator{};
    std::string request_uri;
    int64_t response = 0;  // 0 while pending
    std::string response_uri;
    core::Hash32 response_hash{};
    std::string tag;
    bool completed = false;
    int64_t created_at = 0;
    int64_t updated_at = 0;
};

struct MetadataRecord {
    uint32_t agent = kNone;
    std::string key;
    core::Bytes value;
    int64_t updated_at = 0;
};

struct ProtocolRecord {
    std::string name;
    core::Address identity_registry{};
    core::Address reputation_registry{};
    core::Address validation_registry{};
    int64_t created_at = 0;
    int64_t updated_at = 0;
};

struct Snapshot {
    uint64_t chain_id = 0;
    std::string chain_prefix;  // "<chainId>:", the start of every agent id
    uint64_t block_num = 0;    // the index's cursor when the snapshot was read
    core::Hash32 block_hash{};
    std::optional<int64_t> block_timestamp;

    std::vector<AgentRecord> agents;  // agent id order
    std::vector<RegistrationFileRecord> registration_files;
    std::vector<FeedbackRecord> feedback;  // chain order
    std::vector<FeedbackFileRecord> feedback_files;
    std::vector<ResponseRecord> responses;  // chain order
    std::vector<ValidationRecord> validations;
    std::vector<MetadataRecord> metadata;
    std::vector<ProtocolRecord> protocols;  // none before the first agent

    // Lookups and back references.
    std::unordered_map<std::string, uint32_t> agent_by_id;  // decimal agent id
    std::unordered_map<std::string, uint32_t> registration_file_by_id;
    std::unordered_map<std::string, uint32_t> feedback_file_by_id;
    std::map<core::Hash32, uint32_t> validation_by_hash;
    std::vector<std::vector<uint32_t>> feedback_by_agent;
    std::vector<std::vector<uint32_t>> validations_by_agent;
    std::vector<std::vector<uint32_t>> metadata_by_agent;
    std::vector<std::vector<uint32_t>> responses_by_feedback;
};

}  // namespace credence::subgraph
