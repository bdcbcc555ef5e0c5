// GraphQL §4.5 Schema Introspection: the types a client queries under __schema and __type.
#include <credence/graphql/detail/schema_build.hpp>

#include <utility>

namespace credence::graphql::detail {

namespace {

struct Row {
    const char* name;
    const char* type;
    bool include_deprecated_arg = false;  // fields(includeDeprecated: Boolean = false) and kin
};

Result<NamedType> object(const char* name, std::initializer_list<Row> rows) {
    NamedType t;
    t.kind = TypeKind::object;
    t.name = name;
    for (const auto& row : rows) {
        FieldDef f;
        f.name = row.name;
        f.role = FieldRole::in_memory;
        auto type = type_of(row.type);
        if (!type) return std::unexpected(std::move(type.error()));
        f.type = std::move(*type);
        if (row.include_deprecated_arg) {
            f.args.push_back(InputValue{"includeDeprecated",
                                        {},
                                        named("Boolean", false),
                                        "false",
                                        {},
                                        FilterOp::equal,
                                        false});
        }
        t.fields.push_back(std::move(f));
    }
    index_type(t);
    return t;
}

NamedType enumeration(const char* name, std::initializer_list<const char*> values) {
    NamedType t;
    t.kind = TypeKind::enum_type;
    t.name = name;
    for (const char* v : values) t.enum_values.push_back({v, {}});
    return t;
}

}  // namespace

Result<std::vector<NamedType>> introspection_types() {
    std::vector<NamedType> out;
    const auto add = [&](Result<NamedType> t) -> bool {
        if (!t) return false;
        out.push_back(std::move(*t));
        return true;
    };
    const bool ok = add(object("__Schema", {{"description", "String"},
                                            {"types", "[__Type!]!"},
                                            {"queryType", "__Type!"},
                                            {"mutationType", "__Type"},
                                            {"subscriptionType", "__Type"},
                                            {"directives", "[__Directive!]!"}})) &&
                    add(object("__Type", {{"kind", "__TypeKind!"},
                                          {"name", "String"},
                                          {"description", "String"},
                                          {"specifiedByURL", "String"},
                                          {"fields", "[__Field!]", true},
                                          {"interfaces", "[__Type!]"},
                                          {"possibleTypes", "[__Type!]"},
                                          {"enumValues", "[__EnumValue!]", true},
                                          {"inputFields", "[__InputValue!]", true},
                                          {"ofType", "__Type"}})) &&
                    add(object("__Field", {{"name", "String!"},
                                           {"description", "String"},
                                           {"args", "[__InputValue!]!", true},
                                           {"type", "__Type!"},
                                           {"isDeprecated", "Boolean!"},
                                           {"deprecationReason", "String"}})) &&
                    add(object("__InputValue", {{"name", "String!"},
                                                {"description", "String"},
                                                {"type", "__Type!"},
                                                {"defaultValue", "String"},
                                                {"isDeprecated", "Boolean!"},
                                                {"deprecationReason", "String"}})) &&
                    add(object("__EnumValue", {{"name", "String!"},
                                               {"description", "String"},
                                               {"isDeprecated", "Boolean!"},
                                               {"deprecationReason", "String"}})) &&
                    add(object("__Directive", {{"name", "String!"},
                                               {"description", "String"},
                                               {"locations", "[__DirectiveLocation!]!"},
                                               {"args", "[__InputValue!]!", true},
                                               {"isRepeatable", "Boolean!"}}));
    if (!ok) return fail(ErrorKind::validation, "bad introspection table");
    out.push_back(enumeration("__TypeKind", {"SCALAR", "OBJECT", "INTERFACE", "UNION", "ENUM",
                                             "INPUT_OBJECT", "LIST", "NON_NULL"}));
    out.push_back(
        enumeration("__DirectiveLocation",
                    {"QUERY", "MUTATION", "SUBSCRIPTION", "FIELD", "FRAGMENT_DEFINITION",
                     "FRAGMENT_SPREAD", "INLINE_FRAGMENT", "VARIABLE_DEFINITION", "SCHEMA",
                     "SCALAR", "OBJECT", "FIELD_DEFINITION", "ARGUMENT_DEFINITION", "INTERFACE",
                     "UNION", "ENUM", "ENUM_VALUE", "INPUT_OBJECT", "INPUT_FIELD_DEFINITION"}));
    return out;
}

}  // namespace credence::graphql::detail
