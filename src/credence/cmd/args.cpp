#include <credence/cmd/args.hpp>

#include <fmt/core.h>

namespace credence::cmd {

core::Uint256 parse_uint256_arg(std::string_view what, const std::string& text) {
    auto v = core::Uint256::parse(text);
    if (!v) throw CliError(fmt::format("{} '{}': not an unsigned 256-bit integer", what, text));
    return *v;
}

uint64_t parse_u64_arg(std::string_view what, const std::string& text) {
    const core::Uint256 v = parse_uint256_arg(what, text);
    if (!v.fits_u64()) throw CliError(fmt::format("{} '{}': above 2^64-1", what, text));
    return v.limbs[0];
}

core::Address parse_address_arg(std::string_view what, const std::string& text) {
    auto a = core::Address::from_hex(text);
    if (!a)
        throw CliError(fmt::format("{} '{}': not an address ({})", what, text,
                                   core::to_string(a.error().code)));
    return *a;
}

core::Hash32 parse_hash_arg(std::string_view what, const std::string& text) {
    auto h = core::from_hex_fixed<32>(text);
    if (!h || !text.starts_with("0x"))
        throw CliError(fmt::format("{} '{}': expected 0x + 64 hex digits", what, text));
    return *h;
}

core::Bytes parse_bytes_arg(std::string_view what, const std::string& text) {
    auto b = core::from_prefixed_hex(text);
    if (!b) throw CliError(fmt::format("{}: expected 0x-prefixed hex bytes", what));
    return std::move(*b);
}

std::pair<std::string, std::string> split_key_value(std::string_view what,
                                                    const std::string& text) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        throw CliError(fmt::format("{} '{}': expected key=value", what, text));
    return {text.substr(0, eq), text.substr(eq + 1)};
}

nlohmann::ordered_json uint_json(const core::Uint256& v) {
    if (v.fits_u64()) return v.limbs[0];
    return v.to_dec();
}

std::vector<const chain::Log*> find_logs(const chain::Receipt& receipt,
                                         const core::Address& contract, const core::Hash32& topic) {
    std::vector<const chain::Log*> out;
    for (const auto& log : receipt.logs)
        if (log.address == contract && !log.topics.empty() && log.topics[0] == topic)
            out.push_back(&log);
    return out;
}

}  // namespace credence::cmd
