// gen_bindings: typed C++ bindings for Credence contracts, generated from JSON ABI snapshots.
//
// Usage: gen_bindings <out_dir> <Contract.json>...
// Writes <out_dir>/credence/chain/bindings/<snake_contract>.{hpp,cpp} per ABI file, and all.hpp /
// all.cpp (every contract's name, ABI text and selector tables). Files are rewritten only when
// their content changes, so an unchanged ABI does not trigger recompilation.
//
// Naming rules (documented in the generated headers too):
// - namespace credence::chain::bindings::<snake_contract> (IdentityRegistry -> identity_registry);
// - functions, events and fields are snake_case of the ABI names (getAgentWallet ->
//   get_agent_wallet); a C++ keyword gets a trailing underscore; an empty name becomes arg<i> /
//   field<i> / value<i>;
// - overloads (same ABI name) are suffixed with their arity: register() -> register_0,
//   register(string) -> register_1; two overloads of equal arity are suffixed with their
//   parameter types instead (f(uint256) -> f_uint256, f(address) -> f_address);
// - constants: k<Camel>Selector (functions), k<Camel>Topic (events), k<ErrorName>Error (errors);
// - tuples become structs named after the Solidity struct (internalType "struct X.Config" ->
//   Config); several outputs become <Camel>Result; an event becomes <Camel>Event.
// - call::<function>(caller, contract, args...) for every function with outputs: encode, eth_call
//   through a bindings::Caller, decode; call::<function>_answer(answer) decodes an eth_call made
//   elsewhere (support.hpp). Both return CallResult<T> with the function's signature in the error;
// - constructor_args(...) encodes the constructor's arguments (empty when it has none); when
//   contracts/bytecode/<Contract>.hex exists beside contracts/abi/ (scripts/export-abis.sh), the
//   header also has kCreationCodeHex and init_code(...) = creation code ++ constructor_args(...),
//   the init code of a CREATE/CREATE2 deployment (Solidity ABI spec §Contract ABI: constructor
//   arguments are ABI-encoded and appended to the creation code).
//
// Every signature is checked with core's parser while generating, so the generated code's
// run-time parses of the same strings cannot fail.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/core/abi.hpp>
#include <credence/core/abi_json.hpp>
#include <credence/core/abi_signature.hpp>
#include <credence/core/abi_type.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/keccak.hpp>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

[[noreturn]] void fatal(const std::string& what) { throw std::runtime_error(what); }

const std::set<std::string> kKeywords = {
    "alignas",   "alignof",   "and",      "asm",      "auto",      "bool",      "break",
    "case",      "catch",     "char",     "class",    "concept",   "const",     "consteval",
    "constexpr", "constinit", "continue", "co_await", "co_return", "co_yield",  "decltype",
    "default",   "delete",    "do",       "double",   "else",      "enum",      "explicit",
    "export",    "extern",    "false",    "float",    "for",       "friend",    "goto",
    "if",        "inline",    "int",      "long",     "mutable",   "namespace", "new",
    "noexcept",  "not",       "nullptr",  "operator", "or",        "private",   "protected",
    "public",    "register",  "requires", "return",   "short",     "signed",    "sizeof",
    "static",    "struct",    "switch",   "template", "this",      "throw",     "true",
    "try",       "typedef",   "typeid",   "typename", "union",     "unsigned",  "using",
    "virtual",   "void",      "volatile", "while",    "xor",       "data",      "std",
    "core",      "detail"};

// camelCase / PascalCase / SCREAMING_CASE -> snake_case. A '_' goes before an upper-case letter
// that follows a lower-case letter or digit, or that starts a word after an acronym (URIUpdated ->
// uri_updated).
std::string snake(std::string_view name) {
    while (!name.empty() && name.front() == '_') name.remove_prefix(1);
    while (!name.empty() && name.back() == '_') name.remove_suffix(1);
    std::string out;
    for (size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        const bool upper = std::isupper(static_cast<unsigned char>(c)) != 0;
        if (upper && i > 0 && out.back() != '_') {
            const char prev = name[i - 1];
            const bool next_lower =
                i + 1 < name.size() && std::islower(static_cast<unsigned char>(name[i + 1])) != 0;
            if (std::islower(static_cast<unsigned char>(prev)) != 0 ||
                std::isdigit(static_cast<unsigned char>(prev)) != 0 ||
                (std::isupper(static_cast<unsigned char>(prev)) != 0 && next_lower)) {
                out += '_';
            }
        }
        out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

std::string identifier(std::string_view name, const std::string& fallback) {
    std::string s = snake(name);
    if (s.empty()) return fallback;
    if (std::isdigit(static_cast<unsigned char>(s.front())) != 0) s = "n" + s;
    if (kKeywords.contains(s)) s += '_';
    return s;
}

// snake_case -> CamelCase ("register_1" -> "Register1").
std::string camel(std::string_view snake_name) {
    std::string out;
    bool up = true;
    for (const char c : snake_name) {
        if (c == '_') {
            up = true;
            continue;
        }
        out += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
        up = false;
    }
    return out;
}

std::string hex_bytes(const uint8_t* p, size_t n) {
    std::string out;
    char buf[8];
    for (size_t i = 0; i < n; ++i) {
        std::snprintf(buf, sizeof buf, "%s0x%02x", i == 0 ? "" : ", ", p[i]);
        out += buf;
    }
    return out;
}

std::string quote(std::string_view s) { return json(std::string(s)).dump(); }

struct Param {
    std::string name;
    std::string type;  // as in the ABI: "uint256", "tuple[]", ...
    std::string internal_type;
    std::vector<Param> components;
    bool indexed = false;

    [[nodiscard]] std::string base() const { return type.substr(0, type.find('[')); }
    [[nodiscard]] std::string suffix() const {
        const auto pos = type.find('[');
        return pos == std::string::npos ? std::string() : type.substr(pos);
    }
    // Array dimensions, innermost first ("" for T[]).
    [[nodiscard]] std::vector<std::string> dims() const {
        std::vector<std::string> out;
        const std::string s = suffix();
        size_t i = 0;
        while (i < s.size()) {
            const auto close = s.find(']', i);
            out.push_back(s.substr(i + 1, close - i - 1));
            i = close + 1;
        }
        return out;
    }
    [[nodiscard]] std::string canonical() const {
        if (base() != "tuple") return type;
        std::string out = "(";
        for (size_t i = 0; i < components.size(); ++i) {
            if (i != 0) out += ',';
            out += components[i].canonical();
        }
        return out + ")" + suffix();
    }
};

Param parse_param(const json& j) {
    Param p;
    p.name = j.value("name", "");
    p.type = j.at("type").get<std::string>();
    p.internal_type = j.value("internalType", "");
    p.indexed = j.value("indexed", false);
    if (j.contains("components")) {
        for (const auto& c : j.at("components")) p.components.push_back(parse_param(c));
    }
    return p;
}

std::vector<Param> parse_params(const json& item, const char* key) {
    std::vector<Param> out;
    if (item.contains(key)) {
        for (const auto& j : item.at(key)) out.push_back(parse_param(j));
    }
    return out;
}

std::string type_list(const std::vector<Param>& params) {
    std::string out = "(";
    for (size_t i = 0; i < params.size(); ++i) {
        if (i != 0) out += ',';
        out += params[i].canonical();
    }
    return out + ")";
}

struct Item {
    std::string kind;  // function | event | error
    std::string abi_name;
    std::vector<Param> inputs;
    std::vector<Param> outputs;
    std::string mutability;
    bool anonymous = false;
    std::string ident;  // snake identifier after overload resolution
    std::string signature() const { return abi_name + type_list(inputs); }
};

struct Struct {
    std::string name;
    std::string canonical;
    std::vector<std::pair<std::string, std::string>> fields;  // C++ type, field name
};

std::vector<std::string> field_names(const std::vector<Param>& params, const char* fallback) {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (size_t i = 0; i < params.size(); ++i) {
        std::string f = identifier(params[i].name, fallback + std::to_string(i));
        while (seen.contains(f)) f += '_';
        seen.insert(f);
        out.push_back(f);
    }
    return out;
}

class Contract {
public:
    Contract(std::string name, const json& abi, std::string creation_code_hex)
        : name_(std::move(name)),
          ns_(snake(name_)),
          creation_code_hex_(std::move(creation_code_hex)) {
        for (const auto& j : abi) {
            const std::string kind = j.value("type", "function");
            if (kind == "constructor") constructor_inputs_ = parse_params(j, "inputs");
            if (kind != "function" && kind != "event" && kind != "error") continue;
            Item it;
            it.kind = kind;
            it.abi_name = j.at("name").get<std::string>();
            it.inputs = parse_params(j, "inputs");
            it.outputs = parse_params(j, "outputs");
            it.mutability = j.value("stateMutability", "");
            it.anonymous = j.value("anonymous", false);
            items_.push_back(std::move(it));
        }
        name_overloads();
        for (const auto& it : items_) {
            if (it.kind == "function" &&
                (it.ident == "constructor_args" || it.ident == "init_code" || it.ident == "call"))
                fatal(name_ + ": function name clashes with the generated " + it.ident);
        }
        if (!creation_code_hex_.empty() && !credence::core::from_prefixed_hex(creation_code_hex_))
            fatal(name_ + ": creation bytecode is not 0x-prefixed hex");
        abi_text_ = abi.dump();
        if (abi_text_.find(")abi\"") != std::string::npos)
            fatal(name_ + ": ABI text ends raw string");
        check_with_core();
    }

    [[nodiscard]] const std::string& ns() const { return ns_; }
    [[nodiscard]] const std::string& name() const { return name_; }

    std::string header();
    std::string source();

private:
    void write_call_helpers(std::ostringstream& s, const Item& it);

    void name_overloads() {
        for (const char* kind : {"function", "event", "error"}) {
            std::map<std::string, std::vector<Item*>> groups;
            for (auto& it : items_) {
                if (it.kind == kind) groups[it.abi_name].push_back(&it);
            }
            for (auto& [abi_name, group] : groups) {
                std::map<size_t, int> arity_count;
                for (const Item* it : group) ++arity_count[it->inputs.size()];
                for (Item* it : group) {
                    std::string base =
                        std::string(kind) == "error" ? it->abi_name : snake(abi_name);
                    if (group.size() == 1) {
                        it->ident = std::string(kind) == "error" ? base : identifier(abi_name, "f");
                    } else if (arity_count[it->inputs.size()] == 1) {
                        it->ident = base + "_" + std::to_string(it->inputs.size());
                    } else {
                        std::string mangled;
                        for (const char c : type_list(it->inputs)) {
                            mangled += std::isalnum(static_cast<unsigned char>(c)) != 0 ? c : '_';
                        }
                        it->ident = base + mangled;
                        while (it->ident.find("__") != std::string::npos) {
                            it->ident.replace(it->ident.find("__"), 2, "_");
                        }
                        while (it->ident.back() == '_') it->ident.pop_back();
                    }
                }
            }
        }
    }

    // The generated code re-parses these strings with core at run time: make sure it can.
    void check_with_core() const {
        auto doc = credence::core::parse_json_abi(abi_text_);
        if (!doc) fatal(name_ + ": core::parse_json_abi failed: " + doc.error().detail);
        for (const auto& it : items_) {
            if (!credence::core::parse_type_list(type_list(it.inputs))) {
                fatal(name_ + ": bad input types of " + it.abi_name);
            }
            if (!credence::core::parse_type_list(type_list(it.outputs))) {
                fatal(name_ + ": bad output types of " + it.abi_name);
            }
            if (it.kind == "event" && !credence::core::parse_event_signature(event_spec(it))) {
                fatal(name_ + ": bad event " + event_spec(it));
            }
        }
        if (!credence::core::parse_type_list(type_list(constructor_inputs_))) {
            fatal(name_ + ": bad constructor types");
        }
    }

    // "(const core::Address& owner, uint64_t n)" for the constructor's inputs.
    std::string constructor_params() {
        const auto names = field_names(constructor_inputs_, "arg");
        std::string out = "(";
        for (size_t i = 0; i < constructor_inputs_.size(); ++i) {
            if (i != 0) out += ", ";
            out += param_type(constructor_inputs_[i]);
            out += ' ';
            out += names[i];
        }
        return out + ")";
    }
    // "(owner, n)": the same names, as call arguments.
    std::string constructor_call_args() const {
        const auto names = field_names(constructor_inputs_, "arg");
        std::string out = "(";
        for (size_t i = 0; i < names.size(); ++i) {
            if (i != 0) out += ", ";
            out += names[i];
        }
        return out + ")";
    }

    // Input names of a call helper: the builder's, moved aside where they would shadow the
    // helper's own `caller` and `contract` parameters.
    static std::vector<std::string> call_arg_names(const Item& it) {
        auto names = field_names(it.inputs, "arg");
        for (auto& n : names) {
            while (n == "caller" || n == "contract" ||
                   std::count(names.begin(), names.end(), n) > 1)
                n += '_';
        }
        return names;
    }
    // "(Caller& caller, const core::Address& contract, const core::Uint256& agent_id)".
    std::string call_params(const Item& it) {
        const auto names = call_arg_names(it);
        std::string out = "(Caller& caller, const core::Address& contract";
        for (size_t i = 0; i < it.inputs.size(); ++i) {
            out += ", ";
            out += param_type(it.inputs[i]);
            out += ' ';
            out += names[i];
        }
        return out + ")";
    }
    // The C++ type a function's return data decodes to.
    std::string result_type(const Item& it) {
        return it.outputs.size() == 1 ? cpp_type(it.outputs[0]) : camel(it.ident) + "Result";
    }

    static std::string event_spec(const Item& it) {
        std::string out = it.abi_name + "(";
        for (size_t i = 0; i < it.inputs.size(); ++i) {
            if (i != 0) out += ',';
            out += it.inputs[i].canonical();
            if (it.inputs[i].indexed) out += " indexed";
        }
        out += ")";
        if (it.anonymous) out += " anonymous";
        return out;
    }

    // Registers the struct for a tuple parameter (its components first, so that structs are
    // declared before use) and returns its C++ name.
    std::string struct_for(const Param& p) {
        std::vector<std::pair<std::string, std::string>> fields;
        const auto names = field_names(p.components, "field");
        fields.reserve(p.components.size());
        for (size_t i = 0; i < p.components.size(); ++i) {
            fields.emplace_back(cpp_type(p.components[i]), names[i]);
        }
        Param bare = p;
        bare.type = "tuple";
        const std::string canonical = bare.canonical();
        std::string qualified = p.internal_type;
        if (qualified.starts_with("struct ")) qualified = qualified.substr(7);
        qualified = qualified.substr(0, qualified.find('['));
        std::string name = qualified.substr(qualified.rfind('.') + 1);
        if (name.empty()) name = "Tuple";
        for (int attempt = 0;; ++attempt) {
            std::string candidate = name;
            if (attempt == 1) {
                candidate.clear();
                for (const char c : qualified) {
                    if (c != '.') candidate += c;
                }
            } else if (attempt > 1) {
                candidate = name + std::to_string(attempt);
            }
            auto found = std::find_if(structs_.begin(), structs_.end(),
                                      [&](const Struct& s) { return s.name == candidate; });
            if (found == structs_.end()) {
                structs_.push_back({candidate, canonical, std::move(fields)});
                return candidate;
            }
            if (found->canonical == canonical && found->fields == fields) return candidate;
        }
    }

    std::string cpp_base(const Param& p) {
        const std::string b = p.base();
        if (b.starts_with("uint") || b.starts_with("int")) {
            const bool is_signed = b.starts_with("int");
            const std::string digits = b.substr(is_signed ? 3 : 4);
            const int bits = digits.empty() ? 256 : std::stoi(digits);
            if (bits <= 64) return is_signed ? "int64_t" : "uint64_t";
            return is_signed ? "core::Int256" : "core::Uint256";
        }
        if (b == "address") return "core::Address";
        if (b == "bool") return "bool";
        if (b == "bytes32") return "core::Hash32";
        if (b == "bytes") return "core::Bytes";
        if (b.starts_with("bytes")) return "std::array<uint8_t, " + b.substr(5) + ">";
        if (b == "string") return "std::string";
        if (b == "tuple") return struct_for(p);
        fatal("unsupported type " + p.type);
    }

    std::string cpp_type(const Param& p) {
        std::string t = cpp_base(p);
        for (const auto& d : p.dims()) {
            std::string wrapped = d.empty() ? "std::vector<" : "std::array<";
            wrapped += t;
            wrapped += d.empty() ? std::string(">") : ", " + d + ">";
            t = std::move(wrapped);
        }
        return t;
    }

    // The type a builder takes the parameter as: views for strings, bytes and dynamic arrays.
    std::string param_type(const Param& p) {
        auto dims = p.dims();
        if (!dims.empty() && dims.back().empty()) {
            Param inner = p;
            inner.type = p.type.substr(0, p.type.rfind('['));
            return "std::span<const " + cpp_type(inner) + ">";
        }
        std::string t = cpp_type(p);
        if (t == "std::string") return "std::string_view";
        if (t == "core::Bytes") return "core::ByteView";
        if (t == "uint64_t" || t == "int64_t" || t == "bool") return t;
        return "const " + t + "&";
    }

    std::string event_field_type(const Param& p) {
        const bool value_type =
            p.dims().empty() && p.base() != "tuple" && p.base() != "string" && p.base() != "bytes";
        // Solidity ABI spec §Events: indexed dynamic values are stored as keccak256 of their
        // encoding; only the hash can be recovered.
        if (p.indexed && !value_type) return "core::Hash32";
        return cpp_type(p);
    }

    std::string name_;
    std::string ns_;
    std::string creation_code_hex_;  // "0x..." or empty when there is no bytecode snapshot
    std::vector<Param> constructor_inputs_;
    std::vector<Item> items_;
    std::vector<Struct> structs_;
    std::string abi_text_;
};

std::string Contract::header() {
    // Decide every type first: that registers the structs in dependency order.
    std::ostringstream decls;
    std::ostringstream consts;
    std::ostringstream calls;
    std::set<std::string> call_names;
    for (const auto& it : items_) {
        if (it.kind == "function") {
            const auto sel = credence::core::selector_of(it.signature());
            const std::string c = camel(it.ident);
            consts << "/// " << it.signature() << "\ninline constexpr core::Selector k" << c
                   << "Selector{" << hex_bytes(sel.data(), sel.size()) << "};\n";
            decls << "\n/// Calldata of " << it.signature() << " (" << it.mutability << ").\n"
                  << "[[nodiscard]] core::Result<core::Bytes, core::AbiError> " << it.ident << "(";
            const auto names = field_names(it.inputs, "arg");
            for (size_t i = 0; i < it.inputs.size(); ++i) {
                decls << (i != 0 ? ", " : "") << param_type(it.inputs[i]) << " " << names[i];
            }
            decls << ");\n";
            if (!it.outputs.empty()) {
                std::string result;
                if (it.outputs.size() == 1) {
                    result = cpp_type(it.outputs[0]);
                } else {
                    result = c + "Result";
                    const auto out_names = field_names(it.outputs, "value");
                    std::vector<std::pair<std::string, std::string>> fields;
                    fields.reserve(it.outputs.size());
                    for (size_t i = 0; i < it.outputs.size(); ++i) {
                        fields.emplace_back(cpp_type(it.outputs[i]), out_names[i]);
                    }
                    structs_.push_back({result, "", std::move(fields)});
                }
                decls << "/// Return data of " << it.signature() << " -> " << type_list(it.outputs)
                      << ".\n"
                      << "[[nodiscard]] core::Result<" << result << ", core::AbiError> decode_"
                      << it.ident << "_result(core::ByteView data);\n";
                for (const std::string& name : {it.ident, it.ident + "_answer"}) {
                    if (!call_names.insert(name).second)
                        fatal(name_ + ": two call helpers are named call::" + name);
                }
                calls << "\n/// " << it.signature()
                      << " through `caller`: encode, eth_call, decode.\n"
                      << "[[nodiscard]] CallResult<" << result << "> " << it.ident
                      << call_params(it) << ";\n"
                      << "/// The answer of an eth_call of " << it.signature()
                      << " sent elsewhere (a JSON-RPC batch),\n/// decoded; a failure is named.\n"
                      << "[[nodiscard]] CallResult<" << result << "> " << it.ident
                      << "_answer(CallResult<core::Bytes> answer);\n";
            }
        } else if (it.kind == "event") {
            const std::string sig = it.signature();
            const auto topic = credence::core::keccak256(
                credence::core::ByteView(reinterpret_cast<const uint8_t*>(sig.data()), sig.size()));
            const std::string c = camel(it.ident);
            consts << "/// topic0 of " << sig << "\ninline constexpr core::Hash32 k" << c
                   << "Topic{" << hex_bytes(topic.data(), topic.size()) << "};\n";
            const auto names = field_names(it.inputs, "value");
            std::vector<std::pair<std::string, std::string>> fields;
            fields.reserve(it.inputs.size());
            for (size_t i = 0; i < it.inputs.size(); ++i) {
                fields.emplace_back(event_field_type(it.inputs[i]), names[i]);
            }
            structs_.push_back({c + "Event", "", std::move(fields)});
            decls << "\n/// Decodes a " << event_spec(it)
                  << " log (checks topic0 and the topic count).\n"
                  << "[[nodiscard]] core::Result<" << c << "Event, core::AbiError> decode_"
                  << it.ident
                  << "_event(std::span<const core::Hash32> topics, core::ByteView data);\n";
        } else {
            const auto sel = credence::core::selector_of(it.signature());
            consts << "/// " << it.signature() << "\ninline constexpr core::Selector k" << it.ident
                   << "Error{" << hex_bytes(sel.data(), sel.size()) << "};\n";
        }
    }

    {
        const std::string ctor = "constructor" + type_list(constructor_inputs_);
        decls << "\n/// ABI-encoded arguments of " << ctor
              << " (empty when there are none),\n/// to append to the creation code.\n"
              << "[[nodiscard]] core::Result<core::Bytes, core::AbiError> constructor_args"
              << constructor_params() << ";\n";
        if (!creation_code_hex_.empty()) {
            consts << "/// Creation bytecode, from contracts/bytecode/" << name_
                   << ".hex (scripts/export-abis.sh).\n"
                   << "inline constexpr std::string_view kCreationCodeHex = \""
                   << creation_code_hex_ << "\";\n";
            decls << "\n/// Init code of a deployment: kCreationCodeHex ++ constructor_args(...).\n"
                  << "[[nodiscard]] core::Result<core::Bytes, core::AbiError> init_code"
                  << constructor_params() << ";\n";
        }
    }

    std::ostringstream h;
    h << "// Generated by tools/gen_bindings.cpp from contracts/abi/" << name_
      << ".json. Do not edit.\n//\n"
      << "// Typed bindings of " << name_
      << ": calldata builders, return-data and event decoders, call helpers (namespace\n"
      << "// call), selector, topic and custom-error tables, and the JSON ABI text. Type mapping "
         "and naming\n"
      << "// rules: credence/chain/bindings/support.hpp and tools/gen_bindings.cpp. Builders fail "
         "(AbiError)\n"
      << "// only when an integer argument is out of range of its Solidity type. Everything here "
         "is pure and\n"
      << "// thread-safe, except that a call helper is as thread-safe as the Caller it is "
         "given.\n"
      << "#pragma once\n\n#include <array>\n#include <cstdint>\n#include <span>\n#include "
         "<string>\n#include <string_view>\n#include <vector>\n\n"
      << "#include <credence/chain/bindings/support.hpp>\n\n"
      << "namespace credence::chain::bindings::" << ns_ << " {\n\n"
      << "inline constexpr std::string_view kContractName = \"" << name_ << "\";\n"
      << "/// The contract's JSON ABI (feed to core::parse_json_abi, e.g. to decode reverts).\n"
      << "inline constexpr std::string_view kAbiJson = R\"abi(" << abi_text_ << ")abi\";\n\n";
    for (const auto& s : structs_) {
        h << "struct " << s.name << " {\n";
        for (const auto& [type, field] : s.fields) {
            const char* init = type == "bool"                              ? " = false"
                               : (type == "uint64_t" || type == "int64_t") ? " = 0"
                                                                           : "{}";
            h << "    " << type << " " << field << init << ";\n";
        }
        h << "\n    friend bool operator==(const " << s.name << "&, const " << s.name
          << "&) = default;\n};\n";
        if (!s.canonical.empty()) {
            h << "/// The struct as its ABI tuple " << s.canonical << ".\n"
              << "[[nodiscard]] core::AbiValue to_abi(const " << s.name << "& v);\n"
              << "[[nodiscard]] bool from_abi(const core::AbiValue& in, " << s.name << "& out);\n";
        }
        h << "\n";
    }
    h << consts.str() << decls.str() << "\n";
    if (!call_names.empty())
        h << "namespace call {\n" << calls.str() << "\n}  // namespace call\n\n";

    auto table = [&](const char* kind, const char* type, const char* suffix, const char* tname) {
        std::vector<const Item*> rows;
        for (const auto& it : items_) {
            if (it.kind == kind) rows.push_back(&it);
        }
        h << "inline constexpr std::array<" << type << ", " << rows.size() << "> " << tname
          << "{{\n";
        for (const Item* it : rows) {
            const std::string c = std::string(kind) == "error" ? it->ident : camel(it->ident);
            h << "    {k" << c << suffix << ", " << quote(it->signature()) << "},\n";
        }
        h << "}};\n";
    };
    table("function", "FunctionInfo", "Selector", "kFunctions");
    table("event", "EventInfo", "Topic", "kEvents");
    table("error", "ErrorInfo", "Error", "kErrors");
    h << "\n}  // namespace credence::chain::bindings::" << ns_ << "\n";
    return h.str();
}

// call::<f> runs the builder through the caller and hands the answer to call::<f>_answer, which
// decodes it: one decoding path for a single call and for an answer read from a batch.
void Contract::write_call_helpers(std::ostringstream& s, const Item& it) {
    const std::string result = result_type(it);
    const std::string sig = quote(it.signature());
    const std::string qualified = "::credence::chain::bindings::" + ns_ + "::";
    const auto names = call_arg_names(it);
    s << "CallResult<" << result << "> " << it.ident << call_params(it) << " {\n"
      << "    return " << it.ident << "_answer(detail::call_function(caller, contract, " << sig
      << ", " << qualified << it.ident << "(";
    for (size_t i = 0; i < names.size(); ++i) s << (i != 0 ? ", " : "") << names[i];
    s << ")));\n}\n\n"
      << "CallResult<" << result << "> " << it.ident
      << "_answer(CallResult<core::Bytes> answer) {\n"
      << "    auto data = detail::name_answer(std::move(answer), " << sig << ");\n"
      << "    if (!data) return std::unexpected(std::move(data.error()));\n"
      << "    auto value = " << qualified << "decode_" << it.ident << "_result(*data);\n"
      << "    if (!value) return detail::bad_answer(" << sig << ", value.error());\n"
      << "    return std::move(*value);\n}\n\n";
}

std::string Contract::source() {
    std::ostringstream s;
    s << "// Generated by tools/gen_bindings.cpp from contracts/abi/" << name_
      << ".json. Do not edit.\n"
      << "#include <credence/chain/bindings/" << ns_ << ".hpp>\n\n"
      << "#include <cstdlib>\n#include <utility>\n\n#include <credence/core/abi_event.hpp>\n\n"
      << "namespace credence::chain::bindings::" << ns_ << " {\n\n"
      << "using ::credence::chain::bindings::detail::from_abi;\n"
      << "using ::credence::chain::bindings::detail::to_abi;\n\n";
    std::ostringstream calls;
    for (const auto& st : structs_) {
        if (st.canonical.empty()) continue;
        s << "core::AbiValue to_abi(const " << st.name << "& v) {\n"
          << "    core::AbiValue::List list;\n    list.reserve(" << st.fields.size() << ");\n";
        for (const auto& f : st.fields) s << "    list.push_back(to_abi(v." << f.second << "));\n";
        s << "    return list;\n}\n\n"
          << "bool from_abi(const core::AbiValue& in, " << st.name << "& out) {\n"
          << "    const auto* list = in.as_list();\n"
          << "    return list != nullptr && list->size() == " << st.fields.size();
        for (size_t i = 0; i < st.fields.size(); ++i) {
            s << " &&\n           from_abi((*list)[" << i << "], out." << st.fields[i].second
              << ")";
        }
        s << ";\n}\n\n";
    }
    for (const auto& it : items_) {
        if (it.kind == "function") {
            const std::string c = camel(it.ident);
            const auto names = field_names(it.inputs, "arg");
            s << "core::Result<core::Bytes, core::AbiError> " << it.ident << "(";
            for (size_t i = 0; i < it.inputs.size(); ++i) {
                s << (i != 0 ? ", " : "") << param_type(it.inputs[i]) << " " << names[i];
            }
            s << ") {\n";
            if (it.inputs.empty()) {
                s << "    return core::Bytes(k" << c << "Selector.begin(), k" << c
                  << "Selector.end());\n}\n\n";
            } else {
                s << "    static const auto kTypes = detail::parse_types_or_die(\""
                  << type_list(it.inputs) << "\");\n"
                  << "    const std::array<core::AbiValue, " << it.inputs.size() << "> args{";
                for (size_t i = 0; i < names.size(); ++i) {
                    s << (i != 0 ? ", " : "") << "to_abi(" << names[i] << ")";
                }
                s << "};\n    return core::encode_call(k" << c << "Selector, kTypes, args);\n}\n\n";
            }
            if (!it.outputs.empty()) {
                const std::string result =
                    it.outputs.size() == 1 ? cpp_type(it.outputs[0]) : c + "Result";
                s << "core::Result<" << result << ", core::AbiError> decode_" << it.ident
                  << "_result(core::ByteView data) {\n"
                  << "    static const auto kTypes = detail::parse_types_or_die(\""
                  << type_list(it.outputs) << "\");\n"
                  << "    auto values = core::decode(kTypes, data);\n"
                  << "    if (!values) return std::unexpected(std::move(values.error()));\n"
                  << "    " << result << " out{};\n";
                if (it.outputs.size() == 1) {
                    s << "    if (!from_abi((*values)[0], out)) {\n";
                } else {
                    const auto out_names = field_names(it.outputs, "value");
                    s << "    if (";
                    for (size_t i = 0; i < out_names.size(); ++i) {
                        s << (i != 0 ? " ||\n        " : "") << "!from_abi((*values)[" << i
                          << "], out." << out_names[i] << ")";
                    }
                    s << ") {\n";
                }
                s << "        return std::unexpected(detail::shape_error(\"" << result
                  << "\"));\n    }\n    return out;\n}\n\n";
                write_call_helpers(calls, it);
            }
        } else if (it.kind == "event") {
            const std::string c = camel(it.ident);
            const auto names = field_names(it.inputs, "value");
            s << "core::Result<" << c << "Event, core::AbiError> decode_" << it.ident
              << "_event(std::span<const core::Hash32> topics, core::ByteView data) {\n"
              << "    static const core::LogDecoder kDecoder(detail::parse_event_or_die(\""
              << event_spec(it) << "\"));\n"
              << "    auto values = kDecoder.decode(topics, data);\n"
              << "    if (!values) return std::unexpected(std::move(values.error()));\n"
              << "    " << c << "Event out{};\n";
            if (!names.empty()) {
                s << "    if (";
                for (size_t i = 0; i < names.size(); ++i) {
                    s << (i != 0 ? " ||\n        " : "") << "!from_abi((*values)[" << i
                      << "].value, out." << names[i] << ")";
                }
                s << ") {\n        return std::unexpected(detail::shape_error(\"" << c
                  << "Event\"));\n    }\n";
            }
            s << "    return out;\n}\n\n";
        }
    }
    if (!calls.str().empty())
        s << "namespace call {\n\n" << calls.str() << "}  // namespace call\n\n";
    s << "core::Result<core::Bytes, core::AbiError> constructor_args" << constructor_params()
      << " {\n";
    if (constructor_inputs_.empty()) {
        s << "    return core::Bytes{};\n}\n\n";
    } else {
        const auto names = field_names(constructor_inputs_, "arg");
        s << "    static const auto kTypes = detail::parse_types_or_die(\""
          << type_list(constructor_inputs_) << "\");\n"
          << "    const std::array<core::AbiValue, " << names.size() << "> args{";
        for (size_t i = 0; i < names.size(); ++i) {
            s << (i != 0 ? ", " : "") << "to_abi(" << names[i] << ")";
        }
        s << "};\n    return core::encode(kTypes, args);\n}\n\n";
    }
    if (!creation_code_hex_.empty()) {
        s << "core::Result<core::Bytes, core::AbiError> init_code" << constructor_params() << " {\n"
          << "    auto args = constructor_args" << constructor_call_args() << ";\n"
          << "    if (!args) return std::unexpected(std::move(args.error()));\n"
          << "    // Checked by the generator: the snapshot is valid 0x-prefixed hex.\n"
          << "    auto code = core::from_prefixed_hex(kCreationCodeHex);\n"
          << "    if (!code) std::abort();\n"
          << "    code->insert(code->end(), args->begin(), args->end());\n"
          << "    return std::move(*code);\n}\n\n";
    }
    s << "}  // namespace credence::chain::bindings::" << ns_ << "\n";
    return s.str();
}

void write_if_changed(const fs::path& path, const std::string& text) {
    std::ifstream in(path, std::ios::binary);
    if (in) {
        std::ostringstream old;
        old << in.rdbuf();
        if (old.str() == text) return;
    }
    fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) fatal("cannot write " + path.string());
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: gen_bindings <out_dir> <Contract.json>...\n");
        return 2;
    }
    try {
        const fs::path dir = fs::path(argv[1]) / "credence" / "chain" / "bindings";
        std::vector<std::string> namespaces;
        std::vector<std::string> names;
        for (int i = 2; i < argc; ++i) {
            const fs::path path = argv[i];
            std::ifstream in(path);
            if (!in) fatal("cannot read " + path.string());
            // contracts/abi/<Name>.json -> contracts/bytecode/<Name>.hex, when snapshotted.
            std::string code_hex;
            const fs::path code_path =
                path.parent_path().parent_path() / "bytecode" / (path.stem().string() + ".hex");
            if (std::ifstream code_in(code_path); code_in) {
                std::getline(code_in, code_hex);
                if (code_hex.empty()) fatal("empty bytecode snapshot " + code_path.string());
            }
            Contract contract(path.stem().string(), json::parse(in), std::move(code_hex));
            write_if_changed(dir / (contract.ns() + ".hpp"), contract.header());
            write_if_changed(dir / (contract.ns() + ".cpp"), contract.source());
            namespaces.push_back(contract.ns());
            names.push_back(contract.name());
        }
        std::ostringstream h;
        h << "// Generated by tools/gen_bindings.cpp. Do not edit.\n//\n"
          << "// Every contract with bindings: its name, JSON ABI and selector tables, e.g. to "
             "name "
             "a revert's\n// custom error without knowing which contract raised it.\n"
          << "#pragma once\n\n#include <span>\n#include <string_view>\n\n"
          << "#include <credence/chain/bindings/support.hpp>\n\n"
          << "namespace credence::chain::bindings {\n\n"
          << "struct ContractInfo {\n    std::string_view name;\n    std::string_view abi_json;\n"
          << "    std::span<const FunctionInfo> functions;\n"
          << "    std::span<const EventInfo> events;\n    std::span<const ErrorInfo> "
             "errors;\n};\n\n"
          << "/// All " << names.size() << " contracts, in the order of contracts/abi/.\n"
          << "[[nodiscard]] std::span<const ContractInfo> all_contracts() noexcept;\n\n"
          << "/// Signature of the custom error with this selector in any contract, or empty.\n"
          << "[[nodiscard]] std::string_view find_any_error_signature("
             "const core::Selector& selector) noexcept;\n\n"
          << "}  // namespace credence::chain::bindings\n";
        std::ostringstream s;
        s << "// Generated by tools/gen_bindings.cpp. Do not edit.\n"
          << "#include <credence/chain/bindings/all.hpp>\n\n#include <array>\n\n";
        for (const auto& ns : namespaces)
            s << "#include <credence/chain/bindings/" << ns << ".hpp>\n";
        s << "\nnamespace credence::chain::bindings {\nnamespace {\n"
          << "const std::array<ContractInfo, " << names.size() << "> kContracts{{\n";
        for (const auto& ns : namespaces) {
            s << "    {" << ns << "::kContractName, " << ns << "::kAbiJson, " << ns
              << "::kFunctions, " << ns << "::kEvents, " << ns << "::kErrors},\n";
        }
        s << "}};\n}  // namespace\n\n"
          << "std::span<const ContractInfo> all_contracts() noexcept { return kContracts; }\n\n"
          << "std::string_view find_any_error_signature(const core::Selector& selector) noexcept "
             "{\n"
          << "    for (const auto& c : kContracts) {\n"
          << "        const auto sig = find_error_signature(c.errors, selector);\n"
          << "        if (!sig.empty()) return sig;\n    }\n    return {};\n}\n\n"
          << "}  // namespace credence::chain::bindings\n";
        write_if_changed(dir / "all.hpp", h.str());
        write_if_changed(dir / "all.cpp", s.str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gen_bindings: %s\n", e.what());
        return 1;
    }
    return 0;
}
