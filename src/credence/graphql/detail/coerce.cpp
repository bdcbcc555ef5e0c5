#include <credence/graphql/detail/coerce.hpp>

#include <fmt/format.h>

#include <limits>
#include <set>
#include <utility>

#include <credence/graphql/parser.hpp>

namespace credence::graphql::detail {

namespace {

bool is_decimal_integer(std::string_view s) {
    if (!s.empty() && s[0] == '-') s.remove_prefix(1);
    if (s.empty() || s.size() > 100) return false;  // The Graph's BigInt is bounded; so are we
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

// A decimal number as text: -?digits(.digits)?([eE][+-]?digits)?
bool is_decimal_number(std::string_view s) {
    if (s.size() > 200) return false;
    std::size_t i = 0;
    if (i < s.size() && s[i] == '-') ++i;
    const auto digits = [&] {
        const std::size_t start = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
        return i > start;
    };
    if (!digits()) return false;
    if (i < s.size() && s[i] == '.') {
        ++i;
        if (!digits()) return false;
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        if (!digits()) return false;
    }
    return i == s.size();
}

std::optional<std::string> normalize_bytes(std::string_view s) {
    if (!s.starts_with("0x") && !s.starts_with("0X")) return std::nullopt;
    std::string out = "0x";
    for (char c : s.substr(2)) {
        if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return std::nullopt;
        out.push_back(c);
    }
    if (out.size() % 2 != 0) return std::nullopt;
    return out;
}

std::unexpected<GraphqlError> bad_value(std::string message, Location loc) {
    return fail(ErrorKind::validation, std::move(message), {loc});
}

std::string literal_text(const ast::Value& v) {
    switch (v.kind) {
        case ast::Value::Kind::string:
            return Json(v.text).dump(-1, ' ', false, Json::error_handler_t::replace);
        case ast::Value::Kind::boolean:
            return v.boolean ? "true" : "false";
        case ast::Value::Kind::null:
            return "null";
        case ast::Value::Kind::list:
            return "[...]";
        case ast::Value::Kind::object:
            return "{...}";
        case ast::Value::Kind::variable:
            return "$" + v.text;
        default:
            return v.text;
    }
}

// GraphQL §5.8.5 AreTypesCompatible.
bool types_compatible(const ast::Type& variable, const ast::Type& location) {
    if (location.non_null) {
        if (!variable.non_null) return false;
        ast::Type v = variable;
        ast::Type l = location;
        v.non_null = false;
        l.non_null = false;
        return types_compatible(v, l);
    }
    if (variable.non_null) {
        ast::Type v = variable;
        v.non_null = false;
        return types_compatible(v, location);
    }
    if (location.is_list() != variable.is_list()) return false;
    if (location.is_list()) return types_compatible(variable.of[0], location.of[0]);
    // A departure from §5.8.5 that The Graph makes and its clients rely on (the agent0 SDK sends
    // `$agentId: String!` to `agent(id: ID!)`): ID and String variables are interchangeable.
    const auto id_or_string = [](const std::string& n) { return n == "ID" || n == "String"; };
    return variable.name == location.name ||
           (id_or_string(variable.name) && id_or_string(location.name));
}

// Scalars and enums from a literal (GraphQL §3.5.* Input Coercion).
Result<Json> coerce_leaf_literal(const NamedType& type, const ast::Value& v) {
    using K = ast::Value::Kind;
    const auto wrong = [&] {
        return bad_value(
            fmt::format("{} cannot represent the value {}", type.name, literal_text(v)), v.loc);
    };
    if (type.kind == TypeKind::enum_type) {
        if (v.kind != K::enum_value) {
            return bad_value(fmt::format("Enum \"{}\" cannot represent non-enum value: {}",
                                         type.name, literal_text(v)),
                             v.loc);
        }
        if (!type.has_enum_value(v.text)) {
            return bad_value(
                fmt::format("Value \"{}\" does not exist in \"{}\" enum.", v.text, type.name),
                v.loc);
        }
        return Json(v.text);
    }
    switch (type.scalar) {
        case ScalarKind::int_value: {
            if (v.kind != K::int_value) return wrong();
            errno = 0;
            const long long n = std::strtoll(v.text.c_str(), nullptr, 10);
            if (errno != 0 || n < std::numeric_limits<std::int32_t>::min() ||
                n > std::numeric_limits<std::int32_t>::max()) {
                return bad_value(fmt::format("Int cannot represent non 32-bit signed integer "
                                             "value: {}",
                                             v.text),
                                 v.loc);
            }
            return Json(static_cast<std::int64_t>(n));
        }
        case ScalarKind::string:
            if (v.kind != K::string) return wrong();
            return Json(v.text);
        case ScalarKind::boolean:
            if (v.kind != K::boolean) return wrong();
            return Json(v.boolean);
        case ScalarKind::id:
            if (v.kind != K::string && v.kind != K::int_value) return wrong();
            return Json(v.text);
        case ScalarKind::big_int:
            if ((v.kind != K::string && v.kind != K::int_value) || !is_decimal_integer(v.text))
                return wrong();
            return Json(v.text);
        case ScalarKind::big_decimal:
            if ((v.kind != K::string && v.kind != K::int_value && v.kind != K::float_value) ||
                !is_decimal_number(v.text))
                return wrong();
            return Json(v.text);
        case ScalarKind::bytes: {
            if (v.kind != K::string) return wrong();
            auto hex = normalize_bytes(v.text);
            if (!hex) return wrong();
            return Json(*hex);
        }
    }
    return wrong();
}

Result<Json> coerce_leaf_json(const NamedType& type, const Json& v, const std::string& where) {
    const auto wrong = [&] {
        return fail(ErrorKind::variables,
                    fmt::format("{} got invalid value {}; {} cannot represent it", where,
                                v.dump(-1, ' ', false, Json::error_handler_t::replace), type.name));
    };
    if (type.kind == TypeKind::enum_type) {
        if (!v.is_string() || !type.has_enum_value(v.get_ref<const std::string&>())) return wrong();
        return v;
    }
    switch (type.scalar) {
        case ScalarKind::int_value: {
            std::int64_t n = 0;
            if (v.is_number_integer()) {
                if (v.is_number_unsigned() &&
                    v.get<std::uint64_t>() >
                        static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()))
                    return wrong();
                n = v.get<std::int64_t>();
            } else if (v.is_number_float()) {
                const double d = v.get<double>();
                if (!(d >= -2147483648.0 && d <= 2147483647.0) ||
                    d != static_cast<double>(static_cast<std::int64_t>(d)))
                    return wrong();
                n = static_cast<std::int64_t>(d);
            } else {
                return wrong();
            }
            if (n < std::numeric_limits<std::int32_t>::min() ||
                n > std::numeric_limits<std::int32_t>::max())
                return wrong();
            return Json(n);
        }
        case ScalarKind::string:
            if (!v.is_string()) return wrong();
            return v;
        case ScalarKind::boolean:
            if (!v.is_boolean()) return wrong();
            return v;
        case ScalarKind::id:
            if (v.is_string()) return v;
            if (v.is_number_integer()) return Json(v.dump());
            return wrong();
        case ScalarKind::big_int:
            if (v.is_number_integer()) return Json(v.dump());
            if (!v.is_string() || !is_decimal_integer(v.get_ref<const std::string&>()))
                return wrong();
            return v;
        case ScalarKind::big_decimal:
            if (v.is_number()) return Json(v.dump());
            if (!v.is_string() || !is_decimal_number(v.get_ref<const std::string&>()))
                return wrong();
            return v;
        case ScalarKind::bytes: {
            if (!v.is_string()) return wrong();
            auto hex = normalize_bytes(v.get_ref<const std::string&>());
            if (!hex) return wrong();
            return Json(*hex);
        }
    }
    return wrong();
}

// A constant (a default value) coerced; constants hold no variables, so never absent.
Result<Json> coerce_constant(const Schema& schema, const ast::Value& v, const ast::Type& type) {
    auto r = coerce_literal(schema, v, type, {}, false);
    if (!r) return std::unexpected(std::move(r.error()));
    const std::optional<Json>& value = *r;
    if (!value.has_value()) return Json(nullptr);
    return *value;
}

Result<Json> coerce_json(const Schema& schema, const Json& v, const ast::Type& type,
                         const std::string& where, std::size_t depth, const ExecLimits& limits) {
    if (depth > limits.max_input_depth)
        return fail(ErrorKind::limit,
                    fmt::format("{} nests deeper than {} levels", where, limits.max_input_depth));
    if (v.is_null()) {
        if (type.non_null)
            return fail(ErrorKind::variables,
                        fmt::format("{} of non-null type \"{}\" must not be null", where,
                                    type_to_string(type)));
        return Json(nullptr);
    }
    if (type.is_list()) {
        Json out = Json::array();
        if (!v.is_array()) {  // GraphQL §3.11: a single value is coerced as a list of one
            auto item = coerce_json(schema, v, type.of[0], where, depth + 1, limits);
            if (!item) return item;
            out.push_back(std::move(*item));
            return out;
        }
        for (std::size_t i = 0; i < v.size(); ++i) {
            auto item = coerce_json(schema, v[i], type.of[0], fmt::format("{}[{}]", where, i),
                                    depth + 1, limits);
            if (!item) return item;
            out.push_back(std::move(*item));
        }
        return out;
    }
    const NamedType* named = schema.type(type.name);
    if (named == nullptr) return fail(ErrorKind::variables, "Unknown type \"" + type.name + "\".");
    if (named->kind != TypeKind::input_object) return coerce_leaf_json(*named, v, where);
    // GraphQL §3.10 Input Coercion: an object; no unknown fields; required fields present.
    if (!v.is_object())
        return fail(ErrorKind::variables,
                    fmt::format("{} of type \"{}\" must be an object", where, named->name));
    for (const auto& [key, item] : v.items()) {
        if (named->input_field(key) == nullptr)
            return fail(ErrorKind::variables,
                        fmt::format("{} has the field \"{}\", which is not defined by type "
                                    "\"{}\"",
                                    where, key, named->name));
    }
    Json out = Json::object();
    for (const auto& f : named->input_fields) {
        const auto it = v.find(f.name);
        if (it == v.end()) {
            if (!f.default_value.empty()) {
                auto lit = parse_const_value(f.default_value);
                if (!lit) return std::unexpected(std::move(lit.error()));
                auto d = coerce_constant(schema, *lit, f.type);
                if (!d) return std::unexpected(std::move(d.error()));
                out[f.name] = std::move(*d);
            } else if (f.type.non_null) {
                return fail(ErrorKind::variables,
                            fmt::format("{} lacks the required field \"{}\"", where, f.name));
            }
            continue;
        }
        auto item = coerce_json(schema, *it, f.type, where + "." + f.name, depth + 1, limits);
        if (!item) return item;
        out[f.name] = std::move(*item);
    }
    return out;
}

}  // namespace

std::string to_hex(const ByteString& bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out = "0x";
    out.reserve(2 + bytes.bytes.size() * 2);
    for (auto b : bytes.bytes) {
        out.push_back(kDigits[b >> 4]);
        out.push_back(kDigits[b & 0xF]);
    }
    return out;
}

Result<Variables> coerce_variables(const Schema& schema, const ast::OperationDefinition& op,
                                   const Json& input, const ExecLimits& limits) {
    if (!input.is_null() && !input.is_object())
        return fail(ErrorKind::request, "\"variables\" must be an object");
    Variables out;
    for (const auto& def : op.variables) {
        // GraphQL §5.8.2 Variables Are Input Types.
        const NamedType* named = schema.type(named_type(def.type));
        if (named == nullptr)
            return fail(ErrorKind::validation, "Unknown type \"" + named_type(def.type) + "\".",
                        {def.type.loc});
        if (named->kind == TypeKind::object)
            return fail(ErrorKind::validation,
                        fmt::format("Variable \"${}\" cannot be non-input type \"{}\".", def.name,
                                    type_to_string(def.type)),
                        {def.type.loc});
        VariableValue value;
        value.definition = &def;
        const std::string where = "Variable \"$" + def.name + "\"";
        const bool given = input.is_object() && input.contains(def.name);
        if (given) {
            auto coerced = coerce_json(schema, input.at(def.name), def.type, where, 0, limits);
            if (!coerced) {
                coerced.error().locations = {def.loc};
                return std::unexpected(std::move(coerced.error()));
            }
            value.value = std::move(*coerced);
            value.present = true;
        } else if (def.default_value) {
            auto coerced = coerce_constant(schema, *def.default_value, def.type);
            if (!coerced) return std::unexpected(std::move(coerced.error()));
            value.value = std::move(*coerced);
            value.present = true;
        } else if (def.type.non_null) {
            return fail(ErrorKind::variables,
                        fmt::format("Variable \"${}\" of required type \"{}\" was not provided.",
                                    def.name, type_to_string(def.type)),
                        {def.loc});
        }
        out.emplace(def.name, std::move(value));
    }
    return out;
}

Result<std::optional<Json>> coerce_literal(const Schema& schema, const ast::Value& value,
                                           const ast::Type& type, const Variables& variables,
                                           bool has_default) {
    using K = ast::Value::Kind;
    if (value.kind == K::variable) {
        const auto it = variables.find(value.text);
        if (it == variables.end())
            return bad_value(fmt::format("Variable \"${}\" is not defined.", value.text),
                             value.loc);
        const auto& def = *it->second.definition;
        // GraphQL §5.8.5 All Variable Usages Are Allowed.
        ast::Type location = type;
        bool allowed = false;
        if (type.non_null && !def.type.non_null) {
            const bool var_default = def.default_value && def.default_value->kind != K::null;
            if (var_default || has_default) {
                location.non_null = false;
                allowed = types_compatible(def.type, location);
            }
        } else {
            allowed = types_compatible(def.type, type);
        }
        if (!allowed)
            return bad_value(
                fmt::format("Variable \"${}\" of type \"{}\" used in position "
                            "expecting type \"{}\".",
                            value.text, type_to_string(def.type), type_to_string(type)),
                value.loc);
        if (!it->second.present) return std::optional<Json>{};
        if (it->second.value.is_null() && type.non_null)
            return bad_value(fmt::format("Variable \"${}\" must not be null here", value.text),
                             value.loc);
        return std::optional<Json>{it->second.value};
    }
    if (value.kind == K::null) {
        if (type.non_null)
            return bad_value(
                fmt::format("Expected value of type \"{}\", found null.", type_to_string(type)),
                value.loc);
        return std::optional<Json>{Json(nullptr)};
    }
    if (type.is_list()) {
        Json out = Json::array();
        if (value.kind != K::list) {
            auto item = coerce_literal(schema, value, type.of[0], variables, false);
            if (!item) return item;
            out.push_back(item->value_or(Json(nullptr)));
            return std::optional<Json>{std::move(out)};
        }
        for (const auto& v : value.list) {
            auto item = coerce_literal(schema, v, type.of[0], variables, false);
            if (!item) return item;
            if (!*item && type.of[0].non_null)
                return bad_value("an unset variable in a list of non-null items", v.loc);
            out.push_back(item->value_or(Json(nullptr)));
        }
        return std::optional<Json>{std::move(out)};
    }
    const NamedType* named = schema.type(type.name);
    if (named == nullptr) return bad_value("Unknown type \"" + type.name + "\".", value.loc);
    if (named->kind != TypeKind::input_object) {
        auto leaf = coerce_leaf_literal(*named, value);
        if (!leaf) return std::unexpected(std::move(leaf.error()));
        return std::optional<Json>{std::move(*leaf)};
    }
    if (value.kind != K::object)
        return bad_value(fmt::format("Expected value of type \"{}\", found {}.", named->name,
                                     literal_text(value)),
                         value.loc);
    std::set<std::string_view> seen;
    for (const auto& f : value.fields) {
        // GraphQL §5.6.3 Input Object Field Uniqueness; §5.6.2 Input Object Field Names.
        if (!seen.insert(f.name).second)
            return bad_value(fmt::format("There can be only one input field named \"{}\".", f.name),
                             f.loc);
        if (named->input_field(f.name) == nullptr)
            return bad_value(
                fmt::format("Field \"{}\" is not defined by type \"{}\".", f.name, named->name),
                f.loc);
    }
    Json out = Json::object();
    for (const auto& def : named->input_fields) {
        const ast::ObjectField* given = nullptr;
        for (const auto& f : value.fields)
            if (f.name == def.name) given = &f;
        std::optional<Json> item;
        if (given != nullptr) {
            auto r = coerce_literal(schema, given->value, def.type, variables,
                                    !def.default_value.empty());
            if (!r) return r;
            item = std::move(*r);
        }
        if (!item && !def.default_value.empty()) {
            auto lit = parse_const_value(def.default_value);
            if (!lit) return std::unexpected(std::move(lit.error()));
            auto r = coerce_literal(schema, *lit, def.type, {}, false);
            if (!r) return r;
            item = std::move(*r);
        }
        // GraphQL §5.6.4 Input Object Required Fields.
        if (!item && def.type.non_null)
            return bad_value(fmt::format("Field \"{}.{}\" of required type \"{}\" was not "
                                         "provided.",
                                         named->name, def.name, type_to_string(def.type)),
                             value.loc);
        if (item) out[def.name] = std::move(*item);
    }
    return std::optional<Json>{std::move(out)};
}

Cell json_to_cell(const Json& value, ScalarKind scalar) {
    const auto one = [&](const Json& v) -> Scalar {
        if (v.is_null()) return std::monostate{};
        if (v.is_boolean()) return v.get<bool>();
        if (v.is_number_integer()) return v.get<std::int64_t>();
        const auto& s = v.get_ref<const std::string&>();
        if (scalar == ScalarKind::bytes) {
            ByteString b;
            for (std::size_t i = 2; i + 1 < s.size(); i += 2) {
                const auto nib = [](char c) {
                    return static_cast<std::uint8_t>(c <= '9' ? c - '0' : c - 'a' + 10);
                };
                b.bytes.push_back(static_cast<std::uint8_t>(nib(s[i]) << 4 | nib(s[i + 1])));
            }
            return b;
        }
        return s;
    };
    if (value.is_array()) {
        ScalarList list;
        for (const auto& v : value) list.push_back(one(v));
        return list;
    }
    return std::visit([](auto&& s) -> Cell { return s; }, one(value));
}

Result<Filter> make_filter(const Schema& schema, const NamedType& entity, const Json& where,
                           const ExecLimits& limits, std::size_t& nodes) {
    Filter all;
    all.kind = Filter::Kind::all;
    if (where.is_null()) return all;
    const NamedType* filter_type = schema.type(entity.name + "_filter");
    if (filter_type == nullptr || !where.is_object())
        return fail(ErrorKind::execution, "no filter for " + entity.name);
    for (const auto& [key, value] : where.items()) {
        if (++nodes > limits.max_filter_nodes)
            return fail(ErrorKind::limit, fmt::format("the where filter has more than {} "
                                                      "conditions",
                                                      limits.max_filter_nodes));
        if (key == "and" || key == "or") {
            if (value.is_null()) continue;
            Filter group;
            group.kind = key == "and" ? Filter::Kind::all : Filter::Kind::any;
            for (const auto& item : value) {
                if (item.is_null()) continue;
                auto child = make_filter(schema, entity, item, limits, nodes);
                if (!child) return child;
                group.children.push_back(std::move(*child));
            }
            all.children.push_back(std::move(group));
            continue;
        }
        const InputValue* key_def = filter_type->input_field(key);
        const FieldDef* field = key_def ? entity.field(key_def->filter_field) : nullptr;
        if (field == nullptr) return fail(ErrorKind::execution, "unknown filter key " + key);
        if (key_def->filter_nested) {
            if (value.is_null()) continue;
            const NamedType* target = schema.type(field->entity);
            auto inner = make_filter(schema, *target, value, limits, nodes);
            if (!inner) return inner;
            Filter nested;
            nested.kind = Filter::Kind::nested;
            nested.field = field->name;
            nested.entity = field->entity;
            nested.derived_from = field->derived_from;
            nested.children = std::move(inner->children);
            all.children.push_back(std::move(nested));
            continue;
        }
        Filter compare;
        compare.kind = Filter::Kind::compare;
        compare.field = field->name;
        compare.op = key_def->filter_op;
        compare.list_field = field->type.is_list();
        const NamedType* target = schema.type(named_type(field->type));
        compare.scalar = field->role == FieldRole::column && target->kind == TypeKind::scalar
                             ? target->scalar
                             : ScalarKind::string;
        compare.operand = json_to_cell(value, compare.scalar);
        all.children.push_back(std::move(compare));
    }
    return all;
}

}  // namespace credence::graphql::detail
