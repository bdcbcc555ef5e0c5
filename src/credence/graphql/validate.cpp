#include <credence/graphql/validate.hpp>

#include <fmt/format.h>

#include <map>
#include <set>
#include <string>
#include <utility>

namespace credence::graphql {

namespace {

using Names = std::map<std::string, std::size_t, std::less<>>;

std::unexpected<GraphqlError> invalid(std::string message, std::vector<Location> locs) {
    return fail(ErrorKind::validation, std::move(message), std::move(locs));
}

// The fragment spreads and variable uses of one selection set, found without recursion.
struct Uses {
    std::vector<const ast::Selection*> spreads;
    std::vector<const ast::Value*> variables;
};

void collect_values(const ast::Value& root, Uses& uses) {
    std::vector<const ast::Value*> stack{&root};
    while (!stack.empty()) {
        const auto* v = stack.back();
        stack.pop_back();
        if (v->kind == ast::Value::Kind::variable) uses.variables.push_back(v);
        for (const auto& item : v->list) stack.push_back(&item);
        for (const auto& f : v->fields) stack.push_back(&f.value);
    }
}

void collect_directives(const std::vector<ast::Directive>& directives, Uses& uses) {
    for (const auto& d : directives)
        for (const auto& a : d.arguments) collect_values(a.value, uses);
}

Uses collect_uses(const ast::SelectionSet& root, const std::vector<ast::Directive>& directives) {
    Uses uses;
    collect_directives(directives, uses);
    std::vector<const ast::SelectionSet*> stack{&root};
    while (!stack.empty()) {
        const auto* set = stack.back();
        stack.pop_back();
        for (const auto& sel : set->selections) {
            if (sel.kind == ast::Selection::Kind::fragment_spread) uses.spreads.push_back(&sel);
            for (const auto& a : sel.arguments) collect_values(a.value, uses);
            collect_directives(sel.directives, uses);
            if (sel.selection_set) stack.push_back(&*sel.selection_set);
        }
    }
    return uses;
}

}  // namespace

std::vector<GraphqlError> validate_document(const ast::Document& doc) {
    std::vector<GraphqlError> errors;
    const auto report = [&](std::string message, std::vector<Location> locs) {
        errors.push_back(invalid(std::move(message), std::move(locs)).error());
    };

    // GraphQL §5.2.1.1 Operation Name Uniqueness; §5.2.2.1 Lone Anonymous Operation.
    Names operations;
    for (std::size_t i = 0; i < doc.operations.size(); ++i) {
        const auto& op = doc.operations[i];
        if (op.name.empty()) {
            if (doc.operations.size() > 1)
                report("This anonymous operation must be the only defined operation.", {op.loc});
            continue;
        }
        const auto [it, fresh] = operations.emplace(op.name, i);
        if (!fresh)
            report(fmt::format("There can be only one operation named \"{}\".", op.name),
                   {doc.operations[it->second].loc, op.loc});
    }

    // GraphQL §5.5.1.1 Fragment Name Uniqueness.
    Names fragments;
    for (std::size_t i = 0; i < doc.fragments.size(); ++i) {
        const auto& f = doc.fragments[i];
        const auto [it, fresh] = fragments.emplace(f.name, i);
        if (!fresh)
            report(fmt::format("There can be only one fragment named \"{}\".", f.name),
                   {doc.fragments[it->second].loc, f.loc});
    }

    std::vector<Uses> fragment_uses;
    fragment_uses.reserve(doc.fragments.size());
    for (const auto& f : doc.fragments)
        fragment_uses.push_back(collect_uses(f.selection_set, f.directives));

    // GraphQL §5.5.2.1 Fragment spread target defined.
    const auto check_targets = [&](const Uses& uses) {
        for (const auto* spread : uses.spreads)
            if (!fragments.contains(spread->name))
                report(fmt::format("Unknown fragment \"{}\".", spread->name), {spread->loc});
    };
    for (const auto& uses : fragment_uses) check_targets(uses);

    // GraphQL §5.5.2.2 Fragment spreads must not form cycles: an iterative depth-first search
    // over the spread graph (white/grey/black), one report per cycle found.
    {
        enum class Mark : std::uint8_t { white, grey, black };
        std::vector<Mark> mark(doc.fragments.size(), Mark::white);
        for (std::size_t start = 0; start < doc.fragments.size(); ++start) {
            if (mark[start] != Mark::white) continue;
            // (fragment, next spread index)
            std::vector<std::pair<std::size_t, std::size_t>> stack{{start, 0}};
            mark[start] = Mark::grey;
            while (!stack.empty()) {
                auto& [frag, next] = stack.back();
                const auto& spreads = fragment_uses[frag].spreads;
                if (next == spreads.size()) {
                    mark[frag] = Mark::black;
                    stack.pop_back();
                    continue;
                }
                const auto* spread = spreads[next++];
                const auto it = fragments.find(spread->name);
                if (it == fragments.end()) continue;
                const std::size_t target = it->second;
                if (mark[target] == Mark::grey) {
                    report(
                        fmt::format("Cannot spread fragment \"{}\" within itself.", spread->name),
                        {spread->loc});
                } else if (mark[target] == Mark::white) {
                    mark[target] = Mark::grey;
                    stack.emplace_back(target, 0);
                }
            }
        }
    }

    std::vector<bool> fragment_used(doc.fragments.size(), false);
    for (const auto& op : doc.operations) {
        Uses uses = collect_uses(op.selection_set, op.directives);
        check_targets(uses);
        // The fragments this operation reaches, transitively (each once).
        std::vector<bool> reached(doc.fragments.size(), false);
        std::vector<std::size_t> work;
        const auto reach = [&](const Uses& u) {
            for (const auto* spread : u.spreads) {
                const auto it = fragments.find(spread->name);
                if (it != fragments.end() && !reached[it->second]) {
                    reached[it->second] = true;
                    work.push_back(it->second);
                }
            }
        };
        reach(uses);
        std::vector<const ast::Value*> variables = uses.variables;
        while (!work.empty()) {
            const auto f = work.back();
            work.pop_back();
            fragment_used[f] = true;
            reach(fragment_uses[f]);
            variables.insert(variables.end(), fragment_uses[f].variables.begin(),
                             fragment_uses[f].variables.end());
        }
        // GraphQL §5.8.1 Variable Uniqueness.
        Names defined;
        for (std::size_t i = 0; i < op.variables.size(); ++i) {
            const auto& v = op.variables[i];
            if (!defined.emplace(v.name, i).second)
                report(fmt::format("There can be only one variable named \"${}\".", v.name),
                       {v.loc});
            // Default values are constants (the grammar), so they use no variables.
        }
        // GraphQL §5.8.3 All Variable Uses Defined; §5.8.4 All Variables Used.
        std::set<std::string, std::less<>> used;
        for (const auto* v : variables) {
            used.insert(v->text);
            if (!defined.contains(v->text)) {
                report(op.name.empty()
                           ? fmt::format("Variable \"${}\" is not defined.", v->text)
                           : fmt::format("Variable \"${}\" is not defined by operation \"{}\".",
                                         v->text, op.name),
                       {v->loc, op.loc});
            }
        }
        for (const auto& v : op.variables)
            if (!used.contains(v.name))
                report(fmt::format("Variable \"${}\" is never used.", v.name), {v.loc});
    }

    // GraphQL §5.5.1.4 Fragments Must Be Used.
    for (std::size_t i = 0; i < doc.fragments.size(); ++i)
        if (!fragment_used[i])
            report(fmt::format("Fragment \"{}\" is never used.", doc.fragments[i].name),
                   {doc.fragments[i].loc});
    return errors;
}

}  // namespace credence::graphql
