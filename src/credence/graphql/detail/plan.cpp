#include <credence/graphql/detail/plan.hpp>

#include <fmt/format.h>

#include <map>
#include <set>
#include <utility>

#include <credence/graphql/parser.hpp>

namespace credence::graphql::detail {

namespace {

using Group = std::vector<const ast::Selection*>;

struct Collected {
    std::vector<std::pair<std::string, Group>> groups;  // in first-seen order (GraphQL §6.3.2)
    std::map<std::string, std::size_t, std::less<>> index;
};

std::unexpected<GraphqlError> invalid(std::string message, Location loc) {
    return fail(ErrorKind::validation, std::move(message), {loc});
}

bool values_equal(const ast::Value& a, const ast::Value& b) {
    if (a.kind != b.kind || a.text != b.text || a.boolean != b.boolean ||
        a.list.size() != b.list.size() || a.fields.size() != b.fields.size())
        return false;
    for (std::size_t i = 0; i < a.list.size(); ++i)
        if (!values_equal(a.list[i], b.list[i])) return false;
    for (std::size_t i = 0; i < a.fields.size(); ++i)
        if (a.fields[i].name != b.fields[i].name ||
            !values_equal(a.fields[i].value, b.fields[i].value))
            return false;
    return true;
}

bool arguments_equal(const std::vector<ast::Argument>& a, const std::vector<ast::Argument>& b) {
    if (a.size() != b.size()) return false;
    for (const auto& x : a) {
        bool found = false;
        for (const auto& y : b)
            if (x.name == y.name && values_equal(x.value, y.value)) found = true;
        if (!found) return false;
    }
    return true;
}

class Planner {
public:
    Planner(const Schema& schema, const ast::Document& doc, const Variables& variables,
            const ExecLimits& limits)
        : schema_(schema), variables_(variables), limits_(limits) {
        for (const auto& f : doc.fragments) fragments_.emplace(f.name, &f);
        boolean_ = ast::Type{"Boolean", {}, true, {}};
    }

    Result<Plan> run(const ast::OperationDefinition& op) {
        // GraphQL §5.7.2 Directives Are In Valid Locations: @skip/@include are for fields and
        // fragments, not operations.
        for (const auto& d : op.directives) {
            if (auto r = check_directive_known(d); !r) return std::unexpected(std::move(r.error()));
            return invalid(
                fmt::format("Directive \"@{}\" may not be used on this operation.", d.name), d.loc);
        }
        for (const auto& v : op.variables)
            if (!v.directives.empty())
                return invalid("Directives are not supported on variable definitions.",
                               v.directives[0].loc);
        for (const auto& [name, frag] : fragments_)
            if (!frag->directives.empty())
                return invalid(fmt::format("Directive \"@{}\" may not be used on a fragment "
                                           "definition.",
                                           frag->directives[0].name),
                               frag->directives[0].loc);
        Plan plan;
        plan.root = &schema_.query_type();
        Collected collected;
        std::set<std::string, std::less<>> visited;
        if (auto r = collect(*plan.root, op.selection_set, collected, visited, 0); !r)
            return std::unexpected(std::move(r.error()));
        auto fields = plan_fields(*plan.root, collected, 1, 1);
        if (!fields) return std::unexpected(std::move(fields.error()));
        plan.fields = std::move(*fields);
        plan.cost = cost_;
        return plan;
    }

private:
    Result<void> check_directive_known(const ast::Directive& d) {
        // GraphQL §5.7.1 Directives Are Defined: only @skip and @include are executable here.
        if (d.name != "skip" && d.name != "include")
            return invalid(fmt::format("Unknown directive \"@{}\".", d.name), d.loc);
        return {};
    }

    // GraphQL §6.3.2 CollectFields: false when @skip(if: true) or @include(if: false).
    Result<bool> included(const std::vector<ast::Directive>& directives) {
        bool include = true;
        std::set<std::string_view> seen;
        for (const auto& d : directives) {
            if (auto r = check_directive_known(d); !r) return std::unexpected(std::move(r.error()));
            // GraphQL §5.7.3 Directives Are Unique Per Location.
            if (!seen.insert(d.name).second)
                return invalid(fmt::format("The directive \"@{}\" can only be used once at this "
                                           "location.",
                                           d.name),
                               d.loc);
            const ast::Value* condition = nullptr;
            for (const auto& a : d.arguments) {
                if (a.name != "if")
                    return invalid(fmt::format("Unknown argument \"{}\" on directive \"@{}\".",
                                               a.name, d.name),
                                   a.loc);
                if (condition != nullptr)
                    return invalid("There can be only one argument named \"if\".", a.loc);
                condition = &a.value;
            }
            if (condition == nullptr)
                return invalid(fmt::format("Directive \"@{}\" argument \"if\" of type "
                                           "\"Boolean!\" is required, but it was not provided.",
                                           d.name),
                               d.loc);
            auto value = coerce_literal(schema_, *condition, boolean_, variables_, false);
            if (!value) return std::unexpected(std::move(value.error()));
            const std::optional<Json>& given = *value;
            if (!given.has_value() || !given->is_boolean())
                return invalid("The \"if\" argument must be a Boolean.", condition->loc);
            const bool flag = given->get<bool>();
            if ((d.name == "skip" && flag) || (d.name == "include" && !flag)) include = false;
        }
        return include;
    }

    // GraphQL §5.5.1.2 Fragment Spread Type Existence, §5.5.1.3 Fragments On Composite Types,
    // §5.5.2.3 Fragment Spread Is Possible: with object types only, the condition must name the
    // parent type itself.
    Result<void> check_condition(const NamedType& parent, const std::string& condition,
                                 Location loc, const std::string& what) {
        if (condition.empty()) return {};
        const NamedType* t = schema_.type(condition);
        if (t == nullptr) return invalid(fmt::format("Unknown type \"{}\".", condition), loc);
        if (t->kind != TypeKind::object)
            return invalid(
                fmt::format("{} cannot condition on non composite type \"{}\".", what, condition),
                loc);
        if (t != &parent)
            return invalid(fmt::format("{} cannot be spread here as objects of type \"{}\" can "
                                       "never be of type \"{}\".",
                                       what, parent.name, condition),
                           loc);
        return {};
    }

    Result<void> collect(const NamedType& type, const ast::SelectionSet& set, Collected& out,
                         std::set<std::string, std::less<>>& visited, std::size_t fragment_depth) {
        // Fragments are acyclic (validate_document), but a long chain of spreads still recurses;
        // bound it like nesting.
        if (fragment_depth > limits_.max_depth)
            return fail(ErrorKind::limit,
                        fmt::format("fragments nest deeper than {} levels", limits_.max_depth),
                        {set.loc});
        for (const auto& sel : set.selections) {
            auto keep = included(sel.directives);
            if (!keep) return std::unexpected(std::move(keep.error()));
            switch (sel.kind) {
                case ast::Selection::Kind::field: {
                    if (++selected_ > limits_.max_selected_fields)
                        return fail(ErrorKind::limit,
                                    fmt::format("the query selects more than {} fields",
                                                limits_.max_selected_fields),
                                    {sel.loc});
                    // Skipped fields are still validated (GraphQL §5 is independent of
                    // variables), but not executed.
                    const auto& key = sel.response_key();
                    if (!*keep) {
                        if (!is_meta_field(type, sel.name) && type.field(sel.name) == nullptr)
                            return invalid(fmt::format("Cannot query field \"{}\" on type "
                                                       "\"{}\".",
                                                       sel.name, type.name),
                                           sel.loc);
                        continue;
                    }
                    const auto it = out.index.find(key);
                    if (it == out.index.end()) {
                        out.index.emplace(key, out.groups.size());
                        out.groups.emplace_back(key, Group{&sel});
                    } else {
                        out.groups[it->second].second.push_back(&sel);
                    }
                    break;
                }
                case ast::Selection::Kind::fragment_spread: {
                    const auto it = fragments_.find(sel.name);
                    if (it == fragments_.end())
                        return invalid(fmt::format("Unknown fragment \"{}\".", sel.name), sel.loc);
                    if (auto r = check_condition(type, it->second->type_condition, sel.loc,
                                                 fmt::format("Fragment \"{}\"", sel.name));
                        !r)
                        return r;
                    if (!*keep || !visited.insert(sel.name).second) continue;
                    if (auto r = collect(type, it->second->selection_set, out, visited,
                                         fragment_depth + 1);
                        !r)
                        return r;
                    break;
                }
                case ast::Selection::Kind::inline_fragment: {
                    if (auto r = check_condition(type, sel.type_condition, sel.loc, "Fragment"); !r)
                        return r;
                    if (!*keep || !sel.selection_set.has_value()) continue;
                    if (auto r =
                            collect(type, *sel.selection_set, out, visited, fragment_depth + 1);
                        !r)
                        return r;
                    break;
                }
            }
        }
        return {};
    }

    Result<Json> coerce_arguments(const ast::Selection& sel, const std::vector<InputValue>& defs,
                                  const std::string& owner) {
        Json args = Json::object();
        std::set<std::string_view> seen;
        for (const auto& a : sel.arguments) {
            // GraphQL §5.4.1 Argument Names; §5.4.2 Argument Uniqueness.
            const InputValue* def = nullptr;
            for (const auto& d : defs)
                if (d.name == a.name) def = &d;
            if (def == nullptr)
                return invalid(
                    fmt::format("Unknown argument \"{}\" on field \"{}\".", a.name, owner), a.loc);
            if (!seen.insert(a.name).second)
                return invalid(fmt::format("There can be only one argument named \"{}\".", a.name),
                               a.loc);
        }
        for (const auto& def : defs) {
            const ast::Argument* given = nullptr;
            for (const auto& a : sel.arguments)
                if (a.name == def.name) given = &a;
            std::optional<Json> value;
            if (given != nullptr) {
                auto r = coerce_literal(schema_, given->value, def.type, variables_,
                                        !def.default_value.empty());
                if (!r) return std::unexpected(std::move(r.error()));
                value = std::move(*r);
            }
            if (!value && !def.default_value.empty()) {
                auto parsed = parse_const_value(def.default_value);
                if (!parsed) return std::unexpected(std::move(parsed.error()));
                auto r = coerce_literal(schema_, *parsed, def.type, {}, false);
                if (!r) return std::unexpected(std::move(r.error()));
                value = std::move(*r);
            }
            // GraphQL §5.4.2.1 Required Arguments.
            if (!value && def.type.non_null)
                return invalid(fmt::format("Field \"{}\" argument \"{}\" of type \"{}\" is "
                                           "required, but it was not provided.",
                                           owner, def.name, type_to_string(def.type)),
                               sel.loc);
            if (value) args[def.name] = std::move(*value);
        }
        return args;
    }

    Result<Page> make_page(const PlanField& field, const NamedType& entity) {
        Page page;
        const auto& args = field.args;
        const auto int_arg = [&](const char* name, std::int64_t fallback) {
            const auto it = args.find(name);
            return it == args.end() || it->is_null() ? fallback : it->get<std::int64_t>();
        };
        page.first = int_arg("first", limits_.default_first);
        page.skip = int_arg("skip", 0);
        if (page.first < 0 || page.first > limits_.max_first)
            return fail(ErrorKind::limit,
                        fmt::format("The `first` argument must be between 0 and {}, but is {}",
                                    limits_.max_first, page.first),
                        {field.loc});
        if (page.skip < 0 || page.skip > limits_.max_skip)
            return fail(ErrorKind::limit,
                        fmt::format("The `skip` argument must be between 0 and {}, but is {}",
                                    limits_.max_skip, page.skip),
                        {field.loc});
        if (const auto it = args.find("orderBy"); it != args.end() && it->is_string())
            page.order.field = it->get<std::string>();
        else
            page.order.field = "id";
        if (const auto it = args.find("orderDirection"); it != args.end() && it->is_string())
            page.order.descending = it->get<std::string>() == "desc";
        if (const auto it = args.find("where"); it != args.end()) {
            std::size_t nodes = 0;
            auto filter = make_filter(schema_, entity, *it, limits_, nodes);
            if (!filter) {
                filter.error().locations = {field.loc};
                return std::unexpected(std::move(filter.error()));
            }
            page.filter = std::move(*filter);
        }
        return page;
    }

    Result<void> add_cost(std::int64_t rows, Location loc) {
        cost_ += rows;
        if (rows > limits_.max_cost || cost_ > limits_.max_cost)
            return fail(ErrorKind::limit,
                        fmt::format("the query may return more than {} rows (the product of "
                                    "`first` along nested lists, summed); ask for smaller pages",
                                    limits_.max_cost),
                        {loc});
        return {};
    }

    Result<std::vector<PlanField>> plan_fields(const NamedType& type, const Collected& collected,
                                               std::size_t depth, std::int64_t multiplier) {
        std::vector<PlanField> out;
        for (const auto& [key, group] : collected.groups) {
            const ast::Selection& first = *group[0];
            // GraphQL §5.3.2 Field Selection Merging (for object types: same field, same
            // arguments).
            for (const auto* other : group) {
                if (other->name != first.name)
                    return invalid(fmt::format("Fields \"{}\" conflict because \"{}\" and \"{}\" "
                                               "are different fields. Use different aliases on "
                                               "the fields to fetch both if this was "
                                               "intentional.",
                                               key, first.name, other->name),
                                   other->loc);
                if (!arguments_equal(first.arguments, other->arguments))
                    return invalid(fmt::format("Fields \"{}\" conflict because they have "
                                               "differing arguments. Use different aliases on "
                                               "the fields to fetch both if this was "
                                               "intentional.",
                                               key),
                                   other->loc);
            }
            auto field = plan_field(type, group, depth, multiplier);
            if (!field) return std::unexpected(std::move(field.error()));
            out.push_back(std::move(*field));
        }
        return out;
    }

    Result<PlanField> plan_field(const NamedType& parent, const Group& group, std::size_t depth,
                                 std::int64_t multiplier) {
        const ast::Selection& sel = *group[0];
        PlanField field;
        field.key = sel.response_key();
        field.loc = sel.loc;
        if (depth > limits_.max_depth)
            return fail(ErrorKind::limit,
                        fmt::format("the query nests deeper than {} fields", limits_.max_depth),
                        {sel.loc});
        const std::string owner = parent.name + "." + sel.name;
        static const FieldDef kTypename{
            "__typename", {}, ast::Type{"String", {}, true, {}}, {}, FieldRole::in_memory, {}, {}};
        static const std::vector<InputValue> kTypeArgs{InputValue{
            "name", {}, ast::Type{"String", {}, true, {}}, {}, {}, FilterOp::equal, false}};
        const std::vector<InputValue>* arg_defs = nullptr;
        ast::Type value_type;
        if (sel.name == "__typename") {
            field.kind = PlanField::Kind::typename_field;
            arg_defs = &kTypename.args;
            value_type = kTypename.type;
        } else if (&parent == &schema_.query_type() && sel.name == "__schema") {
            field.kind = PlanField::Kind::schema_field;
            arg_defs = &kTypename.args;
            value_type = ast::Type{"__Schema", {}, true, {}};
        } else if (&parent == &schema_.query_type() && sel.name == "__type") {
            field.kind = PlanField::Kind::type_field;
            arg_defs = &kTypeArgs;
            value_type = ast::Type{"__Type", {}, false, {}};
        } else {
            // GraphQL §5.3.1 Field Selections.
            field.def = parent.field(sel.name);
            if (field.def == nullptr)
                return invalid(
                    fmt::format("Cannot query field \"{}\" on type \"{}\".", sel.name, parent.name),
                    sel.loc);
            arg_defs = &field.def->args;
            value_type = field.def->type;
        }
        auto args = coerce_arguments(sel, *arg_defs, owner);
        if (!args) return std::unexpected(std::move(args.error()));
        field.args = std::move(*args);
        field.type = schema_.type(named_type(value_type));
        if (field.type == nullptr)
            return fail(ErrorKind::execution, "no type " + named_type(value_type), {sel.loc});
        // GraphQL §5.3.3 Leaf Field Selections.
        const bool composite = field.type->kind == TypeKind::object;
        for (const auto* s : group) {
            if (composite && !s->selection_set)
                return invalid(fmt::format("Field \"{}\" of type \"{}\" must have a selection of "
                                           "subfields. Did you mean \"{} {{ ... }}\"?",
                                           s->name, type_to_string(value_type), s->name),
                               s->loc);
            if (!composite && s->selection_set)
                return invalid(fmt::format("Field \"{}\" must not have a selection since type "
                                           "\"{}\" has no subfields.",
                                           s->name, type_to_string(value_type)),
                               s->loc);
        }
        if (field.args.contains("block") && !field.args["block"].is_null())
            return fail(ErrorKind::validation,
                        "The `block` argument (time-travel queries) is not supported; queries "
                        "read the latest indexed block",
                        {sel.loc});
        std::int64_t rows = multiplier;
        if (field.def != nullptr) {
            switch (field.def->role) {
                case FieldRole::collection:
                case FieldRole::derived: {
                    auto page = make_page(field, *schema_.type(field.def->entity));
                    if (!page) return std::unexpected(std::move(page.error()));
                    rows = multiplier * std::max<std::int64_t>(page->first, 1);
                    field.page = std::move(*page);
                    if (auto r = add_cost(rows, sel.loc); !r)
                        return std::unexpected(std::move(r.error()));
                    break;
                }
                case FieldRole::single:
                case FieldRole::reference:
                    if (auto r = add_cost(rows, sel.loc); !r)
                        return std::unexpected(std::move(r.error()));
                    break;
                default:
                    break;
            }
        }
        if (composite) {
            Collected collected;
            std::set<std::string, std::less<>> visited;
            for (const auto* s : group) {
                if (!s->selection_set.has_value()) continue;  // refused above
                if (auto r = collect(*field.type, *s->selection_set, collected, visited, 0); !r)
                    return std::unexpected(std::move(r.error()));
            }
            auto children = plan_fields(*field.type, collected, depth + 1, rows);
            if (!children) return std::unexpected(std::move(children.error()));
            field.children = std::move(*children);
        }
        return field;
    }

    [[nodiscard]] bool is_meta_field(const NamedType& type, std::string_view name) const {
        return name == "__typename" ||
               (&type == &schema_.query_type() && (name == "__schema" || name == "__type"));
    }

    const Schema& schema_;
    const Variables& variables_;
    const ExecLimits& limits_;
    std::map<std::string, const ast::FragmentDefinition*, std::less<>> fragments_;
    ast::Type boolean_;
    std::size_t selected_ = 0;
    std::int64_t cost_ = 0;
};

}  // namespace

Result<Plan> plan_operation(const Schema& schema, const ast::Document& doc,
                            const ast::OperationDefinition& op, const Variables& variables,
                            const ExecLimits& limits) {
    Planner planner(schema, doc, variables, limits);
    return planner.run(op);
}

}  // namespace credence::graphql::detail
