// The indexer's tables (schema.hpp: encodings and invariants). One comment above each table:
// its key, then its columns. "entity" refers to store.hpp's rollback unit.
#include <credence/index/schema.hpp>

#include <array>

namespace credence::index {
namespace {

constexpr std::string_view kV1Sql = R"sql(
-- raw_logs: key (chain_id, block_num, log_index). Every stored log exactly as the node returned
-- it: block_hash, txn_hash, txn_index, address (emitting contract), kind (sources.hpp
-- ContractKind as its number), topic0..topic3 (NULL past the log's topic count), data, detail
-- (getAgentTask / getAgentReply return data for ERC-8301 NewAgentTask / AgentReplyAnchored, else
-- NULL) and entity (the id, within `address`, of the one entity the log projects into: agent_id,
-- request_hash, tool_id, run id, owner, ...). Projections are rebuilt from these rows.
CREATE TABLE raw_logs (
    chain_id BIGINT NOT NULL,
    block_num BIGINT NOT NULL,
    log_index BIGINT NOT NULL,
    block_hash {{BLOB}} NOT NULL,
    txn_hash {{BLOB}} NOT NULL,
    txn_index BIGINT NOT NULL,
    address {{BLOB}} NOT NULL,
    kind BIGINT NOT NULL,
    topic0 {{BLOB}},
    topic1 {{BLOB}},
    topic2 {{BLOB}},
    topic3 {{BLOB}},
    data {{BLOB}} NOT NULL,
    detail {{BLOB}},
    entity {{BLOB}} NOT NULL,
    PRIMARY KEY (chain_id, block_num, log_index)
);
-- Rollback replays one entity's logs in chain order.
CREATE INDEX raw_logs_by_entity ON raw_logs (chain_id, address, entity, block_num, log_index);

-- cursors: key (chain_id). block_num: every block <= block_num is indexed.
CREATE TABLE cursors (
    chain_id BIGINT NOT NULL,
    block_num BIGINT NOT NULL,
    PRIMARY KEY (chain_id)
);

-- block_hashes: key (chain_id, block_num). hash, parent_hash, timestamp of recent (unfinalized)
-- blocks, kept for reorg detection (docs/architecture.md §index/).
CREATE TABLE block_hashes (
    chain_id BIGINT NOT NULL,
    block_num BIGINT NOT NULL,
    hash {{BLOB}} NOT NULL,
    parent_hash {{BLOB}} NOT NULL,
    timestamp BIGINT NOT NULL,
    PRIMARY KEY (chain_id, block_num)
);

-- code_hashes: key (chain_id, address, block_num). code_hash: keccak256 of the contract's runtime
-- code first seen at block_num (ERC-8257 asks consumers to pin it; a new row = an upgrade).
CREATE TABLE code_hashes (
    chain_id BIGINT NOT NULL,
    address {{BLOB}} NOT NULL,
    block_num BIGINT NOT NULL,
    code_hash {{BLOB}} NOT NULL,
    PRIMARY KEY (chain_id, address, block_num)
);

-- agents: key (chain_id, registry, agent_id) (entity). Current state of an ERC-8004 identity:
-- owner, agent_uri (tokenURI), wallet (getAgentWallet; NULL when unset), approved (ERC-721
-- getApproved; NULL when none), registered_block_num / registered_txn_hash (Registered; NULL
-- when the registration is before the start block), updated_block_num / updated_log_index (the
-- last log that changed the row).
CREATE TABLE agents (
    chain_id BIGINT NOT NULL,
    registry {{BLOB}} NOT NULL,
    agent_id {{BLOB}} NOT NULL,
    owner {{BLOB}},
    agent_uri TEXT,
    wallet {{BLOB}},
    approved {{BLOB}},
    registered_block_num BIGINT,
    registered_txn_hash {{BLOB}},
    updated_block_num BIGINT NOT NULL,
    updated_log_index BIGINT NOT NULL,
    PRIMARY KEY (chain_id, registry, agent_id)
);
CREATE INDEX agents_by_owner ON agents (chain_id, owner);

-- agent_metadata: key (chain_id, registry, agent_id, metadata_key). metadata_value (getMetadata;
-- the reserved "agentWallet" key holds the 20-byte wallet or empty), block_num, log_index.
CREATE TABLE agent_metadata (
    chain_id BIGINT NOT NULL,
    registry {{BLOB}} NOT NULL,
    agent_id {{BLOB}} NOT NULL,
    metadata_key TEXT NOT NULL,
    metadata_value {{BLOB}} NOT NULL,
    block_num BIGINT NOT NULL,
    log_index BIGINT NOT NULL,
    PRIMARY KEY (chain_id, registry, agent_id, metadata_key)
);

-- agent_history: key (chain_id, registry, agent_id, block_num, log_index). One row per
-- Registered / URIUpdated / MetadataSet / Transfer: event (its name), txn_hash, actor (owner,
-- updatedBy or Transfer's from), target (Transfer's to), text_value (the URI or metadata key),
-- bytes_value (the metadata value).
CREATE TABLE agent_history (
    chain_id BIGINT NOT NULL,
    registry {{BLOB}} NOT NULL,
    agent_id {{BLOB}} NOT NULL,
    block_num BIGINT NOT NULL,
    log_index BIGINT NOT NULL,
    event TEXT NOT NULL,
    txn_hash {{BLOB}} NOT NULL,
    actor {{BLOB}},
    target {{BLOB}},
    text_value TEXT,
    bytes_value {{BLOB}},
    PRIMARY KEY (chain_id, registry, agent_id, block_num, log_index)
);

-- agent_transfers: key (chain_id, registry, agent_id, block_num, log_index). ERC-721 Transfer of
-- the identity registry: from_address (zero for a mint), to_address, txn_hash.
CREATE TABLE agent_transfers (
    chain_id BIGINT NOT NULL,
    registry {{BLOB}} NOT NULL,
    agent_id {{BLOB}} NOT NULL,
    block_num BIGINT NOT NULL,
    log_index BIGINT NOT NULL,
    from_address {{BLOB}} NOT NULL,
    to_address {{BLOB}} NOT NULL,
    txn_hash {{BLOB}} NOT NULL,
    PRIMARY KEY (chain_id, registry, agent_id, block_num, log_index)
);
CREATE INDEX agent_transfers_by_to ON agent_transfers (chain_id, to_address);

-- agent_approvals: key (chain_id, registry, agent_id, block_num, log_index). ERC-721 Approval:
-- owner, approved (zero clears), txn_hash.
CREATE TABLE agent_approvals (
    chain_id BIGINT NOT NULL,
    registry {{BLOB}} NOT NULL,
    agent_id {{BLOB}} NOT NULL,
    block_num BIGINT NOT NULL,
    log_index BIGINT NOT NULL,
    owner {{BLOB}} NOT NULL,
    approved {{BLOB}} NOT NULL,
    txn_hash {{BLOB}} NOT NULL,
    PRIMARY KEY (chain_id, registry, agent_id, block_num, log_index)
);

-- operator_approvals: key (chain_id, registry, owner, operator); entity (registry, owner).
-- ERC-721 ApprovalForAll, current state (isApprovedForAll): approved, block_num, log_index.
CREATE TABLE operator_approvals (
    chain_id BIGINT NOT NULL,
    registry {{BLOB}} NOT NULL,
    owner {{BLOB}} NOT NULL,
    operator {{BLOB}} NOT NULL,
    approved BIGINT NOT NULL,
    block_num BIGINT NOT NULL,
    log_index BIGINT NOT NULL,
    PRIMARY KEY (chain_id, registry, owner, operator)
);

-- feedback: key (chain_id, registry, agent_id, client, feedback_index); entity (registry,
-- agent_id). ERC-8004 NewFeedback: value (int128, exact decimal integer), value_decimals,
-- value_wad, normalized (schema.hpp), tag1, tag2, endpoint, feedback_uri, feedback_hash,
-- revoked (FeedbackRevoked), revoked_block_num, block_num, log_index, txn_hash. Read outside the
-- projector through feedback_table.hpp only (with feedback_responses).
CREATE TABLE feedback (
    chain_id BIGINT NOT NULL,
    registry {{BLOB}} NOT NULL,
    agent_id {{BLOB}} NOT NULL,
    client {{BLOB}} NOT NULL,
    feedback_index BIGINT NOT NULL,
    value TEXT NOT NULL,
    value_decimals BIGINT NOT NULL,
    value_wad TEXT NOT NULL,
    normalized {{REAL}} NOT NULL,
    tag1 TEXT NOT NULL,
    tag2 TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    feedback_uri TEXT NOT NULL,
    feedback_hash {{BLOB}} NOT NULL,
    revoked BIGINT NOT NULL,
    revoked_block_num BIGINT,
    block_num BIGINT NOT NULL,
    log_index BIGINT NOT NULL,
    txn_hash {{BLOB}} NOT NULL,
    PRIMARY KEY (chain_id, registry, agent_id, client, feedback_index)
);
CREATE INDEX feedback_by_client ON feedback (chain_id, client);

-- feedback_responses: key (chain_id, registry, agent_id, client, feedback_index, block_num,
-- log_index); entity (registry, agent_id). ERC-8004 ResponseAppended: responder, response_uri,
-- response_hash, txn_hash.
CREATE TABLE feedback_responses (
    chain_id BIGINT NOT NULL,
    registry {{BLOB}} NOT NULL,
    agent_id {{BLOB}} NOT NULL,
    client {{BLOB}} NOT NULL,
    feedback_index BIGINT NOT NULL,
    block_num BIGINT NOT NULL,
    log_index BIGINT NOT NULL,
    responder {{BLOB}} NOT NULL,
    response_uri TEXT NOT NULL,
    response_hash {{BLOB}} NOT NULL,
    txn_hash {{BLOB}} NOT NULL,
    PRIMARY KEY (chain_id, registry, agent_id, client, feedback_index, block_num, log_index)
);
CREATE INDEX feedback_responses_by_responder ON feedback_responses (chain_id, responder);

-- validation_requests: key (chain_id, registry, request_hash) (entity). ERC-8004
-- ValidationRequest: validator, agent_id, request_uri (NULL when only responses were seen),
-- block_num, log_index, txn_hash; the latest ValidationResponse: response (0..100, NULL before
-- any), response_uri, response_hash, response_tag, response_block_num, response_count.
CREATE TABLE validation_requests (
    chain_id BIGINT NOT NULL,
    registry {{BLOB}} NOT NULL,
    request_hash {{BLOB}} NOT NULL,
    validator {{BLOB}} NOT NULL,
    agent_id {{BLOB}} NOT NULL,
    request_uri TEXT,
    block_num BIGINT,
    log_index BIGINT,
    txn_hash {{BLOB}},
    response BIGINT,
    response_uri TEXT,
    response_hash {{BLOB}},
    response_tag TEXT,
    response_block_num BIGINT,
    response_count BIGINT NOT NULL,
    PRIMARY KEY (chain_id, registry, request_hash)
);
CREATE INDEX validation_requests_by_agent ON validation_requests (chain_id, agent_id);
CREATE INDEX validation_requests_by_validator ON validation_requests (chain_id, validator);

-- validation_responses: key (chain_id, registry, request_hash, block_num, log_index); entity
-- (registry, request_hash). Every ValidationResponse: validator, agent_id, response,
-- response_uri, response_hash, tag, txn_hash.
CREATE TABLE validation_responses (
    chain_id BIGINT NOT NULL,
    registry {{BLOB}} NOT NULL,
    request_hash {{BLOB}} NOT NULL,
    block_num BIGINT NOT NULL,
    log_index BIGINT NOT NULL,
    validator {{BLOB}} NOT NULL,
    agent_id {{BLOB}} NOT NULL,
    response BIGINT NOT NULL,
    response_uri TEXT NOT NULL,
    response_hash {{BLOB}} NOT NULL,
    tag TEXT NOT NULL,
    txn_hash {{BLOB}} NOT NULL,
    PRIMARY KEY (chain_id, registry, request_hash, block_num, log_index)
);

-- tools: key (chain_id, registry, tool_id) (entity). ERC-8257 tool, current state: creator,
-- access_predicate, metadata_uri, manifest_hash (NULL when registered before the start block),
-- deregistered, registered_block_num, updated_block_num, updated_log_index.
CREATE TABLE tools (
    chain_id BIGINT NOT NULL,
    registry {{BLOB}} NOT NULL,
    tool_id {{BLOB}} NOT NULL,
    creator {{BLOB}},
    access_predicate {{BLOB}},
    metadata_uri TEXT,
    manifest_hash {{BLOB}},
    deregistered BIGINT NOT NULL,
    registered_block_num BIGINT,
    updated_block_num BIGINT NOT NULL,
    updated_log_index BIGINT NOT NULL,
    PRIMARY KEY (chain_id, registry, tool_id)
);
CREATE INDEX tools_by_creator ON tools (chain_id, creator);

-- tool_history: key (chain_id, registry, tool_id, block_num, log_index). Every ToolRegistered /
-- ToolMetadataUpdated / AccessPredicateUpdated / ToolDeregistered: event, access_predicate,
-- metadata_uri, manifest_hash (those the event carries, else NULL), txn_hash.
CREATE TABLE tool_history (
    chain_id BIGINT NOT NULL,
    registry {{BLOB}} NOT NULL,
    tool_id {{BLOB}} NOT NULL,
    block_num BIGINT NOT NULL,
    log_index BIGINT NOT NULL,
    event TEXT NOT NULL,
    access_predicate {{BLOB}},
    metadata_uri TEXT,
    manifest_hash {{BLOB}},
    txn_hash {{BLOB}} NOT NULL,
    PRIMARY KEY (chain_id, registry, tool_id, block_num, log_index)
);

-- workflow_runs: key (chain_id, workflow, run_id) (entity). ERC-8301 run: status (RunStatus:
-- 0 Pending, 1 Success, 2 Failed), final_task_hash, completed_at (WorkflowCompleted's
-- timestamp), started_block_num (first task seen), completed_block_num.
CREATE TABLE workflow_runs (
    chain_id BIGINT NOT NULL,
    workflow {{BLOB}} NOT NULL,
    run_id {{BLOB}} NOT NULL,
    status BIGINT NOT NULL,
    final_task_hash {{BLOB}},
    completed_at BIGINT,
    started_block_num BIGINT,
    completed_block_num BIGINT,
    PRIMARY KEY (chain_id, workflow, run_id)
);

-- workflow_tasks: key (chain_id, workflow, run_id, block_num, log_index); entity (workflow,
-- run_id). NewAgentTask: task_hash, stage, and from getAgentTask at the log's block (NULL when
-- not fetched): task_seq, input_hash, input, timestamp, expires_at, prev_reply_hashes (the
-- 32-byte hashes concatenated), proven; txn_hash.
CREATE TABLE workflow_tasks (
    chain_id BIGINT NOT NULL,
    workflow {{BLOB}} NOT NULL,
    run_id {{BLOB}} NOT NULL,
    block_num BIGINT NOT NULL,
    log_index BIGINT NOT NULL,
    task_hash {{BLOB}} NOT NULL,
    stage BIGINT NOT NULL,
    task_seq BIGINT,
    input_hash {{BLOB}},
    input {{BLOB}},
    timestamp BIGINT,
    expires_at BIGINT,
    prev_reply_hashes {{BLOB}},
    proven BIGINT,
    txn_hash {{BLOB}} NOT NULL,
    PRIMARY KEY (chain_id, workflow, run_id, block_num, log_index)
);
CREATE INDEX workflow_tasks_by_hash ON workflow_tasks (chain_id, task_hash);

-- workflow_replies: key (chain_id, workflow, run_id, block_num, log_index); entity (workflow,
-- run_id). AgentReplyAnchored: reply_hash, replier, and from getAgentReply at the log's block
-- (NULL when not fetched): operation_id, output_hash, output, timestamp, prev_task_hashes
-- (concatenated), verifier, proven, verification_digest; txn_hash.
CREATE TABLE workflow_replies (
    chain_id BIGINT NOT NULL,
    workflow {{BLOB}} NOT NULL,
    run_id {{BLOB}} NOT NULL,
    block_num BIGINT NOT NULL,
    log_index BIGINT NOT NULL,
    reply_hash {{BLOB}} NOT NULL,
    replier {{BLOB}} NOT NULL,
    operation_id {{BLOB}},
    output_hash {{BLOB}},
    output {{BLOB}},
    timestamp BIGINT,
    prev_task_hashes {{BLOB}},
    verifier {{BLOB}},
    proven BIGINT,
    verification_digest {{BLOB}},
    txn_hash {{BLOB}} NOT NULL,
    PRIMARY KEY (chain_id, workflow, run_id, block_num, log_index)
);
CREATE INDEX workflow_replies_by_hash ON workflow_replies (chain_id, reply_hash);
CREATE INDEX workflow_replies_by_replier ON workflow_replies (chain_id, replier);

-- workflow_results: key (chain_id, workflow, run_id, block_num, log_index); entity (workflow,
-- run_id). WorkflowCompleted: status, final_task_hash, timestamp, txn_hash.
CREATE TABLE workflow_results (
    chain_id BIGINT NOT NULL,
    workflow {{BLOB}} NOT NULL,
    run_id {{BLOB}} NOT NULL,
    block_num BIGINT NOT NULL,
    log_index BIGINT NOT NULL,
    status BIGINT NOT NULL,
    final_task_hash {{BLOB}} NOT NULL,
    timestamp BIGINT NOT NULL,
    txn_hash {{BLOB}} NOT NULL,
    PRIMARY KEY (chain_id, workflow, run_id, block_num, log_index)
);

-- workflow_proofs: key (chain_id, verifier, task_id, block_num, log_index); entity (verifier,
-- task_id). ERC-8274 VerificationCompleted: agent_key (the bytes32 agentId), verification_digest,
-- valid, input_hash, output_hash, proof_profile, timestamp, instance_id, proof_chain_id (the
-- event's chainId bytes), txn_hash.
CREATE TABLE workflow_proofs (
    chain_id BIGINT NOT NULL,
    verifier {{BLOB}} NOT NULL,
    task_id {{BLOB}} NOT NULL,
    block_num BIGINT NOT NULL,
    log_index BIGINT NOT NULL,
    agent_key {{BLOB}} NOT NULL,
    verification_digest {{BLOB}} NOT NULL,
    valid BIGINT NOT NULL,
    input_hash {{BLOB}} NOT NULL,
    output_hash {{BLOB}} NOT NULL,
    proof_profile {{BLOB}} NOT NULL,
    timestamp BIGINT NOT NULL,
    instance_id {{BLOB}} NOT NULL,
    proof_chain_id {{BLOB}} NOT NULL,
    txn_hash {{BLOB}} NOT NULL,
    PRIMARY KEY (chain_id, verifier, task_id, block_num, log_index)
);
CREATE INDEX workflow_proofs_by_digest ON workflow_proofs (chain_id, verification_digest);

-- contract_events: key (chain_id, address, entity, block_num, log_index). Every other event a
-- contract kind declares (scenario events such as BidAccepted, CommitAccepted, ReplierEnrolled,
-- AgentVerifierUpdated; AttesterSet, OwnershipTransferred, EIP712DomainChanged): name, run_id
-- (the workflow run it belongs to, else NULL), args (the ABI-decoded arguments as a JSON object:
-- addresses and bytes as 0x-hex, integers as decimal strings, booleans as JSON), txn_hash.
CREATE TABLE contract_events (
    chain_id BIGINT NOT NULL,
    address {{BLOB}} NOT NULL,
    entity {{BLOB}} NOT NULL,
    block_num BIGINT NOT NULL,
    log_index BIGINT NOT NULL,
    name TEXT NOT NULL,
    run_id {{BLOB}},
    args TEXT NOT NULL,
    txn_hash {{BLOB}} NOT NULL,
    PRIMARY KEY (chain_id, address, entity, block_num, log_index)
);
)sql";

constexpr std::string_view kV2Sql = R"sql(
-- verifications: key (chain_id, subject_kind, contract, subject_id, client, feedback_index). The
-- latest verification of what the chain points to (docs/architecture.md §verify/), written by the
-- verifier through verification_table.hpp (the table's only reader and writer), not by the
-- projector: subject_kind ('agent', 'tool', 'feedback', 'validation', 'run'), contract (the
-- registry or workflow), subject_id (agent_id, tool_id, request_hash or run_id), client and
-- feedback_index (a feedback's other two key parts; the zero address and 0 for the other kinds),
-- status ('verified', 'unverified' or 'unreachable' when the check could not run), reason (the
-- verifier's reason code, '' when verified), detail (one line), checked_at (unix seconds),
-- covers_block_num (the subject's last on-chain change the check saw: a later change makes it
-- stale, a reorg past it deletes it), flags (signals the trust engine and the API read without
-- parsing reports: schema.hpp VerificationFlag), report (the verifier's JSON report). Not part of
-- the canonical dump: it depends on the clock and the network, not only on the chain.
CREATE TABLE verifications (
    chain_id BIGINT NOT NULL,
    subject_kind TEXT NOT NULL,
    contract {{BLOB}} NOT NULL,
    subject_id {{BLOB}} NOT NULL,
    client {{BLOB}} NOT NULL,
    feedback_index BIGINT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT NOT NULL,
    detail TEXT NOT NULL,
    checked_at BIGINT NOT NULL,
    covers_block_num BIGINT NOT NULL,
    flags BIGINT NOT NULL,
    report TEXT NOT NULL,
    PRIMARY KEY (chain_id, subject_kind, contract, subject_id, client, feedback_index)
);
CREATE INDEX verifications_by_time ON verifications (chain_id, subject_kind, checked_at);
)sql";

constexpr std::string_view kV3Sql = R"sql(
-- The node's read models (docs/api.md): what the API searches without parsing reports. Like
-- verifications they are derived off-chain (documents behind URLs, the trust engine), so they are
-- not part of the canonical dump; a reorg deletes the verification they came from, which makes
-- the subject due, and the next check rewrites them.
--
-- agent_profiles: key (chain_id, registry, agent_id). The registration file as the latest agent
-- check read it (verify/): name, description, image, active and x402_support (0/1, NULL when the
-- file does not say), services (the file's services[] as JSON), and for search, lowercase lists
-- wrapped in commas (",a2a,mcp,", so a filter is LIKE '%,a2a,%'): service_names, skills (OASF
-- skills and A2A card skills), domains (verified endpoint domains), trust_models; search_text
-- (lowercase name, description, skills and service names); status and checked_at of that check.
CREATE TABLE agent_profiles (
    chain_id BIGINT NOT NULL,
    registry {{BLOB}} NOT NULL,
    agent_id {{BLOB}} NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    image TEXT NOT NULL,
    active BIGINT,
    x402_support BIGINT,
    services TEXT NOT NULL,
    service_names TEXT NOT NULL,
    skills TEXT NOT NULL,
    domains TEXT NOT NULL,
    trust_models TEXT NOT NULL,
    search_text TEXT NOT NULL,
    status TEXT NOT NULL,
    checked_at BIGINT NOT NULL,
    PRIMARY KEY (chain_id, registry, agent_id)
);

-- tool_profiles: key (chain_id, registry, tool_id). The ERC-8257 manifest as the latest tool
-- check read it: name, description, version, and comma-wrapped lowercase lists tags,
-- pricing_protocols (x402, ...), assets (CAIP-19 or symbols), access_kinds (the predicate's and
-- the manifest's access requirement kinds); search_text; status, reason (the verdict's reason
-- code, '' when canonical) and checked_at.
CREATE TABLE tool_profiles (
    chain_id BIGINT NOT NULL,
    registry {{BLOB}} NOT NULL,
    tool_id {{BLOB}} NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    version TEXT NOT NULL,
    tags TEXT NOT NULL,
    pricing_protocols TEXT NOT NULL,
    assets TEXT NOT NULL,
    access_kinds TEXT NOT NULL,
    search_text TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT NOT NULL,
    checked_at BIGINT NOT NULL,
    PRIMARY KEY (chain_id, registry, tool_id)
);

-- agent_scores: key (chain_id, registry, agent_id). The trust engine's latest score (trust/):
-- score, low and high (95 % interval), evidence, effective_reviewers, reviews, tags (per-tag
-- scores as JSON), explanation (the weighted contributions and discounts as JSON), computed_at
-- (unix seconds) and covers_block_num (the last indexed block the computation saw).
CREATE TABLE agent_scores (
    chain_id BIGINT NOT NULL,
    registry {{BLOB}} NOT NULL,
    agent_id {{BLOB}} NOT NULL,
    score {{REAL}} NOT NULL,
    low {{REAL}} NOT NULL,
    high {{REAL}} NOT NULL,
    evidence {{REAL}} NOT NULL,
    effective_reviewers {{REAL}} NOT NULL,
    reviews BIGINT NOT NULL,
    tags TEXT NOT NULL,
    explanation TEXT NOT NULL,
    computed_at BIGINT NOT NULL,
    covers_block_num BIGINT NOT NULL,
    PRIMARY KEY (chain_id, registry, agent_id)
);
CREATE INDEX agent_scores_by_score ON agent_scores (chain_id, registry, score);
)sql";

constexpr std::string_view kV4Sql = R"sql(
-- API read paths (docs/benchmarks.md, api/rest_agents.cpp): one agent's feedback in chain order
-- (the feedback route pages by block_num, log_index; the history route reads normalized), with
-- revoked covered so that the detail's counts read the index only, not the rows.
CREATE INDEX feedback_by_agent_block ON feedback (chain_id, registry, agent_id, block_num,
                                                  log_index, revoked, normalized);
)sql";

constexpr std::string_view kV5Sql = R"sql(
-- Ingest throughput (docs/benchmarks.md): every secondary index costs a random-order B-tree
-- insert per event, and these six are read by no query (api/, trust/ and verify/ reach these
-- tables through their key's entity prefix; rollback deletes by that prefix too). Dropped:
-- feedback by client, responses by responder, validation requests by validator, replies by
-- replier, transfers by recipient, tools by creator.
DROP INDEX IF EXISTS feedback_by_client;
DROP INDEX IF EXISTS feedback_responses_by_responder;
DROP INDEX IF EXISTS validation_requests_by_validator;
DROP INDEX IF EXISTS workflow_replies_by_replier;
DROP INDEX IF EXISTS agent_transfers_by_to;
DROP INDEX IF EXISTS tools_by_creator;
)sql";

constexpr std::string_view kV6Sql = R"sql(
-- Exact-entry search (docs/benchmarks.md, search p99 < 50 ms): the entries of the profiles'
-- comma-wrapped lists, one row each, so that an API filter such as ?skill=code/review is an index
-- lookup instead of LIKE '%,code/review,%' over every profile (a sequential scan on PostgreSQL).
-- Written by verify/store/profile_store next to the profile row, in the same transaction (the subject's
-- old entries deleted, its new ones inserted); derived off-chain like the profiles, so not part of
-- the canonical dump. The free-text filter (q) stays a LIKE on search_text.
--
-- agent_profile_terms: key (chain_id, registry, agent_id, list, term). list is the API filter's
-- name ('service', 'skill', 'domain', 'trust_model'), term one entry of the agent_profiles column
-- it mirrors (service_names, skills, domains, trust_models): lowercase, without commas.
-- agent_profile_terms_by_term answers "which agents have this entry", in agent_id order.
CREATE TABLE agent_profile_terms (
    chain_id BIGINT NOT NULL,
    registry {{BLOB}} NOT NULL,
    agent_id {{BLOB}} NOT NULL,
    list TEXT NOT NULL,
    term TEXT NOT NULL,
    PRIMARY KEY (chain_id, registry, agent_id, list, term)
);
CREATE INDEX agent_profile_terms_by_term ON agent_profile_terms (chain_id, registry, list, term,
                                                                 agent_id);

-- tool_profile_terms: key (chain_id, registry, tool_id, list, term), the same for tool_profiles:
-- list 'tag', 'pricing', 'asset' or 'access' (tags, pricing_protocols, assets, access_kinds).
CREATE TABLE tool_profile_terms (
    chain_id BIGINT NOT NULL,
    registry {{BLOB}} NOT NULL,
    tool_id {{BLOB}} NOT NULL,
    list TEXT NOT NULL,
    term TEXT NOT NULL,
    PRIMARY KEY (chain_id, registry, tool_id, list, term)
);
CREATE INDEX tool_profile_terms_by_term ON tool_profile_terms (chain_id, registry, list, term,
                                                               tool_id);

-- Backfill from the profiles already stored: each ",a,b," list split at its commas (a recursive
-- CTE: rest is what is left to split, term the entry just cut off).
WITH RECURSIVE entries (chain_id, registry, agent_id, list, rest, term) AS (
    SELECT chain_id, registry, agent_id, 'service', substr(service_names, 2), '' FROM agent_profiles
    UNION ALL
    SELECT chain_id, registry, agent_id, 'skill', substr(skills, 2), '' FROM agent_profiles
    UNION ALL
    SELECT chain_id, registry, agent_id, 'domain', substr(domains, 2), '' FROM agent_profiles
    UNION ALL
    SELECT chain_id, registry, agent_id, 'trust_model', substr(trust_models, 2), ''
    FROM agent_profiles
    UNION ALL
    SELECT chain_id, registry, agent_id, list, substr(rest, {{INSTR}}(rest, ',') + 1),
           substr(rest, 1, {{INSTR}}(rest, ',') - 1)
    FROM entries WHERE {{INSTR}}(rest, ',') > 0
)
INSERT INTO agent_profile_terms (chain_id, registry, agent_id, list, term)
SELECT DISTINCT chain_id, registry, agent_id, list, term FROM entries WHERE term <> '';

WITH RECURSIVE entries (chain_id, registry, tool_id, list, rest, term) AS (
    SELECT chain_id, registry, tool_id, 'tag', substr(tags, 2), '' FROM tool_profiles
    UNION ALL
    SELECT chain_id, registry, tool_id, 'pricing', substr(pricing_protocols, 2), ''
    FROM tool_profiles
    UNION ALL
    SELECT chain_id, registry, tool_id, 'asset', substr(assets, 2), '' FROM tool_profiles
    UNION ALL
    SELECT chain_id, registry, tool_id, 'access', substr(access_kinds, 2), '' FROM tool_profiles
    UNION ALL
    SELECT chain_id, registry, tool_id, list, substr(rest, {{INSTR}}(rest, ',') + 1),
           substr(rest, 1, {{INSTR}}(rest, ',') - 1)
    FROM entries WHERE {{INSTR}}(rest, ',') > 0
)
INSERT INTO tool_profile_terms (chain_id, registry, tool_id, list, term)
SELECT DISTINCT chain_id, registry, tool_id, list, term FROM entries WHERE term <> '';
)sql";

constexpr std::string_view kV7Sql = R"sql(
-- Proofs per replyHash (ERC-8301 §onAgentProve: proven = true when onAgentProve has succeeded
-- for this replyHash). A VerificationCompleted names a statement, not a reply, and two replies can
-- make the same statement; the transaction that emitted it names the replies. workflow_proofs
-- gains, from that transaction's call data (raw_logs.detail: its `to` and input), when it is a
-- direct onAgentProve call: prove_workflow (the workflow called) and proved_reply_hashes (its
-- replyHashes argument, the 32-byte hashes concatenated); both NULL otherwise, and for rows
-- indexed before this migration (index again to fill them).
ALTER TABLE workflow_proofs ADD COLUMN prove_workflow {{BLOB}};
ALTER TABLE workflow_proofs ADD COLUMN proved_reply_hashes {{BLOB}};
)sql";

constexpr std::string_view kV8Sql = R"sql(
-- fundings: key (chain_id, address). The first funding of a reviewer or of a funder above one
-- (verify/verifiers/funding_tracer.hpp, docs/trust.md §Funding): source ('transfer', 'internal',
-- 'genesis', 'never', or 'error' when the trace failed), funder (20 bytes; NULL unless
-- 'transfer'), block_num of the funding (0 for 'genesis', 'never' and 'error'), txn_hash (NULL unless 'transfer'), amount (wei, decimal text),
-- checked_at (unix seconds), checked_head (the head the search ran to: a 'never' or an 'error'
-- is traced again once the chain has moved) and depth (0 for a reviewer, n + 1 for the funder named by a
-- depth-n record: funders are traced up to a bounded depth). Read from chain state, not from the indexed logs, so not part
-- of the canonical dump; a reorg past block_num deletes the row (forget_fundings_after).
CREATE TABLE fundings (
    chain_id BIGINT NOT NULL,
    address {{BLOB}} NOT NULL,
    source TEXT NOT NULL,
    funder {{BLOB}},
    block_num BIGINT NOT NULL,
    txn_hash {{BLOB}},
    amount TEXT NOT NULL,
    checked_at BIGINT NOT NULL,
    checked_head BIGINT NOT NULL,
    depth BIGINT NOT NULL,
    PRIMARY KEY (chain_id, address)
);
)sql";

constexpr std::string_view kV9Sql = R"sql(
-- block_times: key (chain_id, block_num). timestamp (unix seconds) of every block holding a
-- stored log, from the log's blockTimestamp or else the block's header (indexer.hpp). When
-- entities were created and changed (the agent0 subgraph's createdAt and updatedAt,
-- docs/graphql.md). A reorg past block_num deletes the row. Blocks indexed before this migration
-- have no row (index again to fill them). Written only when the time is known, so not part of
-- the canonical dump.
CREATE TABLE block_times (
    chain_id BIGINT NOT NULL,
    block_num BIGINT NOT NULL,
    timestamp BIGINT NOT NULL,
    PRIMARY KEY (chain_id, block_num)
);
)sql";

constexpr std::string_view kV10Sql = R"sql(
-- The earlier ERC-8004 revisions (docs/compatibility.md §Earlier ERC-8004 revisions; sources.hpp
-- ContractKind identity-score ... validation-draft) project into the current revision's tables.
-- revision says whose event made the row: 'current', 'score' (the intermediate revision, feedback
-- as a score 0..100) or 'draft' (the first draft); rows indexed before this migration are all of
-- the current revision. Fields of an earlier revision that the current model has no exact place
-- for are kept as they were:
--   agents.agent_domain, agents.agent_address: the first draft's AgentDomain and AgentAddress
--     (owner is AgentAddress, the one address that may write; agent_uri stays NULL: the draft has
--     no agentURI, its Agent Card is at https://{agent_domain}/.well-known/agent-card.json);
--   validation_requests.validator_agent_id, validation_responses.validator_agent_id: the first
--     draft's AgentValidatorID (validator is then the zero address: the draft names validators by
--     agent id, and an agent's address can change). request_hash is its DataHash.
-- The first draft's AuthFeedback (an authorization, not a rating) is a contract_events row.
ALTER TABLE agents ADD COLUMN revision TEXT NOT NULL DEFAULT 'current';
ALTER TABLE agents ADD COLUMN agent_domain TEXT;
ALTER TABLE agents ADD COLUMN agent_address {{BLOB}};
ALTER TABLE feedback ADD COLUMN revision TEXT NOT NULL DEFAULT 'current';
ALTER TABLE validation_requests ADD COLUMN revision TEXT NOT NULL DEFAULT 'current';
ALTER TABLE validation_requests ADD COLUMN validator_agent_id {{BLOB}};
ALTER TABLE validation_responses ADD COLUMN validator_agent_id {{BLOB}};
)sql";

constexpr std::string_view kV11Sql = R"sql(
-- source_cursors: key (chain_id, address). Where each followed contract stands (source_cursors.hpp):
-- following = 1, indexed with the chain's cursor; following = 0, its own backfill has indexed
-- [start_block, next_block). Contracts followed before this migration (their code hashes were
-- recorded) follow with their chain's cursor, as they did.
CREATE TABLE source_cursors (
    chain_id BIGINT NOT NULL,
    address {{BLOB}} NOT NULL,
    start_block BIGINT NOT NULL,
    next_block BIGINT NOT NULL,
    following INTEGER NOT NULL,
    PRIMARY KEY (chain_id, address)
);
INSERT INTO source_cursors (chain_id, address, start_block, next_block, following)
SELECT h.chain_id, h.address, 0, 0, 1 FROM code_hashes h
JOIN cursors c ON c.chain_id = h.chain_id GROUP BY h.chain_id, h.address;
)sql";

constexpr std::array<Migration, 11> kMigrations{{
    {1, "indexer tables: raw logs, cursors, block and code hashes, projections", kV1Sql},
    {2, "verifications: the latest check of each agent, tool, feedback, validation and run",
     kV2Sql},
    {3, "read models: agent and tool profiles, trust scores", kV3Sql},
    {4, "API read paths: feedback by agent in chain order", kV4Sql},
    {5, "ingest throughput: drop the secondary indexes no query reads", kV5Sql},
    {6, "exact-entry search: the profile lists' entries, one row each", kV6Sql},
    {7, "proofs per reply: the replyHashes of each proof's onAgentProve call", kV7Sql},
    {8, "fundings: where each reviewer's funds came from", kV8Sql},
    {9, "block times: when each block holding a log was made", kV9Sql},
    {10, "earlier ERC-8004 revisions: each row's revision and the fields kept as they were",
     kV10Sql},
    {11, "source cursors: a contract added to an indexed chain is backfilled", kV11Sql},
}};

// The secondary indexes that ingestion never reads, as the latest migration defines them. A bulk
// load drops them and builds them again at its end (store.hpp: drop_secondary_indexes).
constexpr std::array<SecondaryIndex, 7> kDeferrableIndexes{{
    {"raw_logs_by_entity",
     "CREATE INDEX IF NOT EXISTS raw_logs_by_entity ON raw_logs (chain_id, address, entity, "
     "block_num, log_index)"},
    {"agents_by_owner", "CREATE INDEX IF NOT EXISTS agents_by_owner ON agents (chain_id, owner)"},
    {"feedback_by_agent_block",
     "CREATE INDEX IF NOT EXISTS feedback_by_agent_block ON feedback (chain_id, registry, "
     "agent_id, block_num, log_index, revoked, normalized)"},
    {"validation_requests_by_agent",
     "CREATE INDEX IF NOT EXISTS validation_requests_by_agent ON validation_requests (chain_id, "
     "agent_id)"},
    {"workflow_tasks_by_hash",
     "CREATE INDEX IF NOT EXISTS workflow_tasks_by_hash ON workflow_tasks (chain_id, task_hash)"},
    {"workflow_replies_by_hash",
     "CREATE INDEX IF NOT EXISTS workflow_replies_by_hash ON workflow_replies (chain_id, "
     "reply_hash)"},
    {"workflow_proofs_by_digest",
     "CREATE INDEX IF NOT EXISTS workflow_proofs_by_digest ON workflow_proofs (chain_id, "
     "verification_digest)"},
}};

constexpr std::array<std::string_view, 19> kDataTables{
    "raw_logs",
    "agents",
    "agent_metadata",
    "agent_history",
    "agent_transfers",
    "agent_approvals",
    "operator_approvals",
    "feedback",
    "feedback_responses",
    "validation_requests",
    "validation_responses",
    "tools",
    "tool_history",
    "workflow_runs",
    "workflow_tasks",
    "workflow_replies",
    "workflow_results",
    "workflow_proofs",
    "contract_events",
};

}  // namespace

std::span<const Migration> index_migrations() noexcept { return kMigrations; }

DbResult<std::unique_ptr<Database>> open_index_read_only(std::string_view location) {
    auto db = open_database(location, OpenMode::read_only);
    if (!db) return db;
    if (auto v = require_schema(**db, index_migrations()); !v) return std::unexpected(v.error());
    return db;
}

std::span<const std::string_view> index_data_tables() noexcept { return kDataTables; }

std::span<const SecondaryIndex> index_deferrable_indexes() noexcept { return kDeferrableIndexes; }

}  // namespace credence::index
