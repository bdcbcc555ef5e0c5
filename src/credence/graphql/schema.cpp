#include <credence/graphql/schema.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

#include <credence/graphql/detail/schema_build.hpp>
#include <credence/graphql/parser.hpp>

namespace credence::graphql {

namespace detail {

Result<ast::Type> type_of(std::string_view text) { return parse_type(text); }

ast::Type named(std::string name, bool non_null) {
    ast::Type t;
    t.name = std::move(name);
    t.non_null = non_null;
    return t;
}

ast::Type list_of(ast::Type item, bool non_null) {
    ast::Type t;
    t.of.push_back(std::move(item));
    t.non_null = non_null;
    return t;
}

void index_type(NamedType& type) {
    type.member_index.clear();
    for (std::size_t i = 0; i < type.fields.size(); ++i)
        type.member_index.emplace(type.fields[i].name, i);
    for (std::size_t i = 0; i < type.input_fields.size(); ++i)
        type.member_index.emplace(type.input_fields[i].name, i);
}

}  // namespace detail

namespace {

using detail::list_of;
using detail::named;

struct ScalarInfo {
    const char* name;
    ScalarKind kind;
    const char* description;
};

constexpr std::array kScalars{
    ScalarInfo{"ID", ScalarKind::id, "An entity's unique key."},
    ScalarInfo{"String", ScalarKind::string, "UTF-8 text."},
    ScalarInfo{"Int", ScalarKind::int_value, "A signed 32-bit integer."},
    ScalarInfo{"BigInt", ScalarKind::big_int, "An integer of any size, as a decimal string."},
    ScalarInfo{"BigDecimal", ScalarKind::big_decimal, "A decimal number, as a string."},
    ScalarInfo{"Bytes", ScalarKind::bytes, "A byte string, as 0x-prefixed hex."},
    ScalarInfo{"Boolean", ScalarKind::boolean, "true or false."},
};

InputValue input(std::string name, ast::Type type, std::string default_value = {}) {
    InputValue v;
    v.name = std::move(name);
    v.type = std::move(type);
    v.default_value = std::move(default_value);
    return v;
}

InputValue filter_key(const std::string& field, FilterOp op, ast::Type type) {
    InputValue v;
    v.name = field + std::string(filter_suffix(op));
    v.type = std::move(type);
    v.filter_field = field;
    v.filter_op = op;
    return v;
}

// The Graph's page arguments, on root collections and on @derivedFrom lists.
std::vector<InputValue> page_args(const std::string& entity) {
    std::vector<InputValue> args;
    args.push_back(input("skip", named("Int", false), "0"));
    args.push_back(input("first", named("Int", false), "100"));
    args.push_back(input("orderBy", named(entity + "_orderBy", false)));
    args.push_back(input("orderDirection", named("OrderDirection", false)));
    args.push_back(input("where", named(entity + "_filter", false)));
    return args;
}

void add_block_args(std::vector<InputValue>& args) {
    args.push_back(input("block", named("Block_height", false)));
    args.push_back(input("subgraphError", named("_SubgraphErrorPolicy_", true), "deny"));
}

// The comparisons The Graph generates for one field, by the field's kind.
void add_filter_keys(NamedType& filter, const FieldDef& field, const NamedType& target) {
    const auto& name = field.name;
    if (field.role == FieldRole::derived) {
        InputValue nested;
        nested.name = name + "_";
        nested.type = named(field.entity + "_filter", false);
        nested.filter_field = name;
        nested.filter_nested = true;
        filter.input_fields.push_back(std::move(nested));
        return;
    }
    const bool reference = field.role == FieldRole::reference;
    const std::string operand = reference ? "String" : target.name;
    const auto one = [&] { return named(operand, false); };
    const auto many = [&] { return list_of(named(operand, true), false); };
    if (field.type.is_list()) {
        // A list column: whole-list equality and element containment.
        filter.input_fields.push_back(filter_key(name, FilterOp::equal, many()));
        filter.input_fields.push_back(filter_key(name, FilterOp::not_equal, many()));
        filter.input_fields.push_back(filter_key(name, FilterOp::contains, many()));
        filter.input_fields.push_back(filter_key(name, FilterOp::not_contains, many()));
        if (target.kind == TypeKind::scalar && target.scalar == ScalarKind::string) {
            filter.input_fields.push_back(filter_key(name, FilterOp::contains_nocase, many()));
            filter.input_fields.push_back(filter_key(name, FilterOp::not_contains_nocase, many()));
        }
        return;
    }
    filter.input_fields.push_back(filter_key(name, FilterOp::equal, one()));
    filter.input_fields.push_back(filter_key(name, FilterOp::not_equal, one()));
    const bool ordered =
        reference || (target.kind == TypeKind::scalar && target.scalar != ScalarKind::boolean);
    if (ordered) {
        for (auto op : {FilterOp::gt, FilterOp::lt, FilterOp::gte, FilterOp::lte})
            filter.input_fields.push_back(filter_key(name, op, one()));
    }
    filter.input_fields.push_back(filter_key(name, FilterOp::in, many()));
    filter.input_fields.push_back(filter_key(name, FilterOp::not_in, many()));
    const bool text =
        reference || (target.kind == TypeKind::scalar && target.scalar == ScalarKind::string);
    if (text) {
        for (auto op :
             {FilterOp::contains, FilterOp::contains_nocase, FilterOp::not_contains,
              FilterOp::not_contains_nocase, FilterOp::starts_with, FilterOp::starts_with_nocase,
              FilterOp::not_starts_with, FilterOp::not_starts_with_nocase, FilterOp::ends_with,
              FilterOp::ends_with_nocase, FilterOp::not_ends_with, FilterOp::not_ends_with_nocase})
            filter.input_fields.push_back(filter_key(name, op, named("String", false)));
    } else if (target.kind == TypeKind::scalar && target.scalar == ScalarKind::bytes) {
        filter.input_fields.push_back(filter_key(name, FilterOp::contains, one()));
        filter.input_fields.push_back(filter_key(name, FilterOp::not_contains, one()));
    }
    if (reference) {
        InputValue nested;
        nested.name = name + "_";
        nested.type = named(field.entity + "_filter", false);
        nested.filter_field = name;
        nested.filter_nested = true;
        filter.input_fields.push_back(std::move(nested));
    }
}

NamedType enum_type(std::string name, std::vector<std::string> values, std::string description) {
    NamedType t;
    t.kind = TypeKind::enum_type;
    t.name = std::move(name);
    t.description = std::move(description);
    for (auto& v : values) t.enum_values.push_back({std::move(v), {}});
    return t;
}

NamedType object_type(std::string name, std::vector<FieldDef> fields) {
    NamedType t;
    t.kind = TypeKind::object;
    t.name = std::move(name);
    t.fields = std::move(fields);
    return t;
}

FieldDef in_memory_field(std::string name, ast::Type type) {
    FieldDef f;
    f.name = std::move(name);
    f.type = std::move(type);
    f.role = FieldRole::in_memory;
    return f;
}

bool valid_name(std::string_view name) {
    if (name.empty() || name.starts_with("__")) return false;
    return std::all_of(name.begin(), name.end(),
                       [](char c) {
                           return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                  (c >= '0' && c <= '9');
                       }) &&
           !(name[0] >= '0' && name[0] <= '9');
}

}  // namespace

std::string_view filter_suffix(FilterOp op) {
    switch (op) {
        case FilterOp::equal:
            return "";
        case FilterOp::not_equal:
            return "_not";
        case FilterOp::gt:
            return "_gt";
        case FilterOp::lt:
            return "_lt";
        case FilterOp::gte:
            return "_gte";
        case FilterOp::lte:
            return "_lte";
        case FilterOp::in:
            return "_in";
        case FilterOp::not_in:
            return "_not_in";
        case FilterOp::contains:
            return "_contains";
        case FilterOp::contains_nocase:
            return "_contains_nocase";
        case FilterOp::not_contains:
            return "_not_contains";
        case FilterOp::not_contains_nocase:
            return "_not_contains_nocase";
        case FilterOp::starts_with:
            return "_starts_with";
        case FilterOp::starts_with_nocase:
            return "_starts_with_nocase";
        case FilterOp::not_starts_with:
            return "_not_starts_with";
        case FilterOp::not_starts_with_nocase:
            return "_not_starts_with_nocase";
        case FilterOp::ends_with:
            return "_ends_with";
        case FilterOp::ends_with_nocase:
            return "_ends_with_nocase";
        case FilterOp::not_ends_with:
            return "_not_ends_with";
        case FilterOp::not_ends_with_nocase:
            return "_not_ends_with_nocase";
    }
    return "";
}

const InputValue* FieldDef::arg(std::string_view arg_name) const {
    for (const auto& a : args)
        if (a.name == arg_name) return &a;
    return nullptr;
}

const FieldDef* NamedType::field(std::string_view field_name) const {
    if (kind != TypeKind::object) return nullptr;
    const auto it = member_index.find(field_name);
    return it == member_index.end() ? nullptr : &fields[it->second];
}

const InputValue* NamedType::input_field(std::string_view field_name) const {
    if (kind != TypeKind::input_object) return nullptr;
    const auto it = member_index.find(field_name);
    return it == member_index.end() ? nullptr : &input_fields[it->second];
}

bool NamedType::has_enum_value(std::string_view value) const {
    return std::any_of(enum_values.begin(), enum_values.end(),
                       [&](const EnumValueDef& v) { return v.name == value; });
}

const NamedType* Schema::type(std::string_view name) const {
    const auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : &types_[it->second];
}

std::string type_to_string(const ast::Type& type) {
    std::string out = type.is_list() ? "[" + type_to_string(type.of[0]) + "]" : type.name;
    if (type.non_null) out.push_back('!');
    return out;
}

const std::string& named_type(const ast::Type& type) {
    const ast::Type* t = &type;
    while (t->is_list()) t = &t->of[0];
    return t->name;
}

Result<Schema> make_schema(const SchemaDef& def) {
    Schema schema;
    auto& types = schema.types_;
    const auto bad = [](std::string message) {
        return fail(ErrorKind::validation, std::move(message));
    };

    for (const auto& s : kScalars) {
        NamedType t;
        t.kind = TypeKind::scalar;
        t.name = s.name;
        t.scalar = s.kind;
        t.description = s.description;
        types.push_back(std::move(t));
    }
    for (const auto& e : def.enums) {
        if (!valid_name(e.name) || e.values.empty()) return bad("bad enum " + e.name);
        types.push_back(enum_type(e.name, e.values, e.description));
    }
    types.push_back(enum_type("OrderDirection", {"asc", "desc"}, "Sort order of a collection."));
    types.push_back(enum_type("_SubgraphErrorPolicy_", {"allow", "deny"},
                              "Whether data may be returned when indexing met errors."));

    // Entities first, unresolved; their names must be known before their fields are typed.
    std::map<std::string, const EntityDef*, std::less<>> entities;
    for (const auto& e : def.entities) {
        if (!valid_name(e.name) || !entities.emplace(e.name, &e).second)
            return bad("bad or repeated entity " + e.name);
    }
    const auto kind_of = [&](const std::string& name) -> const NamedType* {
        for (const auto& t : types)
            if (t.name == name) return &t;
        return nullptr;
    };

    std::vector<NamedType> generated;
    std::vector<FieldDef> root_fields;
    for (const auto& e : def.entities) {
        NamedType obj;
        obj.kind = TypeKind::object;
        obj.name = e.name;
        obj.description = e.description;
        obj.entity = true;
        NamedType filter;
        filter.kind = TypeKind::input_object;
        filter.name = e.name + "_filter";
        std::vector<std::string> order_values;
        bool has_id = false;
        for (const auto& f : e.fields) {
            auto type = detail::type_of(f.type);
            if (!type || !valid_name(f.name))
                return bad(fmt::format("{}.{}: bad field or type \"{}\"", e.name, f.name, f.type));
            if (type->is_list() && type->of[0].is_list())
                return bad(fmt::format("{}.{}: lists of lists are not supported", e.name, f.name));
            FieldDef field;
            field.name = f.name;
            field.description = f.description;
            field.type = std::move(*type);
            const auto& target_name = named_type(field.type);
            if (f.name == "id") has_id = type_to_string(field.type) == "ID!";
            if (entities.contains(target_name)) {
                field.entity = target_name;
                if (field.type.is_list()) {
                    // Stored lists of ids are not part of this executor; @derivedFrom lists are.
                    if (f.derived_from.empty())
                        return bad(fmt::format("{}.{}: an entity list needs @derivedFrom", e.name,
                                               f.name));
                    field.role = FieldRole::derived;
                    field.derived_from = f.derived_from;
                    field.args = page_args(target_name);
                } else {
                    field.role = FieldRole::reference;
                    order_values.push_back(f.name);
                }
            } else {
                const NamedType* target = kind_of(target_name);
                if (target == nullptr || target->kind == TypeKind::object ||
                    target->kind == TypeKind::input_object || !f.derived_from.empty())
                    return bad(fmt::format("{}.{}: unknown type {}", e.name, f.name, target_name));
                field.role = FieldRole::column;
                if (!field.type.is_list()) order_values.push_back(f.name);
            }
            obj.fields.push_back(std::move(field));
        }
        if (!has_id) return bad(e.name + ": an entity needs `id: ID!`");
        for (const auto& field : obj.fields) {
            if (field.role == FieldRole::derived) {
                const auto* target = entities.find(field.entity)->second;
                const auto back = std::find_if(
                    target->fields.begin(), target->fields.end(),
                    [&](const EntityField& tf) { return tf.name == field.derived_from; });
                if (back == target->fields.end())
                    return bad(fmt::format("{}.{}: @derivedFrom names no field of {}", e.name,
                                           field.name, field.entity));
                add_filter_keys(filter, field, obj);
            } else if (field.role == FieldRole::reference) {
                add_filter_keys(filter, field, obj);
            } else {
                add_filter_keys(filter, field, *kind_of(named_type(field.type)));
            }
        }
        // GraphQL §3.10: `and` and `or` combine filters of the same entity.
        filter.input_fields.push_back(input("and", list_of(named(filter.name, false), false)));
        filter.input_fields.push_back(input("or", list_of(named(filter.name, false), false)));
        generated.push_back(std::move(filter));
        generated.push_back(enum_type(e.name + "_orderBy", std::move(order_values), {}));

        if (e.single.empty() || e.collection.empty() || !valid_name(e.single) ||
            !valid_name(e.collection))
            return bad(e.name + ": an entity needs its single and collection root fields");
        FieldDef single;
        single.name = e.single;
        single.type = named(e.name, false);
        single.role = FieldRole::single;
        single.entity = e.name;
        single.args.push_back(input("id", named("ID", true)));
        add_block_args(single.args);
        root_fields.push_back(std::move(single));
        FieldDef collection;
        collection.name = e.collection;
        collection.type = list_of(named(e.name, true), true);
        collection.role = FieldRole::collection;
        collection.entity = e.name;
        collection.args = page_args(e.name);
        add_block_args(collection.args);
        root_fields.push_back(std::move(collection));
        types.push_back(std::move(obj));
    }
    for (auto& g : generated) types.push_back(std::move(g));

    // The Graph's indexing status and block constraint types.
    NamedType block_height;
    block_height.kind = TypeKind::input_object;
    block_height.name = "Block_height";
    block_height.input_fields.push_back(input("hash", named("Bytes", false)));
    block_height.input_fields.push_back(input("number", named("Int", false)));
    block_height.input_fields.push_back(input("number_gte", named("Int", false)));
    types.push_back(std::move(block_height));
    types.push_back(object_type("_Block_", {in_memory_field("hash", named("Bytes", false)),
                                            in_memory_field("number", named("Int", true)),
                                            in_memory_field("timestamp", named("Int", false)),
                                            in_memory_field("parentHash", named("Bytes", false))}));
    types.push_back(
        object_type("_Meta_", {in_memory_field("block", named("_Block_", true)),
                               in_memory_field("deployment", named("String", true)),
                               in_memory_field("hasIndexingErrors", named("Boolean", true))}));
    FieldDef meta;
    meta.name = "_meta";
    meta.type = named("_Meta_", false);
    meta.role = FieldRole::meta;
    meta.args.push_back(input("block", named("Block_height", false)));
    root_fields.push_back(std::move(meta));
    schema.query_index_ = types.size();
    types.push_back(object_type("Query", std::move(root_fields)));

    auto intro = detail::introspection_types();
    if (!intro) return std::unexpected(std::move(intro.error()));
    for (auto& t : *intro) types.push_back(std::move(t));

    for (std::size_t i = 0; i < types.size(); ++i) {
        detail::index_type(types[i]);
        if (!schema.by_name_.emplace(types[i].name, i).second)
            return bad("type named twice: " + types[i].name);
        const std::size_t members = types[i].fields.size() + types[i].input_fields.size();
        if (types[i].member_index.size() != members)
            return bad("a field named twice in " + types[i].name);
    }
    return schema;
}

}  // namespace credence::graphql
