#include <credence/core/abi_json.hpp>

#include <nlohmann/json.hpp>

namespace credence::core {

using nlohmann::json;

namespace {

Result<std::string, AbiError> string_member(const json& obj, const char* key, bool required) {
    const auto it = obj.find(key);
    if (it == obj.end()) {
        if (required) return fail(AbiError::bad_json, std::string("missing \"") + key + "\"");
        return std::string();
    }
    if (!it->is_string())
        return fail(AbiError::bad_json, std::string("\"") + key + "\" is not a string");
    return it->get<std::string>();
}

/// Canonical type string of a JSON param, expanding "tuple" with its components.
Result<std::string, AbiError> type_string(const json& param, unsigned depth) {
    if (!param.is_object()) return fail(AbiError::bad_json, "param is not an object");
    if (depth > kMaxAbiDepth) return fail(AbiError::too_deep, "components nested too deeply");
    auto type = string_member(param, "type", true);
    if (!type) return type;
    if (!type->starts_with("tuple")) return type;
    // ABI spec §JSON: "tuple" plus optional array suffixes, with the members in "components".
    const auto comps = param.find("components");
    if (comps == param.end() || !comps->is_array())
        return fail(AbiError::bad_json, "tuple without \"components\"");
    std::string out = "(";
    for (size_t i = 0; i < comps->size(); ++i) {
        if (i != 0) out += ',';
        auto c = type_string((*comps)[i], depth + 1);
        if (!c) return c;
        out += *c;
    }
    out += ')';
    out += std::string_view(*type).substr(5);
    return out;
}

Result<std::vector<AbiParam>, AbiError> params(const json& item, const char* key,
                                               bool allow_indexed) {
    std::vector<AbiParam> out;
    const auto it = item.find(key);
    if (it == item.end()) return out;
    if (!it->is_array())
        return fail(AbiError::bad_json, std::string("\"") + key + "\" is not an array");
    for (const auto& p : *it) {
        auto ts = type_string(p, 0);
        if (!ts) return std::unexpected(std::move(ts.error()));
        auto type = parse_type(*ts);
        if (!type) return std::unexpected(std::move(type.error()));
        auto name = string_member(p, "name", false);
        if (!name) return std::unexpected(std::move(name.error()));
        bool indexed = false;
        if (const auto ix = p.find("indexed"); ix != p.end()) {
            if (!ix->is_boolean()) return fail(AbiError::bad_json, "\"indexed\" is not a boolean");
            indexed = ix->get<bool>();
            if (indexed && !allow_indexed)
                return fail(AbiError::bad_json, "\"indexed\" outside an event");
        }
        out.push_back(AbiParam{std::move(*name), std::move(*type), indexed});
    }
    return out;
}

Result<void, AbiError> add_item(AbiDocument& doc, const json& item) {
    if (!item.is_object()) return fail(AbiError::bad_json, "ABI item is not an object");
    auto kind = string_member(item, "type", false);
    if (!kind) return std::unexpected(std::move(kind.error()));
    if (kind->empty()) *kind = "function";
    if (*kind == "fallback" || *kind == "receive") return {};
    auto inputs = params(item, "inputs", *kind == "event");
    if (!inputs) return std::unexpected(std::move(inputs.error()));
    if (*kind == "constructor") {
        doc.constructor_inputs = std::move(*inputs);
        return {};
    }
    auto name = string_member(item, "name", true);
    if (!name) return std::unexpected(std::move(name.error()));
    if (*kind == "function") {
        auto outputs = params(item, "outputs", false);
        if (!outputs) return std::unexpected(std::move(outputs.error()));
        auto mutability = string_member(item, "stateMutability", false);
        if (!mutability) return std::unexpected(std::move(mutability.error()));
        doc.functions.push_back(AbiFunction{std::move(*name), std::move(*inputs),
                                            std::move(*outputs), std::move(*mutability)});
        return {};
    }
    if (*kind == "event") {
        bool anonymous = false;
        if (const auto a = item.find("anonymous"); a != item.end()) {
            if (!a->is_boolean()) return fail(AbiError::bad_json, "\"anonymous\" is not a boolean");
            anonymous = a->get<bool>();
        }
        doc.events.push_back(AbiEvent{std::move(*name), std::move(*inputs), anonymous});
        return {};
    }
    if (*kind == "error") {
        doc.errors.push_back(AbiCustomError{std::move(*name), std::move(*inputs)});
        return {};
    }
    return fail(AbiError::bad_json, "unknown ABI item type: " + *kind);
}

}  // namespace

const AbiFunction* AbiDocument::find_function(std::string_view name) const noexcept {
    for (const auto& f : functions)
        if (f.name == name) return &f;
    return nullptr;
}
const AbiEvent* AbiDocument::find_event(std::string_view name) const noexcept {
    for (const auto& e : events)
        if (e.name == name) return &e;
    return nullptr;
}
const AbiCustomError* AbiDocument::find_error(std::string_view name) const noexcept {
    for (const auto& e : errors)
        if (e.name == name) return &e;
    return nullptr;
}
const AbiFunction* AbiDocument::find_function(const Selector& selector) const {
    for (const auto& f : functions)
        if (f.selector() == selector) return &f;
    return nullptr;
}
const AbiEvent* AbiDocument::find_event(const Hash32& topic0) const {
    for (const auto& e : events)
        if (!e.anonymous && e.topic0() == topic0) return &e;
    return nullptr;
}
const AbiCustomError* AbiDocument::find_error(const Selector& selector) const {
    for (const auto& e : errors)
        if (e.selector() == selector) return &e;
    return nullptr;
}

Result<AbiDocument, AbiError> parse_json_abi(std::string_view json_text) {
    // No exceptions out of core: parse without throwing, then only checked accessors.
    json doc = json::parse(json_text, nullptr, false);
    if (doc.is_discarded()) return fail(AbiError::bad_json, "not valid JSON");
    const json* items = &doc;
    if (doc.is_object()) {
        const auto it = doc.find("abi");
        if (it == doc.end()) return fail(AbiError::bad_json, "object without an \"abi\" member");
        items = &*it;
    }
    if (!items->is_array()) return fail(AbiError::bad_json, "ABI is not an array");
    AbiDocument out;
    for (const auto& item : *items) {
        if (auto r = add_item(out, item); !r) return std::unexpected(std::move(r.error()));
    }
    return out;
}

}  // namespace credence::core
