#include <credence/graphql/detail/introspection.hpp>

namespace credence::graphql::detail {

namespace {

using Json = nlohmann::json;

const char* kind_name(TypeKind kind) {
    switch (kind) {
        case TypeKind::scalar:
            return "SCALAR";
        case TypeKind::object:
            return "OBJECT";
        case TypeKind::enum_type:
            return "ENUM";
        case TypeKind::input_object:
            return "INPUT_OBJECT";
    }
    return "SCALAR";
}

Json text_or_null(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }

Json wrapper(const char* kind, Json of) {
    return Json{{"kind", kind},
                {"name", nullptr},
                {"description", nullptr},
                {"specifiedByURL", nullptr},
                {"fields", nullptr},
                {"interfaces", nullptr},
                {"possibleTypes", nullptr},
                {"enumValues", nullptr},
                {"inputFields", nullptr},
                {"ofType", std::move(of)}};
}

// GraphQL §4.5.3 The __Type Type: LIST and NON_NULL wrap their ofType.
Json type_ref(const ast::Type& type) {
    Json inner =
        type.is_list() ? wrapper("LIST", type_ref(type.of[0])) : Json{{"__ref", type.name}};
    return type.non_null ? wrapper("NON_NULL", std::move(inner)) : inner;
}

Json input_value(const InputValue& v) {
    return Json{{"name", v.name},           {"description", text_or_null(v.description)},
                {"type", type_ref(v.type)}, {"defaultValue", text_or_null(v.default_value)},
                {"isDeprecated", false},    {"deprecationReason", nullptr}};
}

Json full_type(const NamedType& t) {
    Json out{{"kind", kind_name(t.kind)},
             {"name", t.name},
             {"description", text_or_null(t.description)},
             {"specifiedByURL", nullptr},
             {"fields", nullptr},
             {"interfaces", nullptr},
             {"possibleTypes", nullptr},
             {"enumValues", nullptr},
             {"inputFields", nullptr},
             {"ofType", nullptr}};
    if (t.kind == TypeKind::object) {
        Json fields = Json::array();
        for (const auto& f : t.fields) {
            Json args = Json::array();
            for (const auto& a : f.args) args.push_back(input_value(a));
            fields.push_back(Json{{"name", f.name},
                                  {"description", text_or_null(f.description)},
                                  {"args", std::move(args)},
                                  {"type", type_ref(f.type)},
                                  {"isDeprecated", false},
                                  {"deprecationReason", nullptr}});
        }
        out["fields"] = std::move(fields);
        out["interfaces"] = Json::array();
    } else if (t.kind == TypeKind::enum_type) {
        Json values = Json::array();
        for (const auto& v : t.enum_values)
            values.push_back(Json{{"name", v.name},
                                  {"description", text_or_null(v.description)},
                                  {"isDeprecated", false},
                                  {"deprecationReason", nullptr}});
        out["enumValues"] = std::move(values);
    } else if (t.kind == TypeKind::input_object) {
        Json fields = Json::array();
        for (const auto& f : t.input_fields) fields.push_back(input_value(f));
        out["inputFields"] = std::move(fields);
    }
    return out;
}

// GraphQL §3.13 Built-in Directives: @skip and @include.
Json directive(const char* name, const char* description) {
    InputValue condition;
    condition.name = "if";
    condition.type = ast::Type{"Boolean", {}, true, {}};
    return Json{{"name", name},
                {"description", description},
                {"locations", {"FIELD", "FRAGMENT_SPREAD", "INLINE_FRAGMENT"}},
                {"args", Json::array({input_value(condition)})},
                {"isRepeatable", false}};
}

}  // namespace

Introspection build_introspection(const Schema& schema) {
    Introspection out;
    Json types = Json::array();
    for (const auto& t : schema.types()) {
        out.types.emplace(t.name, full_type(t));
        types.push_back(Json{{"__ref", t.name}});
    }
    out.schema = Json{
        {"description", nullptr},
        {"types", std::move(types)},
        {"queryType", Json{{"__ref", schema.query_type().name}}},
        {"mutationType", nullptr},
        {"subscriptionType", nullptr},
        {"directives", Json::array({directive("include",
                                              "Only include this field when `if` is "
                                              "true."),
                                    directive("skip", "Skip this field when `if` is true.")})}};
    return out;
}

}  // namespace credence::graphql::detail
