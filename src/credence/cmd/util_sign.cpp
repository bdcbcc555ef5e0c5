// credence util typed-data-hash | sign-typed-data | sign | recover | wallet-address
#include <credence/cmd/util.hpp>
#include <credence/core/address.hpp>
#include <credence/core/eip191.hpp>
#include <credence/core/eip712.hpp>
#include <credence/core/secp256k1.hpp>

namespace credence::cmd {
namespace {

core::Hash32 typed_data_digest_of(const std::string& path) {
    return must(core::typed_data_digest(read_input(path)), "invalid typed data");
}

std::string signature_hex(const core::Signature& sig) {
    // The 65-byte r || s || v form with v = 27/28, as eth_sign and cast print it.
    return core::to_hex(sig.to_bytes_v27());
}

}  // namespace

void add_util_sign_commands(CLI::App& util, UtilOptions& opts) {
    static std::string file, private_key, digest, signature, message;

    add_util_command(util, "typed-data-hash",
                     "EIP-712 digest of a typed-data JSON file (- for stdin)", opts)
        ->callback([&opts] {
            Output out(opts.json);
            out.add("digest", core::to_hex(typed_data_digest_of(file)));
            out.flush();
        })
        ->add_option("file", file, "eth_signTypedData_v4 JSON document")
        ->required();

    auto* sign_typed = add_util_command(util, "sign-typed-data",
                                        "Sign an EIP-712 typed-data JSON file (- for stdin)", opts);
    sign_typed->add_option("--private-key", private_key,
                           "Hex private key (or $CREDENCE_PRIVATE_KEY)");
    sign_typed->add_option("file", file)->required();
    sign_typed->callback([&opts] {
        const auto digest32 = typed_data_digest_of(file);
        const auto key = load_private_key(private_key);
        const auto sig = must(core::sign_digest(key, digest32), "signing failed");
        Output out(opts.json);
        out.add("signature", signature_hex(sig));
        if (opts.json) {
            out.add("digest", core::to_hex(digest32));
            out.add("signer", core::address_of(key).to_checksum_hex());
        }
        out.flush();
    });

    auto* sign = add_util_command(util, "sign",
                                  "EIP-191 personal-message signature (cast wallet sign)", opts);
    sign->add_option("--private-key", private_key, "Hex private key (or $CREDENCE_PRIVATE_KEY)");
    sign->add_option("message", message, "0x-prefixed hex, or text")->required();
    sign->callback([&opts] {
        const core::Bytes data = message.starts_with("0x")
                                     ? must(core::from_hex(message), "invalid hex message")
                                     : core::Bytes(message.begin(), message.end());
        const auto key = load_private_key(private_key);
        const auto sig = must(core::sign_digest(key, core::eip191_personal_message_hash(data)),
                              "signing failed");
        Output out(opts.json);
        out.add("signature", signature_hex(sig));
        out.flush();
    });

    auto* recover = add_util_command(
        util, "recover", "Signer address of a 32-byte digest and a 65-byte signature", opts);
    recover->add_option("digest", digest)->required();
    recover->add_option("signature", signature)->required();
    recover->callback([&opts] {
        const auto digest32 = must(core::from_hex_fixed<32>(digest), "invalid digest");
        const auto sig_bytes = must(core::from_hex(signature), "invalid signature hex");
        const auto sig = must(core::Signature::from_bytes(sig_bytes), "invalid signature");
        const auto signer = must(core::recover_address(digest32, sig), "recovery failed");
        Output out(opts.json);
        out.add("address", signer.to_checksum_hex());
        out.flush();
    });

    auto* wallet = add_util_command(util, "wallet-address",
                                    "Address of a private key (cast wallet address)", opts);
    wallet->add_option("--private-key", private_key, "Hex private key (or $CREDENCE_PRIVATE_KEY)");
    wallet->callback([&opts] {
        Output out(opts.json);
        out.add("address", core::address_of(load_private_key(private_key)).to_checksum_hex());
        out.flush();
    });
}

}  // namespace credence::cmd
