// Reason codes in words. The codes are the verifiers' enums (src/credence/verify/verifiers/*.hpp)
// as the API reports them; people read the sentence, the code stays visible next to it.
// tests/web/explorer_units_test.mjs checks that every ToolReason of verify/verifiers/tool_verifier.hpp
// and every EvidenceReason of verify/verifiers/evidence.hpp has a sentence here.

/** ERC-8257 §7 Consumer Verification and §Handling Verification Failure: why a tool is unverified. */
export const toolReasons: Record<string, string> = {
    none: "All four checks passed: the manifest is canonical (ERC-8257 §7).",
    rpc_error: "The tool registry could not be read, so no check could start.",
    tool_not_found: "The registry has no such tool: it is unknown or was deregistered.",
    // §7 check 1 and Handling items 1-2: any fetch failure leaves the tool unverified.
    network_error: "The manifest could not be fetched: the network connection failed (§7 check 1).",
    blocked_address: "The manifest host resolves to a private, loopback or reserved address, which is never fetched.",
    tls_error: "The TLS handshake or the server's certificate failed verification (§7 check 1).",
    timeout: "Fetching the manifest timed out (§7 check 1).",
    http_status: "The manifest server answered with an error status (4xx or 5xx) (§7 check 1).",
    redirect: "The manifest server answered with a redirect; redirects are never followed (§7 Handling item 1).",
    truncated: "The manifest response was cut short before its declared end (§7 check 1).",
    too_large: "The manifest is larger than the 1 MiB limit (§Manifest Parser Hardening).",
    // §6 URL normalization and §7 check 2 (origin binding).
    not_https: "The metadataURI is not an https URL (§6 Origin-Binding).",
    bad_uri: "The metadataURI is not a well-formed URL (userinfo, port, host or characters) (§6).",
    non_ace_host: "The metadataURI host is a raw internationalized domain name instead of its A-label form (§6 G3).",
    query_or_fragment: "The metadataURI carries a query string or a fragment, which the well-known path forbids (§6 W2).",
    not_well_known: "The metadataURI is not at /.well-known/ai-tool/<slug>.json (§6 W1).",
    slug_grammar: "The slug in the metadataURI breaks the slug grammar or length (§6).",
    uri_too_long: "The metadataURI is longer than 2,048 bytes (§Metadata URI Length Cap).",
    bad_endpoint: "The manifest's endpoint is missing, malformed or not https (§2 Required Fields).",
    origin_mismatch: "The metadataURI is not served from the same origin as the manifest's endpoint (§7 check 2).",
    // §Canonical Manifest Bytes and §7 check 3.
    bom: "The manifest starts with a byte-order mark, which changes its hash (§Canonical Manifest Bytes).",
    invalid_json: "The manifest is not strict JSON (§Canonical Manifest Bytes).",
    not_nfc: "A manifest string is not in Unicode NFC form (§Canonical Manifest Bytes).",
    uppercase_hex: "A hex field of the manifest uses uppercase digits (§Canonical Manifest Bytes).",
    hash_mismatch: "keccak256 of the canonical (JCS) manifest does not equal the on-chain manifestHash, even after one re-read (§7 check 3, Handling item 5).",
    // §7 check 4.
    creator_mismatch: "The manifest's creatorAddress is not the tool's on-chain creator (§7 check 4).",
    schema_violation: "The manifest breaks a field rule of the schema (§2 Tool Manifest).",
};

/** ERC-8301 evidence-chain verification (verify/verifiers/evidence.hpp), one sentence per failure. */
export const evidenceReasons: Record<string, string> = {
    run_not_completed: "The run has not completed, so its evidence chain has no final task yet.",
    missing_task: "A task the chain refers to is not on chain.",
    missing_reply: "A reply the chain refers to is not on chain.",
    hash_mismatch: "A task or reply hash does not match the hash recomputed from its fields.",
    content_mismatch: "An input or output on chain does not match its committed hash.",
    broken_link: "A link is broken: it points to the wrong kind of node, a reply cites no task, the final task cites no reply, or a node has no anchoring event.",
    wrong_run: "A task or reply belongs to another run.",
    timestamp_order: "Timestamps are out of order: a reply predates its task or follows the next task.",
    sequence_order: "Task sequence numbers are out of order.",
    duplicate_link: "The same reply is cited twice by one task.",
    unproven_claim: "A reply claims to be proven but no matching verifier attestation (ERC-8274) exists.",
    cycle: "The chain loops back on itself.",
    too_large: "The evidence chain is larger than the verifier's limit.",
};

/** ERC-8004 registration verification (verify/verifiers/registration_verifier.hpp). */
export const agentReasons: Record<string, string> = {
    verified: "The registration file was fetched, is valid and names this agent.",
    same_domain: "The domain served the registration file itself, which names this agent.",
    empty_agent_uri: "The agent has no agentURI.",
    fetch_failed: "The registration file could not be fetched.",
    not_found: "The domain has no /.well-known/agent-registration.json.",
    not_json: "The file is not JSON.",
    invalid_registration_file: "The registration file breaks a MUST of ERC-8004 §Agent URI and Agent Registration File.",
    no_registrations: "The file has no registrations list.",
    wrong_agent_id: "The file's registration names another agentId.",
    wrong_registry: "The file's registration names another registry.",
    no_matching_registration: "No registration entry names this agent in this registry.",
    not_https: "The endpoint is not https, so its domain cannot be verified.",
    bad_host: "The endpoint's host is not a valid domain name.",
};

/** Why the trust engine discounted a reviewer (trust/score.hpp). */
export const discountReasons: Record<string, string> = {
    no_verified_payment: "no verified payment behind the feedback",
    new_reviewer: "a new reviewer",
    narrow_spread: "reviews few agents",
    no_standing: "no standing in the review graph",
    pooled: "unvouched: shares one capped pool with the other unvouched reviewers",
    funded_by_owner: "funded by the agent's owner: speaks for the owner, not counted",
    clustered: "shares a funder with other reviewers of this agent: one voice together",
    repeated: "one of several feedback by this reviewer on this agent: one voice together",
    revoked: "revoked by the reviewer",
    not_a_rating: "the tag is a measurement, not a rating",
};

/** A reason code and its sentence, or the code itself when it is not known here. */
export function explain(table: Record<string, string>, code: unknown): string {
    if (typeof code !== "string" || code === "") return "";
    return table[code] ?? code.replace(/_/g, " ");
}
