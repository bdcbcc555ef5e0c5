// credence util abi-encode | calldata | abi-decode | calldata-decode | decode-tx
#include <credence/cmd/util.hpp>
#include <credence/core/abi.hpp>
#include <credence/core/abi_signature.hpp>
#include <credence/core/abi_text.hpp>
#include <credence/core/secp256k1.hpp>
#include <credence/core/txn.hpp>

#include <algorithm>
#include <vector>

namespace credence::cmd {
namespace {

core::AbiFunction parse_signature(const std::string& signature) {
    return must(core::parse_function_signature(signature), "invalid signature");
}

core::Bytes encode_args(const core::AbiFunction& fn, const std::vector<std::string>& args) {
    const auto types = core::types_of(fn.inputs);
    if (args.size() != types.size())
        throw CliError(fmt::format("{} takes {} arguments, got {}", fn.signature(), types.size(),
                                   args.size()));
    const auto values = must(core::parse_values(types, args), "invalid argument");
    return must(core::encode(types, values), "cannot encode");
}

void print_decoded(const UtilOptions& opts, const std::vector<core::AbiParam>& params,
                   const std::vector<core::AbiValue>& values) {
    const auto types = core::types_of(params);
    Output out(opts.json);
    std::vector<std::string> lines;
    lines.reserve(values.size());
    for (size_t i = 0; i < values.size(); ++i)
        lines.push_back(core::format_value(types[i], values[i]));
    out.add("values", lines);
    out.flush();
}

std::string txn_type_name(core::TxnType t) {
    switch (t) {
        case core::TxnType::legacy:
            return "legacy";
        case core::TxnType::access_list:
            return "eip2930";
        case core::TxnType::dynamic_fee:
            return "eip1559";
        case core::TxnType::blob:
            return "eip4844";
    }
    return "unknown";
}

}  // namespace

void add_util_abi_commands(CLI::App& util, UtilOptions& opts) {
    static std::string signature, data;
    static bool input = false;

    auto* encode = add_util_command(util, "abi-encode", "ABI-encode arguments (no selector)", opts);
    encode->add_option("signature", signature, "e.g. \"f(uint256,string)\"")->required();
    // Arguments are taken raw (allow_extras), because CLI11 would split "[1,2]" into two values.
    encode->allow_extras();
    encode->callback([&opts, encode] {
        Output out(opts.json);
        out.add("data", core::to_hex(encode_args(parse_signature(signature), encode->remaining())));
        out.flush();
    });

    auto* calldata = add_util_command(util, "calldata", "Selector + ABI-encoded arguments", opts);
    calldata->add_option("signature", signature)->required();
    calldata->allow_extras();
    calldata->callback([&opts, calldata] {
        const auto fn = parse_signature(signature);
        const auto selector = fn.selector();
        core::Bytes body = encode_args(fn, calldata->remaining());
        body.insert(body.begin(), selector.begin(), selector.end());
        Output out(opts.json);
        out.add("data", core::to_hex(body));
        out.flush();
    });

    auto* decode = add_util_command(
        util, "abi-decode",
        "Decode ABI data: the output types of \"f(in)(out)\", or the inputs with --input", opts);
    decode->add_option("signature", signature, "e.g. \"f()(uint256,string)\"")->required();
    decode->add_option("data", data, "0x-hex")->required();
    decode->add_flag("-i,--input", input, "Decode the input types instead of the outputs");
    decode->callback([&opts] {
        const auto fn = parse_signature(signature);
        const auto& params = input ? fn.inputs : fn.outputs;
        const auto bytes = must(core::from_hex(data), "invalid hex data");
        print_decoded(opts, params,
                      must(core::decode(core::types_of(params), bytes), "cannot decode"));
    });

    auto* calldata_decode =
        add_util_command(util, "calldata-decode", "Decode calldata (checks the selector)", opts);
    calldata_decode->add_option("signature", signature)->required();
    calldata_decode->add_option("data", data)->required();
    calldata_decode->callback([&opts] {
        const auto fn = parse_signature(signature);
        const auto bytes = must(core::from_hex(data), "invalid hex data");
        const auto selector = fn.selector();
        if (bytes.size() < 4 || !std::equal(selector.begin(), selector.end(), bytes.begin()))
            throw CliError(fmt::format("calldata does not start with the selector {} of {}",
                                       core::to_hex(selector), fn.signature()));
        const auto body = core::ByteView(bytes).subspan(4);
        print_decoded(opts, fn.inputs,
                      must(core::decode(core::types_of(fn.inputs), body), "cannot decode"));
    });

    auto* decode_tx = add_util_command(
        util, "decode-tx", "Decode a raw signed transaction (cast decode-transaction)", opts);
    decode_tx->alias("decode-transaction");
    decode_tx->add_option("raw", data, "0x-hex raw transaction")->required();
    decode_tx->callback([] {
        const auto raw = must(core::from_hex(data), "invalid hex");
        const auto stxn = must(core::decode_signed(raw), "invalid transaction");
        const auto& t = stxn.txn;
        nlohmann::ordered_json j;
        j["type"] = txn_type_name(t.type);
        if (t.chain_id) j["chainId"] = *t.chain_id;
        j["nonce"] = t.nonce;
        if (t.type == core::TxnType::legacy || t.type == core::TxnType::access_list) {
            j["gasPrice"] = t.gas_price.to_dec();
        } else {
            j["maxPriorityFeePerGas"] = t.max_priority_fee_per_gas.to_dec();
            j["maxFeePerGas"] = t.max_fee_per_gas.to_dec();
        }
        j["gasLimit"] = t.gas_limit;
        j["to"] = t.to ? nlohmann::ordered_json(t.to->to_checksum_hex())
                       : nlohmann::ordered_json(nullptr);
        j["value"] = t.value.to_dec();
        j["input"] = core::to_hex(t.data);
        j["v"] = stxn.v().to_dec();
        j["r"] = stxn.r.to_hex();
        j["s"] = stxn.s.to_hex();
        j["hash"] = core::to_hex(core::txn_hash(stxn));
        j["from"] = must(core::recover_sender(stxn), "cannot recover sender").to_checksum_hex();
        // Always JSON: a transaction has too many fields for the one-value-per-line form.
        fmt::print("{}\n", j.dump(2));
    });
}

}  // namespace credence::cmd
