#include <credence/graphql/parser.hpp>

#include <fmt/format.h>

#include <utility>

#include <credence/graphql/detail/lexer.hpp>

namespace credence::graphql {

namespace {

using detail::Token;
using detail::TokenKind;

class Parser {
public:
    Parser(std::string_view source, const ParseLimits& limits)
        : lexer_(source, limits), limits_(limits) {}

    Result<void> start() { return advance(); }

    Result<ast::Document> document() {
        ast::Document doc;
        if (tok_.kind == TokenKind::eof)
            return error("Syntax Error: a document needs at least one definition");
        while (tok_.kind != TokenKind::eof) {
            if (tok_.kind == TokenKind::brace_l) {
                ast::OperationDefinition op;
                op.loc = tok_.loc;
                auto set = selection_set();
                if (!set) return std::unexpected(std::move(set.error()));
                op.selection_set = std::move(*set);
                doc.operations.push_back(std::move(op));
            } else if (tok_.kind == TokenKind::name &&
                       (tok_.raw == "query" || tok_.raw == "mutation" ||
                        tok_.raw == "subscription")) {
                auto op = operation();
                if (!op) return std::unexpected(std::move(op.error()));
                doc.operations.push_back(std::move(*op));
            } else if (tok_.kind == TokenKind::name && tok_.raw == "fragment") {
                auto frag = fragment();
                if (!frag) return std::unexpected(std::move(frag.error()));
                doc.fragments.push_back(std::move(*frag));
            } else if (tok_.kind == TokenKind::name) {
                // GraphQL §5.1.1 Executable Definitions: type-system definitions are not
                // executable.
                return error(fmt::format(
                    "Syntax Error: unexpected {}; only operations and fragments are executable",
                    detail::describe(tok_)));
            } else {
                return unexpected();
            }
        }
        return doc;
    }

    Result<ast::Type> type_ref() {
        ast::Type type;
        type.loc = tok_.loc;
        if (tok_.kind == TokenKind::bracket_l) {
            if (auto r = enter(); !r) return std::unexpected(std::move(r.error()));
            if (auto r = advance(); !r) return std::unexpected(std::move(r.error()));
            auto inner = type_ref();
            if (!inner) return inner;
            type.of.push_back(std::move(*inner));
            if (auto r = expect(TokenKind::bracket_r); !r) return std::unexpected(r.error());
            --depth_;
        } else {
            auto name = expect_name();
            if (!name) return std::unexpected(std::move(name.error()));
            type.name = std::move(*name);
        }
        if (tok_.kind == TokenKind::bang) {
            type.non_null = true;
            if (auto r = advance(); !r) return std::unexpected(std::move(r.error()));
        }
        return type;
    }

    Result<ast::Value> value(bool is_const) {
        ast::Value v;
        v.loc = tok_.loc;
        switch (tok_.kind) {
            case TokenKind::dollar: {
                if (is_const) return error("Syntax Error: a variable is not allowed in a constant");
                if (auto r = advance(); !r) return std::unexpected(std::move(r.error()));
                auto name = expect_name();
                if (!name) return std::unexpected(std::move(name.error()));
                v.kind = ast::Value::Kind::variable;
                v.text = std::move(*name);
                return v;
            }
            case TokenKind::int_value:
            case TokenKind::float_value:
                v.kind = tok_.kind == TokenKind::int_value ? ast::Value::Kind::int_value
                                                           : ast::Value::Kind::float_value;
                v.text = std::string(tok_.raw);
                break;
            case TokenKind::string:
            case TokenKind::block_string:
                v.kind = ast::Value::Kind::string;
                v.text = std::move(tok_.value);
                break;
            case TokenKind::name:
                if (tok_.raw == "true" || tok_.raw == "false") {
                    v.kind = ast::Value::Kind::boolean;
                    v.boolean = tok_.raw == "true";
                } else if (tok_.raw == "null") {
                    v.kind = ast::Value::Kind::null;
                } else {
                    v.kind = ast::Value::Kind::enum_value;
                    v.text = std::string(tok_.raw);
                }
                break;
            case TokenKind::bracket_l: {
                if (auto r = enter(); !r) return std::unexpected(std::move(r.error()));
                if (auto r = advance(); !r) return std::unexpected(std::move(r.error()));
                v.kind = ast::Value::Kind::list;
                while (tok_.kind != TokenKind::bracket_r) {
                    if (tok_.kind == TokenKind::eof) return unexpected();
                    auto item = value(is_const);
                    if (!item) return item;
                    v.list.push_back(std::move(*item));
                }
                --depth_;
                break;
            }
            case TokenKind::brace_l: {
                if (auto r = enter(); !r) return std::unexpected(std::move(r.error()));
                if (auto r = advance(); !r) return std::unexpected(std::move(r.error()));
                v.kind = ast::Value::Kind::object;
                while (tok_.kind != TokenKind::brace_r) {
                    ast::ObjectField field;
                    field.loc = tok_.loc;
                    auto name = expect_name();
                    if (!name) return std::unexpected(std::move(name.error()));
                    field.name = std::move(*name);
                    if (auto r = expect(TokenKind::colon); !r) return std::unexpected(r.error());
                    auto item = value(is_const);
                    if (!item) return item;
                    field.value = std::move(*item);
                    v.fields.push_back(std::move(field));
                }
                --depth_;
                break;
            }
            default:
                return unexpected();
        }
        if (auto r = advance(); !r) return std::unexpected(std::move(r.error()));
        return v;
    }

    [[nodiscard]] bool at_eof() const { return tok_.kind == TokenKind::eof; }
    Result<void> unexpected_void() {
        auto r = unexpected();
        return std::unexpected(std::move(r.error()));
    }

private:
    Result<void> advance() {
        auto t = lexer_.next();
        if (!t) return std::unexpected(std::move(t.error()));
        tok_ = std::move(*t);
        return {};
    }

    // One more level of nesting; the caller decrements depth_ when the level closes.
    Result<void> enter() {
        if (++depth_ > limits_.max_depth)
            return fail(ErrorKind::limit,
                        fmt::format("document nests deeper than {} levels", limits_.max_depth),
                        {tok_.loc});
        return {};
    }

    std::unexpected<GraphqlError> error(std::string message) const {
        return fail(ErrorKind::syntax, std::move(message), {tok_.loc});
    }
    std::unexpected<GraphqlError> unexpected() const {
        return error(fmt::format("Syntax Error: unexpected {}", detail::describe(tok_)));
    }

    Result<void> expect(TokenKind kind) {
        if (tok_.kind != kind) return unexpected();
        return advance();
    }

    Result<std::string> expect_name() {
        if (tok_.kind != TokenKind::name) {
            return error(
                fmt::format("Syntax Error: expected Name, found {}", detail::describe(tok_)));
        }
        std::string name(tok_.raw);
        if (auto r = advance(); !r) return std::unexpected(std::move(r.error()));
        return name;
    }

    Result<ast::OperationDefinition> operation() {
        ast::OperationDefinition op;
        op.loc = tok_.loc;
        op.kind = tok_.raw == "query"      ? ast::OperationDefinition::Kind::query
                  : tok_.raw == "mutation" ? ast::OperationDefinition::Kind::mutation
                                           : ast::OperationDefinition::Kind::subscription;
        if (auto r = advance(); !r) return std::unexpected(std::move(r.error()));
        if (tok_.kind == TokenKind::name) {
            op.name = std::string(tok_.raw);
            if (auto r = advance(); !r) return std::unexpected(std::move(r.error()));
        }
        if (tok_.kind == TokenKind::paren_l) {
            if (auto r = advance(); !r) return std::unexpected(std::move(r.error()));
            if (tok_.kind == TokenKind::paren_r)
                return error("Syntax Error: a variable list needs at least one variable");
            while (tok_.kind != TokenKind::paren_r) {
                ast::VariableDefinition var;
                var.loc = tok_.loc;
                if (auto r = expect(TokenKind::dollar); !r) return std::unexpected(r.error());
                auto name = expect_name();
                if (!name) return std::unexpected(std::move(name.error()));
                var.name = std::move(*name);
                if (auto r = expect(TokenKind::colon); !r) return std::unexpected(r.error());
                auto type = type_ref();
                if (!type) return std::unexpected(std::move(type.error()));
                var.type = std::move(*type);
                if (tok_.kind == TokenKind::equals) {
                    if (auto r = advance(); !r) return std::unexpected(std::move(r.error()));
                    auto def = value(true);
                    if (!def) return std::unexpected(std::move(def.error()));
                    var.default_value = std::move(*def);
                }
                if (auto r = directives(var.directives, true); !r)
                    return std::unexpected(r.error());
                op.variables.push_back(std::move(var));
            }
            if (auto r = advance(); !r) return std::unexpected(std::move(r.error()));
        }
        if (auto r = directives(op.directives, false); !r) return std::unexpected(r.error());
        auto set = selection_set();
        if (!set) return std::unexpected(std::move(set.error()));
        op.selection_set = std::move(*set);
        return op;
    }

    Result<ast::FragmentDefinition> fragment() {
        ast::FragmentDefinition frag;
        frag.loc = tok_.loc;
        if (auto r = advance(); !r) return std::unexpected(std::move(r.error()));
        // GraphQL §2.8 FragmentName: Name but not `on`.
        if (tok_.kind == TokenKind::name && tok_.raw == "on") return unexpected();
        auto name = expect_name();
        if (!name) return std::unexpected(std::move(name.error()));
        frag.name = std::move(*name);
        if (tok_.kind != TokenKind::name || tok_.raw != "on") return unexpected();
        if (auto r = advance(); !r) return std::unexpected(std::move(r.error()));
        auto cond = expect_name();
        if (!cond) return std::unexpected(std::move(cond.error()));
        frag.type_condition = std::move(*cond);
        if (auto r = directives(frag.directives, false); !r) return std::unexpected(r.error());
        auto set = selection_set();
        if (!set) return std::unexpected(std::move(set.error()));
        frag.selection_set = std::move(*set);
        return frag;
    }

    Result<void> directives(std::vector<ast::Directive>& out, bool is_const) {
        while (tok_.kind == TokenKind::at) {
            ast::Directive d;
            d.loc = tok_.loc;
            if (auto r = advance(); !r) return r;
            auto name = expect_name();
            if (!name) return std::unexpected(std::move(name.error()));
            d.name = std::move(*name);
            if (auto r = arguments(d.arguments, is_const); !r) return r;
            out.push_back(std::move(d));
        }
        return {};
    }

    Result<void> arguments(std::vector<ast::Argument>& out, bool is_const) {
        if (tok_.kind != TokenKind::paren_l) return {};
        if (auto r = advance(); !r) return r;
        if (tok_.kind == TokenKind::paren_r)
            return error("Syntax Error: an argument list needs at least one argument");
        while (tok_.kind != TokenKind::paren_r) {
            ast::Argument arg;
            arg.loc = tok_.loc;
            auto name = expect_name();
            if (!name) return std::unexpected(std::move(name.error()));
            arg.name = std::move(*name);
            if (auto r = expect(TokenKind::colon); !r) return r;
            auto v = value(is_const);
            if (!v) return std::unexpected(std::move(v.error()));
            arg.value = std::move(*v);
            out.push_back(std::move(arg));
        }
        return advance();
    }

    Result<ast::SelectionSet> selection_set() {
        ast::SelectionSet set;
        set.loc = tok_.loc;
        if (tok_.kind != TokenKind::brace_l) return unexpected();
        if (auto r = enter(); !r) return std::unexpected(std::move(r.error()));
        if (auto r = advance(); !r) return std::unexpected(std::move(r.error()));
        if (tok_.kind == TokenKind::brace_r)
            return error("Syntax Error: a selection set needs at least one selection");
        while (tok_.kind != TokenKind::brace_r) {
            auto sel = selection();
            if (!sel) return std::unexpected(std::move(sel.error()));
            set.selections.push_back(std::move(*sel));
        }
        --depth_;
        if (auto r = advance(); !r) return std::unexpected(std::move(r.error()));
        return set;
    }

    Result<ast::Selection> selection() {
        ast::Selection sel;
        sel.loc = tok_.loc;
        if (tok_.kind == TokenKind::spread) {
            if (auto r = advance(); !r) return std::unexpected(std::move(r.error()));
            if (tok_.kind == TokenKind::name && tok_.raw != "on") {
                sel.kind = ast::Selection::Kind::fragment_spread;
                sel.name = std::string(tok_.raw);
                if (auto r = advance(); !r) return std::unexpected(std::move(r.error()));
                if (auto r = directives(sel.directives, false); !r)
                    return std::unexpected(r.error());
                return sel;
            }
            sel.kind = ast::Selection::Kind::inline_fragment;
            if (tok_.kind == TokenKind::name) {  // `on`
                if (auto r = advance(); !r) return std::unexpected(std::move(r.error()));
                auto cond = expect_name();
                if (!cond) return std::unexpected(std::move(cond.error()));
                sel.type_condition = std::move(*cond);
            }
            if (auto r = directives(sel.directives, false); !r) return std::unexpected(r.error());
            auto set = selection_set();
            if (!set) return std::unexpected(std::move(set.error()));
            sel.selection_set = std::move(*set);
            return sel;
        }
        if (++fields_ > limits_.max_fields)
            return fail(ErrorKind::limit,
                        fmt::format("document selects more than {} fields", limits_.max_fields),
                        {tok_.loc});
        auto name = expect_name();
        if (!name) return std::unexpected(std::move(name.error()));
        if (tok_.kind == TokenKind::colon) {
            if (auto r = advance(); !r) return std::unexpected(std::move(r.error()));
            auto real = expect_name();
            if (!real) return std::unexpected(std::move(real.error()));
            sel.alias = std::move(*name);
            sel.name = std::move(*real);
        } else {
            sel.name = std::move(*name);
        }
        if (auto r = arguments(sel.arguments, false); !r) return std::unexpected(r.error());
        if (auto r = directives(sel.directives, false); !r) return std::unexpected(r.error());
        if (tok_.kind == TokenKind::brace_l) {
            auto set = selection_set();
            if (!set) return std::unexpected(std::move(set.error()));
            sel.selection_set = std::move(*set);
        }
        return sel;
    }

    detail::Lexer lexer_;
    const ParseLimits& limits_;
    Token tok_;
    std::size_t depth_ = 0;
    std::size_t fields_ = 0;
};

Result<void> check_source(std::string_view source, const ParseLimits& limits) {
    if (source.size() > limits.max_document_bytes)
        return fail(ErrorKind::limit,
                    fmt::format("document is larger than {} bytes", limits.max_document_bytes),
                    {{1, 1}});
    if (!detail::is_valid_utf8(source))
        return fail(ErrorKind::syntax, "Syntax Error: the document is not valid UTF-8", {{1, 1}});
    return {};
}

template <typename T, typename F>
Result<T> parse_whole(std::string_view source, const ParseLimits& limits, F&& body) {
    if (auto r = check_source(source, limits); !r) return std::unexpected(std::move(r.error()));
    Parser parser(source, limits);
    if (auto r = parser.start(); !r) return std::unexpected(std::move(r.error()));
    auto out = body(parser);
    if (!out) return out;
    if (!parser.at_eof()) {
        auto r = parser.unexpected_void();
        return std::unexpected(std::move(r.error()));
    }
    return out;
}

}  // namespace

Result<ast::Document> parse_document(std::string_view source, const ParseLimits& limits) {
    return parse_whole<ast::Document>(source, limits, [](Parser& p) { return p.document(); });
}

Result<ast::Type> parse_type(std::string_view source, const ParseLimits& limits) {
    return parse_whole<ast::Type>(source, limits, [](Parser& p) { return p.type_ref(); });
}

Result<ast::Value> parse_const_value(std::string_view source, const ParseLimits& limits) {
    return parse_whole<ast::Value>(source, limits, [](Parser& p) { return p.value(true); });
}

}  // namespace credence::graphql
