// libFuzzer target for the deployment file parser (chain/deployment.hpp): the file may come from
// anywhere (--deployment, $CREDENCE_DEPLOYMENT), so it is untrusted.
//
// Checks: parse_deployment never crashes or hangs; an accepted file serializes and parses back to
// the same deployment (the writer and the reader agree).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <credence/chain/deployment.hpp>

using namespace credence;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto parsed = chain::parse_deployment(text);
    if (!parsed) {
        if (parsed.error().empty()) std::abort();
        return 0;
    }
    const auto again = chain::parse_deployment(chain::serialize_deployment(*parsed));
    if (!again) std::abort();
    if (again->chain_id != parsed->chain_id || again->contracts != parsed->contracts ||
        again->rpc_url != parsed->rpc_url || again->salt != parsed->salt)
        std::abort();
    return 0;
}
