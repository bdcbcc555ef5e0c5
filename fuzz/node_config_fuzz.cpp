// The node's TOML configuration (node/config.hpp) on arbitrary bytes. Properties: nothing throws
// or crashes; an error is one line that starts with the origin's name.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <credence/node/config.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    credence::node::NodeConfig config;
    auto r = credence::node::apply_node_config(input, "fuzz.toml", config);
    if (!r) {
        if (r.error().rfind("fuzz.toml", 0) != 0) std::abort();
    } else {
        (void)credence::node::validate(config);
    }
    return 0;
}
