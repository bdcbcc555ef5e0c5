// credence util keccak | sig | sig-event | to-checksum | compute-address | create2 | hash-message
#include <credence/cmd/util.hpp>
#include <credence/core/abi_signature.hpp>
#include <credence/core/address.hpp>
#include <credence/core/eip191.hpp>
#include <credence/core/keccak.hpp>
#include <credence/core/uint256.hpp>

namespace credence::cmd {
namespace {

/// cast's rule: 0x-prefixed input is hex bytes, anything else is UTF-8 text.
core::Bytes data_or_text(const std::string& input) {
    if (input.starts_with("0x")) return must(core::from_hex(input), "invalid hex data");
    return {input.begin(), input.end()};
}

core::Address parse_address(const std::string& text) {
    return must(core::Address::from_hex(text, core::ChecksumMode::strict), "invalid address");
}

}  // namespace

void add_util_hash_commands(CLI::App& util, UtilOptions& opts) {
    static std::string data, signature, address, deployer, salt, init_code, init_code_hash;
    static uint64_t nonce = 0;

    add_util_command(util, "keccak", "keccak256 of 0x-hex bytes or of UTF-8 text", opts)
        ->callback([&opts] {
            Output out(opts.json);
            out.add("hash", core::to_hex(core::keccak256(data_or_text(data))));
            out.flush();
        })
        ->add_option("data", data, "0x-prefixed hex, or text")
        ->required();

    add_util_command(util, "sig", "4-byte selector of a function signature", opts)
        ->callback([&opts] {
            auto fn = must(core::parse_function_signature(signature), "invalid signature");
            Output out(opts.json);
            out.add("selector", core::to_hex(fn.selector()));
            if (opts.json) out.add("signature", fn.signature());
            out.flush();
        })
        ->add_option("signature", signature, "e.g. \"transfer(address,uint256)\"")
        ->required();

    add_util_command(util, "sig-event", "topic0 of an event signature", opts)
        ->callback([&opts] {
            auto ev = must(core::parse_event_signature(signature), "invalid event signature");
            Output out(opts.json);
            out.add("topic0", core::to_hex(ev.topic0()));
            if (opts.json) out.add("signature", ev.signature());
            out.flush();
        })
        ->add_option("signature", signature, "e.g. \"Transfer(address,address,uint256)\"")
        ->required();

    auto* checksum =
        add_util_command(util, "to-checksum", "EIP-55 checksum form of an address", opts);
    checksum->alias("to-check-sum-address");
    checksum->add_option("address", address)->required();
    checksum->callback([&opts] {
        // Any case is accepted as input, as cast does; the output is the checksummed form.
        auto a =
            must(core::Address::from_hex(address, core::ChecksumMode::ignore), "invalid address");
        Output out(opts.json);
        out.add("address", a.to_checksum_hex());
        out.flush();
    });

    auto* compute =
        add_util_command(util, "compute-address", "CREATE address of a deployer and nonce", opts);
    compute->add_option("address", address, "Deployer address")->required();
    compute->add_option("--nonce", nonce, "Deployer nonce")->required();
    compute->callback([&opts] {
        Output out(opts.json);
        out.add("address", core::create_address(parse_address(address), nonce).to_checksum_hex());
        out.flush();
    });

    auto* create2 = add_util_command(util, "create2", "CREATE2 address (EIP-1014)", opts);
    create2->add_option("--deployer", deployer, "Deployer address")->required();
    create2->add_option("--salt", salt, "32-byte salt (hex)")->required();
    auto* code = create2->add_option("--init-code", init_code, "Init code (hex)");
    auto* code_hash =
        create2->add_option("--init-code-hash", init_code_hash, "keccak256 of the init code");
    code->excludes(code_hash);
    create2->callback([&opts] {
        const auto salt32 = must(core::from_hex_fixed<32>(salt), "invalid salt");
        const auto from = parse_address(deployer);
        core::Address result;
        if (!init_code_hash.empty()) {
            result = core::create2_address_from_hash(
                from, salt32,
                must(core::from_hex_fixed<32>(init_code_hash), "invalid init code hash"));
        } else if (!init_code.empty()) {
            result = core::create2_address(from, salt32,
                                           must(core::from_hex(init_code), "invalid init code"));
        } else {
            throw CliError("pass --init-code or --init-code-hash");
        }
        Output out(opts.json);
        out.add("address", result.to_checksum_hex());
        out.flush();
    });

    add_util_command(util, "hash-message", "EIP-191 personal-message hash of 0x-hex or text", opts)
        ->callback([&opts] {
            Output out(opts.json);
            out.add("hash", core::to_hex(core::eip191_personal_message_hash(data_or_text(data))));
            out.flush();
        })
        ->add_option("message", data, "0x-prefixed hex, or text")
        ->required();
}

}  // namespace credence::cmd
