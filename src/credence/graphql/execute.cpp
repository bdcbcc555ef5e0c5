#include <credence/graphql/execute.hpp>

#include <fmt/format.h>

#include <exception>
#include <map>
#include <optional>
#include <utility>

#include <credence/graphql/detail/coerce.hpp>
#include <credence/graphql/detail/introspection.hpp>
#include <credence/graphql/detail/plan.hpp>
#include <credence/graphql/parser.hpp>
#include <credence/graphql/validate.hpp>

namespace credence::graphql {

namespace {

using detail::Json;
using detail::PlanField;
using OJson = nlohmann::ordered_json;

OJson error_json(const GraphqlError& e) {
    OJson out = OJson::object();
    out["message"] = e.message;
    if (!e.locations.empty()) {
        OJson locs = OJson::array();
        for (const auto& l : e.locations) locs.push_back({{"line", l.line}, {"column", l.column}});
        out["locations"] = std::move(locs);
    }
    return out;
}

OJson to_ordered(const Json& v) {
    // Leaves only: in-memory objects are rebuilt field by field in query order.
    if (v.is_string()) return v.get<std::string>();
    if (v.is_boolean()) return v.get<bool>();
    if (v.is_number_integer()) return v.get<std::int64_t>();
    if (v.is_number_float()) return v.get<double>();
    return nullptr;
}

struct Columns {
    std::vector<std::string> names;
    std::map<std::string, std::size_t, std::less<>> index;

    void add(const std::string& name) {
        if (index.emplace(name, names.size()).second) names.push_back(name);
    }
};

Columns columns_for(const std::vector<PlanField>& fields, const std::string& extra = {}) {
    Columns c;
    c.add("id");
    for (const auto& f : fields)
        if (f.def != nullptr &&
            (f.def->role == FieldRole::column || f.def->role == FieldRole::reference))
            c.add(f.def->name);
    if (!extra.empty()) c.add(extra);
    return c;
}

const char* cell_kind(const Cell& cell) {
    switch (cell.index()) {
        case 0:
            return "null";
        case 1:
            return "a boolean";
        case 2:
            return "an integer";
        case 3:
            return "a string";
        case 4:
            return "bytes";
        default:
            return "a list";
    }
}

Scalar cell_scalar(const Cell& cell) {
    return std::visit(
        [](const auto& v) -> Scalar {
            if constexpr (std::is_same_v<std::decay_t<decltype(v)>, ScalarList>) {
                return std::monostate{};
            } else {
                return v;
            }
        },
        cell);
}

class Runner {
public:
    Runner(const Schema& schema, DataSource& source, const ExecLimits& limits)
        : schema_(schema), source_(source), limits_(limits) {}

    Result<OJson> run(const detail::Plan& plan) {
        OJson data = OJson::object();
        for (const auto& f : plan.fields) {
            auto v = root_field(f);
            if (!v) return v;
            data[f.key] = std::move(*v);
        }
        return data;
    }

private:
    Result<void> count(std::size_t n = 1) {
        outputs_ += n;
        if (outputs_ > limits_.max_output_values)
            return fail(ErrorKind::limit, fmt::format("the response would hold more than {} "
                                                      "values",
                                                      limits_.max_output_values));
        return {};
    }

    std::unexpected<GraphqlError> source_error(const std::string& what) const {
        return fail(ErrorKind::data_source, "data source: " + what);
    }

    Result<std::vector<Row>> checked(Result<std::vector<Row>> rows, const Columns& columns,
                                     const std::string& entity) {
        if (!rows) return rows;
        for (const auto& row : *rows) {
            if (row.size() != columns.names.size() || !std::holds_alternative<std::string>(row[0]))
                return source_error(
                    fmt::format("a {} row does not match the requested fields", entity));
        }
        return rows;
    }

    Result<OJson> root_field(const PlanField& f) {
        switch (f.kind) {
            case PlanField::Kind::typename_field:
                return OJson(schema_.query_type().name);
            case PlanField::Kind::schema_field:
                return resolve_memory(introspection().schema, ast::Type{"__Schema", {}, true, {}},
                                      f);
            case PlanField::Kind::type_field: {
                const auto& types = introspection().types;
                const auto it = types.find(f.args["name"].get<std::string>());
                if (it == types.end()) return OJson(nullptr);
                return resolve_memory(it->second, ast::Type{"__Type", {}, false, {}}, f);
            }
            case PlanField::Kind::field:
                break;
        }
        const FieldDef& def = *f.def;
        switch (def.role) {
            case FieldRole::single: {
                const Columns cols = columns_for(f.children);
                EntityLookup lookup{def.entity, cols.names, {f.args["id"].get<std::string>()}};
                auto rows = checked(source_.get_many(lookup), cols, def.entity);
                if (!rows) return std::unexpected(std::move(rows.error()));
                if (rows->empty()) return OJson(nullptr);
                rows->resize(1);
                auto objects = resolve_rows(*f.type, *rows, cols, f.children);
                if (!objects) return std::unexpected(std::move(objects.error()));
                return std::move((*objects)[0]);
            }
            case FieldRole::collection: {
                if (!f.page.has_value()) return fail(ErrorKind::execution, "no page", {f.loc});
                const detail::Page& page = *f.page;
                const Columns cols = columns_for(f.children);
                CollectionQuery q{def.entity, cols.names, page.filter, page.order,
                                  page.first, page.skip,  std::nullopt};
                auto rows = checked(source_.list(q), cols, def.entity);
                if (!rows) return std::unexpected(std::move(rows.error()));
                if (rows->size() > static_cast<std::size_t>(q.first))
                    return source_error("more rows than `first` asked for");
                auto objects = resolve_rows(*f.type, *rows, cols, f.children);
                if (!objects) return std::unexpected(std::move(objects.error()));
                OJson list = OJson::array();
                for (auto& o : *objects) list.push_back(std::move(o));
                return list;
            }
            case FieldRole::meta: {
                auto status = source_.status();
                if (!status) return std::unexpected(std::move(status.error()));
                const IndexStatus& st = *status;
                Json timestamp = nullptr;
                if (st.block_timestamp.has_value()) timestamp = *st.block_timestamp;
                Json block{{"number", st.block_num},
                           {"hash", detail::to_hex(st.block_hash)},
                           {"timestamp", std::move(timestamp)},
                           {"parentHash", nullptr}};
                Json meta{{"block", std::move(block)},
                          {"deployment", st.deployment},
                          {"hasIndexingErrors", st.has_indexing_errors}};
                return resolve_memory(meta, def.type, f);
            }
            default:
                return fail(ErrorKind::execution, "unexpected root field " + def.name, {f.loc});
        }
    }

    // GraphQL §6.4.3 CompleteValue for values held in memory (introspection, _meta).
    Result<OJson> resolve_memory(const Json& value, const ast::Type& type, const PlanField& f) {
        if (auto r = count(); !r) return std::unexpected(std::move(r.error()));
        if (value.is_null()) {
            if (type.non_null)
                return fail(ErrorKind::execution,
                            fmt::format("Cannot return null for non-nullable field {}.", f.key),
                            {f.loc});
            return OJson(nullptr);
        }
        if (type.is_list()) {
            OJson list = OJson::array();
            for (const auto& item : value) {
                auto v = resolve_memory(item, type.of[0], f);
                if (!v) return v;
                list.push_back(std::move(*v));
            }
            return list;
        }
        if (f.type->kind != TypeKind::object) return to_ordered(value);
        const Json* object = &value;
        if (const auto ref = value.find("__ref"); ref != value.end()) {
            const auto& types = introspection().types;
            const auto it = types.find(ref->get<std::string>());
            if (it == types.end())
                return fail(ErrorKind::execution, "unknown type " + ref->get<std::string>());
            object = &it->second;
        }
        OJson out = OJson::object();
        for (const auto& child : f.children) {
            if (child.kind == PlanField::Kind::typename_field) {
                out[child.key] = f.type->name;
                continue;
            }
            const auto it = object->find(child.def->name);
            static const Json kNull;
            auto v = resolve_memory(it == object->end() ? kNull : *it, child.def->type, child);
            if (!v) return v;
            out[child.key] = std::move(*v);
        }
        return out;
    }

    Result<OJson> scalar_value(const Scalar& s, const NamedType& named, bool non_null,
                               const std::string& where) {
        if (std::holds_alternative<std::monostate>(s)) {
            if (non_null)
                return fail(ErrorKind::execution,
                            fmt::format("Cannot return null for non-nullable field {}.", where));
            return OJson(nullptr);
        }
        const auto wrong = [&] {
            return source_error(fmt::format(
                "{} is {} where {} was expected", where,
                cell_kind(std::visit([](const auto& v) -> Cell { return v; }, s)), named.name));
        };
        const auto* str = std::get_if<std::string>(&s);
        const auto* num = std::get_if<std::int64_t>(&s);
        if (named.kind == TypeKind::enum_type) {
            if (str == nullptr || !named.has_enum_value(*str)) return wrong();
            return OJson(*str);
        }
        switch (named.scalar) {
            case ScalarKind::id:
            case ScalarKind::string:
                if (str == nullptr) return wrong();
                return OJson(*str);
            case ScalarKind::big_int:
            case ScalarKind::big_decimal:
                if (num != nullptr) return OJson(std::to_string(*num));
                if (str == nullptr) return wrong();
                return OJson(*str);
            case ScalarKind::int_value:
                if (num == nullptr || *num < INT32_MIN || *num > INT32_MAX) return wrong();
                return OJson(*num);
            case ScalarKind::boolean:
                if (const auto* b = std::get_if<bool>(&s)) return OJson(*b);
                return wrong();
            case ScalarKind::bytes:
                if (const auto* b = std::get_if<ByteString>(&s)) return OJson(detail::to_hex(*b));
                if (str != nullptr && str->starts_with("0x")) return OJson(*str);
                return wrong();
        }
        return wrong();
    }

    Result<OJson> cell_value(const Cell& cell, const FieldDef& def, const NamedType& parent) {
        if (auto r = count(); !r) return std::unexpected(std::move(r.error()));
        const std::string where = parent.name + "." + def.name;
        const NamedType& named = *schema_.type(named_type(def.type));
        if (!def.type.is_list())
            return scalar_value(cell_scalar(cell), named, def.type.non_null, where);
        if (std::holds_alternative<std::monostate>(cell)) {
            if (def.type.non_null)
                return fail(ErrorKind::execution,
                            fmt::format("Cannot return null for non-nullable field {}.", where));
            return OJson(nullptr);
        }
        const auto* list = std::get_if<ScalarList>(&cell);
        if (list == nullptr) return source_error(where + " is not a list");
        if (auto r = count(list->size()); !r) return std::unexpected(std::move(r.error()));
        OJson out = OJson::array();
        for (const auto& item : *list) {
            auto v = scalar_value(item, named, def.type.of[0].non_null, where);
            if (!v) return v;
            out.push_back(std::move(*v));
        }
        return out;
    }

    // The fields of many entities at once: each nested entity field costs one data-source call
    // for all of `rows`, whatever their number.
    Result<std::vector<OJson>> resolve_rows(const NamedType& entity, const std::vector<Row>& rows,
                                            const Columns& columns,
                                            const std::vector<PlanField>& fields) {
        std::vector<OJson> out(rows.size(), OJson::object());
        for (const auto& f : fields) {
            if (f.kind == PlanField::Kind::typename_field) {
                if (auto r = count(rows.size()); !r) return std::unexpected(std::move(r.error()));
                for (auto& o : out) o[f.key] = entity.name;
                continue;
            }
            const FieldDef& def = *f.def;
            switch (def.role) {
                case FieldRole::column: {
                    const std::size_t at = columns.index.at(def.name);
                    for (std::size_t i = 0; i < rows.size(); ++i) {
                        auto v = cell_value(rows[i][at], def, entity);
                        if (!v) return std::unexpected(std::move(v.error()));
                        out[i][f.key] = std::move(*v);
                    }
                    break;
                }
                case FieldRole::reference:
                    if (auto r = resolve_reference(entity, rows, columns, f, out); !r)
                        return std::unexpected(std::move(r.error()));
                    break;
                case FieldRole::derived:
                    if (auto r = resolve_derived(rows, f, out); !r)
                        return std::unexpected(std::move(r.error()));
                    break;
                default:
                    return fail(ErrorKind::execution, "unexpected field " + def.name, {f.loc});
            }
        }
        return out;
    }

    Result<void> resolve_reference(const NamedType& entity, const std::vector<Row>& rows,
                                   const Columns& columns, const PlanField& f,
                                   std::vector<OJson>& out) {
        const FieldDef& def = *f.def;
        const std::size_t at = columns.index.at(def.name);
        std::map<std::string, std::size_t, std::less<>> wanted;
        EntityLookup lookup;
        lookup.entity = def.entity;
        for (const auto& row : rows) {
            const auto* id = std::get_if<std::string>(&row[at]);
            if (id == nullptr) {
                if (!std::holds_alternative<std::monostate>(row[at]))
                    return source_error(fmt::format("{}.{} is not an id", entity.name, def.name));
                continue;
            }
            if (wanted.emplace(*id, 0).second) lookup.ids.push_back(*id);
        }
        std::vector<OJson> objects;
        if (!lookup.ids.empty()) {
            const Columns cols = columns_for(f.children);
            lookup.fields = cols.names;
            auto found = checked(source_.get_many(lookup), cols, def.entity);
            if (!found) return std::unexpected(std::move(found.error()));
            for (auto& [id, slot] : wanted) slot = SIZE_MAX;
            for (std::size_t j = 0; j < found->size(); ++j) {
                const auto it = wanted.find(std::get<std::string>((*found)[j][0]));
                if (it != wanted.end()) it->second = j;
            }
            auto resolved = resolve_rows(*f.type, *found, cols, f.children);
            if (!resolved) return std::unexpected(std::move(resolved.error()));
            objects = std::move(*resolved);
        }
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const auto* id = std::get_if<std::string>(&rows[i][at]);
            const auto it = id != nullptr ? wanted.find(*id) : wanted.end();
            if (it == wanted.end() || it->second == SIZE_MAX) {
                if (def.type.non_null)
                    return fail(ErrorKind::execution,
                                fmt::format("Cannot return null for non-nullable field {}.{}.",
                                            entity.name, def.name),
                                {f.loc});
                out[i][f.key] = nullptr;
            } else {
                out[i][f.key] = objects[it->second];
            }
        }
        return {};
    }

    Result<void> resolve_derived(const std::vector<Row>& rows, const PlanField& f,
                                 std::vector<OJson>& out) {
        const FieldDef& def = *f.def;
        for (auto& o : out) o[f.key] = OJson::array();
        if (rows.empty()) return {};
        if (!f.page.has_value()) return fail(ErrorKind::execution, "no page", {f.loc});
        const detail::Page& page = *f.page;
        const Columns cols = columns_for(f.children, def.derived_from);
        // Parent id -> the rows of this level with that id (a page may hold one entity twice
        // when it was reached through references).
        CollectionQuery::PerParent per_parent{def.derived_from, {}};
        std::map<std::string, std::vector<std::size_t>, std::less<>> parent;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const auto& id = std::get<std::string>(rows[i][0]);
            auto& slots = parent[id];
            if (slots.empty()) per_parent.ids.push_back(id);
            slots.push_back(i);
        }
        const CollectionQuery q{def.entity, cols.names, page.filter,          page.order,
                                page.first, page.skip,  std::move(per_parent)};
        auto found = checked(source_.list(q), cols, def.entity);
        if (!found) return std::unexpected(std::move(found.error()));
        auto resolved = resolve_rows(*f.type, *found, cols, f.children);
        if (!resolved) return std::unexpected(std::move(resolved.error()));
        const std::size_t back = cols.index.at(def.derived_from);
        for (std::size_t j = 0; j < found->size(); ++j) {
            const auto* id = std::get_if<std::string>(&(*found)[j][back]);
            const auto it = id != nullptr ? parent.find(*id) : parent.end();
            if (it == parent.end())
                return source_error("a row of " + def.entity + " has no parent");
            for (const std::size_t i : it->second) {
                auto& list = out[i][f.key];
                if (list.size() >= static_cast<std::size_t>(q.first))
                    return source_error("more rows than `first` asked for");
                list.push_back((*resolved)[j]);
            }
        }
        return {};
    }

    const detail::Introspection& introspection() {
        if (!introspection_) introspection_ = detail::build_introspection(schema_);
        return *introspection_;
    }

    const Schema& schema_;
    DataSource& source_;
    const ExecLimits& limits_;
    std::optional<detail::Introspection> introspection_;
    std::size_t outputs_ = 0;
};

// Nesting of a JSON text, counted without parsing it (strings skipped).
std::size_t json_depth(std::string_view text) {
    std::size_t depth = 0;
    std::size_t max = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            max = std::max(max, ++depth);
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return max;
}

OJson execute_checked(const Schema& schema, DataSource& source, const Request& request,
                      const Limits& limits) {
    auto doc = parse_document(request.query, limits.parse);
    if (!doc) return error_response({doc.error()});
    if (auto errors = validate_document(*doc); !errors.empty()) return error_response(errors);

    // GraphQL §6.1 GetOperation.
    const ast::OperationDefinition* op = nullptr;
    if (request.operation_name.empty()) {
        if (doc->operations.size() != 1)
            return error_response(
                {GraphqlError{ErrorKind::request,
                              "Must provide operation name if query contains multiple operations.",
                              {}}});
        op = &doc->operations[0];
    } else {
        for (const auto& o : doc->operations)
            if (o.name == request.operation_name) op = &o;
        if (op == nullptr)
            return error_response({GraphqlError{
                ErrorKind::request,
                fmt::format("Unknown operation named \"{}\".", request.operation_name),
                {}}});
    }
    if (op->kind != ast::OperationDefinition::Kind::query)
        return error_response({GraphqlError{
            ErrorKind::request,
            "Only queries are supported: this schema has no mutation or subscription type.",
            {op->loc}}});

    auto variables = detail::coerce_variables(schema, *op, request.variables, limits.exec);
    if (!variables) return error_response({variables.error()});
    auto plan = detail::plan_operation(schema, *doc, *op, *variables, limits.exec);
    if (!plan) return error_response({plan.error()});

    Runner runner(schema, source, limits.exec);
    auto data = runner.run(*plan);
    if (!data) {
        OJson out = error_response({data.error()});
        out["data"] = nullptr;
        return out;
    }
    OJson out = OJson::object();
    out["data"] = std::move(*data);
    return out;
}

}  // namespace

OJson error_response(const std::vector<GraphqlError>& errors) {
    OJson list = OJson::array();
    for (const auto& e : errors) list.push_back(error_json(e));
    OJson out = OJson::object();
    out["errors"] = std::move(list);
    return out;
}

Result<Request> parse_request(std::string_view body, const Limits& limits) {
    if (body.size() > 4 * limits.parse.max_document_bytes)
        return fail(ErrorKind::limit, "the request body is too large");
    // The query sits in a string; the variables are what nests.
    if (json_depth(body) > limits.exec.max_input_depth + 1)
        return fail(ErrorKind::limit, "the request body nests too deeply");
    const Json parsed = Json::parse(body, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object())
        return fail(ErrorKind::request, "the request body must be a JSON object");
    Request request;
    const auto query = parsed.find("query");
    if (query == parsed.end() || !query->is_string())
        return fail(ErrorKind::request, "the request must have a \"query\" string");
    request.query = query->get<std::string>();
    if (const auto v = parsed.find("variables"); v != parsed.end()) {
        if (!v->is_null() && !v->is_object())
            return fail(ErrorKind::request, "\"variables\" must be an object");
        request.variables = *v;
    }
    if (const auto name = parsed.find("operationName"); name != parsed.end()) {
        if (!name->is_null() && !name->is_string())
            return fail(ErrorKind::request, "\"operationName\" must be a string");
        if (name->is_string()) request.operation_name = name->get<std::string>();
    }
    return request;
}

OJson execute(const Schema& schema, DataSource& source, const Request& request,
              const Limits& limits) {
    try {
        return execute_checked(schema, source, request, limits);
    } catch (const std::exception& e) {
        // The one boundary: nothing escapes the API, not even an allocation failure.
        return error_response(
            {GraphqlError{ErrorKind::execution, std::string("internal error: ") + e.what(), {}}});
    }
}

}  // namespace credence::graphql
