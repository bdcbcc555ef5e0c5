#include <credence/core/abi_signature.hpp>

#include <credence/core/detail/abi_parser.hpp>
#include <credence/core/keccak.hpp>

namespace credence::core {

std::vector<AbiType> types_of(std::span<const AbiParam> params) {
    std::vector<AbiType> out;
    out.reserve(params.size());
    for (const auto& p : params) out.push_back(p.type);
    return out;
}

std::string canonical_signature(std::string_view name, std::span<const AbiParam> params) {
    std::string out(name);
    out += '(';
    for (size_t i = 0; i < params.size(); ++i) {
        if (i != 0) out += ',';
        params[i].type.append_canonical(out);
    }
    out += ')';
    return out;
}

Hash32 AbiEvent::topic0() const { return keccak256(signature()); }

namespace {

enum class ItemKind { function, event, error };

struct ParsedItem {
    std::string name;
    std::vector<AbiParam> inputs;
    std::vector<AbiParam> outputs;
    std::string state_mutability;
    bool anonymous = false;
};

Result<std::vector<AbiParam>, AbiError> params_at(detail::AbiCursor& cur, bool allow_indexed) {
    std::vector<std::string> names;
    std::vector<bool> indexed;
    auto types = detail::parse_list_at(cur, 0, &names, &indexed);
    if (!types) return std::unexpected(std::move(types.error()));
    std::vector<AbiParam> out;
    out.reserve(types->size());
    for (size_t i = 0; i < types->size(); ++i) {
        if (indexed[i] && !allow_indexed)
            return fail(AbiError::bad_signature, "'indexed' outside an event");
        out.push_back(AbiParam{std::move(names[i]), std::move((*types)[i]), indexed[i]});
    }
    return out;
}

Result<ParsedItem, AbiError> parse_item(std::string_view text, ItemKind kind) {
    static constexpr std::string_view kKeywords[] = {"function", "event", "error"};
    const std::string_view keyword = kKeywords[static_cast<int>(kind)];
    detail::AbiCursor cur{text, 0, true};
    ParsedItem item;
    cur.skip_space();
    std::string_view name = cur.identifier();
    if (name == keyword) {
        cur.skip_space();
        if (cur.peek() != '(') name = cur.identifier();
    }
    if (name.empty() && kind != ItemKind::function)
        return fail(AbiError::bad_signature, "missing name");
    item.name = name;
    cur.skip_space();
    if (cur.peek() != '(') return fail(AbiError::bad_signature, "expected '(' after the name");
    auto inputs = params_at(cur, kind == ItemKind::event);
    if (!inputs) return std::unexpected(std::move(inputs.error()));
    item.inputs = std::move(*inputs);

    bool have_outputs = false;
    for (;;) {
        cur.skip_space();
        if (cur.done()) break;
        if (cur.peek() == '(' && kind == ItemKind::function && !have_outputs) {
            // cast form: "f(uint256)(uint256,string)".
            auto outputs = params_at(cur, false);
            if (!outputs) return std::unexpected(std::move(outputs.error()));
            item.outputs = std::move(*outputs);
            have_outputs = true;
            continue;
        }
        const std::string_view word = cur.identifier();
        if (word.empty())
            return fail(AbiError::bad_signature,
                        "unexpected character at position " + std::to_string(cur.pos));
        if (kind == ItemKind::function) {
            if (word == "returns" && !have_outputs) {
                cur.skip_space();
                auto outputs = params_at(cur, false);
                if (!outputs) return std::unexpected(std::move(outputs.error()));
                item.outputs = std::move(*outputs);
                have_outputs = true;
            } else if (word == "pure" || word == "view" || word == "payable" ||
                       word == "nonpayable") {
                item.state_mutability = word;
            } else if (word != "external" && word != "public" && word != "virtual" &&
                       word != "override") {
                return fail(AbiError::bad_signature, "unexpected word: " + std::string(word));
            }
        } else if (kind == ItemKind::event && word == "anonymous") {
            item.anonymous = true;
        } else {
            return fail(AbiError::bad_signature, "unexpected word: " + std::string(word));
        }
    }
    return item;
}

}  // namespace

Result<AbiFunction, AbiError> parse_function_signature(std::string_view text) {
    auto item = parse_item(text, ItemKind::function);
    if (!item) return std::unexpected(std::move(item.error()));
    return AbiFunction{std::move(item->name), std::move(item->inputs), std::move(item->outputs),
                       std::move(item->state_mutability)};
}

Result<AbiEvent, AbiError> parse_event_signature(std::string_view text) {
    auto item = parse_item(text, ItemKind::event);
    if (!item) return std::unexpected(std::move(item.error()));
    return AbiEvent{std::move(item->name), std::move(item->inputs), item->anonymous};
}

Result<AbiCustomError, AbiError> parse_error_signature(std::string_view text) {
    auto item = parse_item(text, ItemKind::error);
    if (!item) return std::unexpected(std::move(item.error()));
    return AbiCustomError{std::move(item->name), std::move(item->inputs)};
}

}  // namespace credence::core
