// The goal in docs/benchmarks.md: ERC-8257 manifest verification from bytes to verdict without the
// network, at least 5,000 manifests/s on one core for a typical 4 KiB manifest.
//
// "Bytes to verdict" is verify::verify_manifest_bytes(): strict parse, §7 check 2 (origin
// binding), check 3 (BOM, NFC, lowercase hex, JCS, keccak256 == manifestHash), check 4 (creator)
// and the full schema. The manifest is a realistic paid TEE tool: two pricing entries, an access
// block, verifiability with attestation and reproducible build, and input/output schemas, about
// 4 KiB pretty-printed. Sub-benchmarks isolate the stages.
#include <string>

#include <benchmark/benchmark.h>

#include <credence/core/jcs.hpp>
#include <credence/core/json.hpp>
#include <credence/core/keccak.hpp>
#include <credence/core/manifest_checks.hpp>
#include <credence/verify/rules/manifest_schema.hpp>
#include <credence/verify/verifiers/tool_verifier.hpp>

namespace {

using credence::core::ByteView;

const char* kManifest = R"({
  "type": "https://ercs.ethereum.org/ERCS/erc-8257#tool-manifest-v1",
  "name": "premium-analytics",
  "description": "Advanced portfolio analytics for NFT holders: floor prices, wash-trade detection, rarity-weighted valuations and historical drawdowns across collections on Ethereum and Base. Results are computed inside an attested enclave; inputs are never stored.",
  "endpoint": "https://tools.example.com/premium-analytics",
  "inputs": {
    "type": "object",
    "properties": {
      "wallet": { "type": "string", "description": "Wallet address to analyze", "pattern": "^0x[0-9a-fA-F]{40}$" },
      "chains": { "type": "array", "items": { "type": "string", "enum": ["eip155:1", "eip155:8453", "eip155:10"] } },
      "collections": { "type": "array", "items": { "type": "string" }, "maxItems": 50 },
      "window": { "type": "object", "properties": { "from": { "type": "string", "format": "date-time" }, "to": { "type": "string", "format": "date-time" } } },
      "currency": { "type": "string", "enum": ["eth", "usd", "eur"] },
      "includeRarity": { "type": "boolean", "default": false }
    },
    "required": ["wallet"]
  },
  "outputs": {
    "type": "object",
    "properties": {
      "totalValue": { "type": "string" },
      "breakdown": { "type": "array", "items": { "type": "object", "properties": { "collection": { "type": "string" }, "value": { "type": "string" }, "floor": { "type": "string" }, "rarityScore": { "type": "number" } } } },
      "drawdown": { "type": "object", "properties": { "max": { "type": "number" }, "current": { "type": "number" } } },
      "washTradeFlags": { "type": "array", "items": { "type": "string" } },
      "updatedAt": { "type": "string", "format": "date-time" }
    }
  },
  "version": "2.3.1",
  "image": "https://tools.example.com/premium-analytics/icon.png",
  "featuredImage": "https://tools.example.com/premium-analytics/featured.png",
  "tags": ["analytics", "portfolio", "nft", "tee", "pricing"],
  "pricing": [
    {
      "amount": "20000",
      "asset": "eip155:8453/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
      "recipient": "eip155:8453:0xabcdef0123456789abcdef0123456789abcdef01",
      "protocol": "x402"
    },
    {
      "amount": "20000",
      "asset": "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
      "recipient": "eip155:1:0xabcdef0123456789abcdef0123456789abcdef01",
      "protocol": "x402"
    }
  ],
  "access": {
    "logic": "OR",
    "requirements": [
      {
        "kind": "0xabcd1234",
        "data": "0x000000000000000000000000abcdefabcdef1234567890abcdefabcdef123456",
        "label": "Hold any Chonk on Base",
        "links": { "buy": "https://opensea.io/collection/chonks", "predicate-source": "https://github.com/example/chonks-predicate" }
      },
      {
        "kind": "0x12345678",
        "data": "0x0000000000000000000000000000000000000000000000000000000000000001",
        "label": "Active subscription",
        "links": { "subscribe": "https://tools.example.com/subscribe" }
      }
    ]
  },
  "verifiability": {
    "tier": "verifiable",
    "execution": "e2ee",
    "description": "Input encrypted on device, decrypted only inside verified TEE. Full source-to-attestation chain is independently verifiable.",
    "dataRetention": "none",
    "sourceVisibility": "open-source",
    "attestation": {
      "type": "nitro",
      "endpoint": "https://tools.example.com/.well-known/attestation",
      "enclaveHash": "0x1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef",
      "maxAge": 1800,
      "transparencyLogURI": "https://rekor.sigstore.dev/api/v1/log/entries/abcdef123456"
    },
    "reproducibleBuild": {
      "sourceCodeURI": "https://github.com/example/tool/tree/abc123def456",
      "buildInstructions": "nix build .#enclave",
      "buildHash": "0x1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef"
    }
  },
  "creatorAddress": "0xabcdef0123456789abcdef0123456789abcdef01"
}
)";

ByteView bytes() {
    return {reinterpret_cast<const uint8_t*>(kManifest), std::char_traits<char>::length(kManifest)};
}

credence::verify::ToolConfig config() {
    credence::verify::ToolConfig c;
    c.creator = *credence::core::Address::from_hex("0xabcdef0123456789abcdef0123456789abcdef01");
    c.metadata_uri = "https://tools.example.com/.well-known/ai-tool/premium-analytics.json";
    c.manifest_hash = credence::core::keccak256(*credence::core::canonicalize(kManifest));
    return c;
}

void BM_verify_manifest_bytes(benchmark::State& state) {
    const auto cfg = config();
    const auto in = bytes();
    {
        const auto r = credence::verify::verify_manifest_bytes(in, cfg);
        if (!r.canonical()) {
            state.SkipWithError(r.detail.c_str());
            return;
        }
    }
    for (auto _ : state) {
        auto r = credence::verify::verify_manifest_bytes(in, cfg);
        benchmark::DoNotOptimize(r);
    }
    state.SetItemsProcessed(state.iterations());
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(in.size()));
    state.counters["manifest_bytes"] = static_cast<double>(in.size());
}
BENCHMARK(BM_verify_manifest_bytes);

// Stages: the strict parse alone, check 3 (canonicalize_manifest), the schema on a parsed DOM.
void BM_parse_only(benchmark::State& state) {
    const auto in = bytes();
    for (auto _ : state) {
        auto doc = credence::core::parse_json(in);
        benchmark::DoNotOptimize(doc);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_parse_only);

void BM_canonicalize_manifest(benchmark::State& state) {
    const auto in = bytes();
    for (auto _ : state) {
        auto m = credence::core::canonicalize_manifest(in);
        benchmark::DoNotOptimize(m);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_canonicalize_manifest);

void BM_schema_only(benchmark::State& state) {
    const auto doc = *credence::core::parse_json(bytes());
    for (auto _ : state) {
        auto r = credence::verify::validate_manifest(doc);
        benchmark::DoNotOptimize(r);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_schema_only);

}  // namespace
