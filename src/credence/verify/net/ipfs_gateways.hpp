// The public IPFS gateways `credence node` asks by default (docs/node.md §IPFS), so that agentURIs
// and feedback files on `ipfs://` (most of them on public chains) are read out of the box. Each is
// a trustless gateway (IPFS Trustless Gateway spec: `GET /ipfs/<cid>?format=raw` answers the raw
// block), so it is trusted for nothing: every block is checked against its CID (cid.hpp), a
// gateway that fails rests behind the others (FetcherConfig::gateway_backoff), and an operator
// replaces the list or turns it off (`fetch.ipfs_gateways`, `[]`). Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

namespace credence::verify {

/// trustless-gateway.link (run by the IPFS Shipyard as a trustless-only gateway), ipfs.io and
/// dweb.link (the IPFS Foundation's public gateways), in that order.
[[nodiscard]] inline std::vector<std::string> default_ipfs_gateways() {
    return {"https://trustless-gateway.link", "https://ipfs.io", "https://dweb.link"};
}

}  // namespace credence::verify
