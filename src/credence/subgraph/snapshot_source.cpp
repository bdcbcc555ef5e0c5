#include <credence/subgraph/snapshot_source.hpp>

#include <algorithm>
#include <cctype>
#include <numeric>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace credence::subgraph {
namespace {

using graphql::ByteString;
using graphql::Cell;
using graphql::Filter;
using graphql::FilterOp;
using graphql::Row;
using graphql::Scalar;
using graphql::ScalarKind;
using graphql::ScalarList;

// ---- comparing --------------------------------------------------------------------------------

struct DecimalParts {
    bool negative = false;
    std::string_view integer;   // without leading zeros
    std::string_view fraction;  // without trailing zeros
};

std::optional<DecimalParts> decimal_parts(std::string_view s) {
    DecimalParts p;
    if (s.starts_with('-')) {
        p.negative = true;
        s.remove_prefix(1);
    }
    const auto dot = s.find('.');
    std::string_view integer = s.substr(0, dot);
    std::string_view fraction = dot == std::string_view::npos ? "" : s.substr(dot + 1);
    if (integer.empty() && fraction.empty()) return std::nullopt;
    const auto digits = [](std::string_view d) {
        return std::ranges::all_of(d, [](char c) { return c >= '0' && c <= '9'; });
    };
    if (!digits(integer) || !digits(fraction)) return std::nullopt;
    while (!integer.empty() && integer.front() == '0') integer.remove_prefix(1);
    while (!fraction.empty() && fraction.back() == '0') fraction.remove_suffix(1);
    p.integer = integer;
    p.fraction = fraction;
    if (integer.empty() && fraction.empty()) p.negative = false;  // -0 is 0
    return p;
}

int sign_of(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

// Exact comparison of two decimal numbers in text; byte-wise when either is not a number.
int compare_decimal(std::string_view a, std::string_view b) {
    auto x = decimal_parts(a);
    auto y = decimal_parts(b);
    if (!x || !y) return sign_of(a.compare(b));
    if (x->negative != y->negative) return x->negative ? -1 : 1;
    int magnitude = 0;
    if (x->integer.size() != y->integer.size()) {
        magnitude = x->integer.size() < y->integer.size() ? -1 : 1;
    } else if (int c = x->integer.compare(y->integer); c != 0) {
        magnitude = sign_of(c);
    } else {
        magnitude = sign_of(x->fraction.compare(y->fraction));
    }
    return x->negative ? -magnitude : magnitude;
}

std::string numeric_text(const Cell& c) {
    if (const auto* i = std::get_if<int64_t>(&c)) return std::to_string(*i);
    if (const auto* s = std::get_if<std::string>(&c)) return *s;
    return {};
}

bool is_null(const Cell& c) { return std::holds_alternative<std::monostate>(c); }

Cell as_cell(const Scalar& s) {
    return std::visit([](const auto& v) -> Cell { return v; }, s);
}

std::string_view raw_text(const Cell& c) {
    if (const auto* s = std::get_if<std::string>(&c)) return *s;
    if (const auto* b = std::get_if<ByteString>(&c))
        return {reinterpret_cast<const char*>(b->bytes.data()), b->bytes.size()};  // NOLINT
    return {};
}

std::string fold_case(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// ---- compiled filters -------------------------------------------------------------------------

struct Compiled {
    Filter::Kind kind = Filter::Kind::all;
    const FieldSpec* field = nullptr;  // compare, and nested over a reference
    FilterOp op = FilterOp::equal;
    Cell operand;
    std::string lowered;                 // the operand's text, lower case, for *_nocase
    std::vector<std::string> lowered_list;  // a list operand's texts, lower case
    bool list_field = false;
    ScalarKind scalar = ScalarKind::string;
    const Relation* relation = nullptr;  // nested over an @derivedFrom list
    std::vector<Compiled> children;
};

graphql::Result<Compiled> compile(const Filter& f, Entity e) {
    Compiled c;
    c.kind = f.kind;
    Entity child_entity = e;
    if (f.kind == Filter::Kind::compare || f.kind == Filter::Kind::nested) {
        if (f.kind == Filter::Kind::nested && !f.derived_from.empty()) {
            auto target = entity_named(f.entity);
            c.relation = target ? relation_of(*target, f.derived_from) : nullptr;
            if (c.relation == nullptr)
                return graphql::fail(graphql::ErrorKind::data_source,
                                     fmt::format("no list {}.{}", entity_name(e), f.field));
            child_entity = *target;
        } else {
            c.field = entity_field(e, f.field);
            if (c.field == nullptr)
                return graphql::fail(graphql::ErrorKind::data_source,
                                     fmt::format("no field {}.{}", entity_name(e), f.field));
            if (f.kind == Filter::Kind::nested) {
                if (!c.field->target)
                    return graphql::fail(graphql::ErrorKind::data_source,
                                         fmt::format("{} is not a reference", f.field));
                child_entity = *c.field->target;
            }
        }
    }
    if (f.kind == Filter::Kind::compare) {
        c.op = f.op;
        c.operand = f.operand;
        c.list_field = f.list_field;
        c.scalar = f.scalar;
        c.lowered = fold_case(raw_text(f.operand));
        if (const auto* list = std::get_if<ScalarList>(&f.operand)) {
            for (const Scalar& s : *list) c.lowered_list.push_back(fold_case(raw_text(as_cell(s))));
        }
    }
    for (const Filter& child : f.children) {
        auto compiled = compile(child, child_entity);
        if (!compiled) return std::unexpected(compiled.error());
        c.children.push_back(std::move(*compiled));
    }
    return c;
}

class Evaluator {
public:
    explicit Evaluator(const Snapshot& s) : s_(s) {}

    bool holds(const Compiled& c, uint32_t row) const {
        switch (c.kind) {
            case Filter::Kind::all:
                return std::ranges::all_of(c.children,
                                           [&](const Compiled& x) { return holds(x, row); });
            case Filter::Kind::any:
                return std::ranges::any_of(c.children,
                                           [&](const Compiled& x) { return holds(x, row); });
            case Filter::Kind::nested:
                return nested(c, row);
            case Filter::Kind::compare:
                break;
        }
        const Cell value = c.field->cell(s_, row);
        return c.list_field ? list_holds(c, value) : scalar_holds(c, value);
    }

private:
    bool all_children(const Compiled& c, uint32_t row) const {
        return std::ranges::all_of(c.children, [&](const Compiled& x) { return holds(x, row); });
    }

    bool nested(const Compiled& c, uint32_t row) const {
        if (c.relation != nullptr) {
            const auto& rows = c.relation->children(s_, row);
            return std::ranges::any_of(rows, [&](uint32_t r) { return all_children(c, r); });
        }
        const uint32_t target = c.field->target_row(s_, row);
        return target != kNone && all_children(c, target);
    }

    static bool list_holds(const Compiled& c, const Cell& value) {
        const bool operand_null = is_null(c.operand);
        if (c.op == FilterOp::equal) return operand_null ? is_null(value) : value == c.operand;
        if (c.op == FilterOp::not_equal) return operand_null ? !is_null(value) : value != c.operand;
        const auto* have = std::get_if<ScalarList>(&value);
        const auto* want = std::get_if<ScalarList>(&c.operand);
        if (have == nullptr || want == nullptr) return false;
        const bool nocase =
            c.op == FilterOp::contains_nocase || c.op == FilterOp::not_contains_nocase;
        const auto has = [&](size_t i) {
            return std::ranges::any_of(*have, [&](const Scalar& h) {
                return nocase ? fold_case(raw_text(as_cell(h))) == c.lowered_list[i]
                              : h == (*want)[i];
            });
        };
        const bool negated =
            c.op == FilterOp::not_contains || c.op == FilterOp::not_contains_nocase;
        bool all = true;
        bool any = false;
        for (size_t i = 0; i < want->size(); ++i) {
            const bool found = has(i);
            all = all && found;
            any = any || found;
        }
        return negated ? !any : all;
    }

    static bool scalar_holds(const Compiled& c, const Cell& value) {
        const bool null_value = is_null(value);
        const bool operand_null = is_null(c.operand);
        switch (c.op) {
            case FilterOp::equal:
                return operand_null ? null_value
                                    : !null_value && compare_cells(value, c.operand, c.scalar) == 0;
            case FilterOp::not_equal:
                return operand_null ? !null_value
                                    : !null_value && compare_cells(value, c.operand, c.scalar) != 0;
            case FilterOp::gt:
                return !null_value && compare_cells(value, c.operand, c.scalar) > 0;
            case FilterOp::lt:
                return !null_value && compare_cells(value, c.operand, c.scalar) < 0;
            case FilterOp::gte:
                return !null_value && compare_cells(value, c.operand, c.scalar) >= 0;
            case FilterOp::lte:
                return !null_value && compare_cells(value, c.operand, c.scalar) <= 0;
            case FilterOp::in:
            case FilterOp::not_in: {
                const auto* list = std::get_if<ScalarList>(&c.operand);
                if (null_value || list == nullptr) return false;
                const bool found = std::ranges::any_of(*list, [&](const Scalar& s) {
                    return compare_cells(value, as_cell(s), c.scalar) == 0;
                });
                return c.op == FilterOp::in ? found : !found;
            }
            default:
                break;
        }
        if (null_value) return false;
        const std::string_view suffix = graphql::filter_suffix(c.op);
        const bool nocase = suffix.ends_with("_nocase");
        const bool negated = suffix.starts_with("_not");
        const std::string folded = nocase ? fold_case(raw_text(value)) : std::string();
        const std::string_view hay = nocase ? std::string_view(folded) : raw_text(value);
        const std::string_view needle = nocase ? std::string_view(c.lowered) : raw_text(c.operand);
        bool hit = false;
        if (suffix.find("contains") != std::string_view::npos) hit = hay.find(needle) != hay.npos;
        if (suffix.find("starts_with") != std::string_view::npos) hit = hay.starts_with(needle);
        if (suffix.find("ends_with") != std::string_view::npos) hit = hay.ends_with(needle);
        return negated ? !hit : hit;
    }

    const Snapshot& s_;
};

// ---- candidates, order, page ------------------------------------------------------------------

// The ids an `id` / reference filter at the top of `f` names (equal or in), else nullopt.
std::optional<std::vector<std::string>> named_ids(const Filter& f, std::string_view field) {
    for (const Filter& c : f.children) {
        if (c.kind != Filter::Kind::compare || c.field != field || c.list_field) continue;
        if (c.op == FilterOp::equal) {
            if (const auto* s = std::get_if<std::string>(&c.operand))
                return std::vector<std::string>{*s};
        }
        if (c.op == FilterOp::in) {
            std::vector<std::string> out;
            if (const auto* list = std::get_if<ScalarList>(&c.operand)) {
                for (const Scalar& s : *list)
                    if (const auto* t = std::get_if<std::string>(&s)) out.push_back(*t);
            }
            return out;
        }
    }
    return std::nullopt;
}

// The rows the filter can match, when it narrows them by id or by owner row; else nullopt (all).
std::optional<std::vector<uint32_t>> candidates(const Snapshot& s, Entity e, const Filter& f) {
    if (f.kind != Filter::Kind::all) return std::nullopt;
    if (auto ids = named_ids(f, "id")) {
        std::vector<uint32_t> rows;
        for (const auto& id : *ids)
            if (uint32_t r = row_by_id(s, e, id); r != kNone) rows.push_back(r);
        return rows;
    }
    for (std::string_view back : {"agent", "feedback"}) {
        const Relation* rel = relation_of(e, back);
        if (rel == nullptr) continue;
        auto ids = named_ids(f, back);
        if (!ids) continue;
        std::vector<uint32_t> rows;
        for (const auto& id : *ids) {
            const uint32_t parent = row_by_id(s, rel->parent, id);
            if (parent == kNone) continue;
            const auto& kids = rel->children(s, parent);
            rows.insert(rows.end(), kids.begin(), kids.end());
        }
        return rows;
    }
    return std::nullopt;
}

// Sorts rows by (order field, id), ascending or descending.
void sort_rows(const Snapshot& s, Entity e, const FieldSpec& order, bool descending,
               std::vector<uint32_t>& rows) {
    const FieldSpec* id = entity_field(e, "id");
    struct Keyed {
        Cell key;
        Cell id;
        uint32_t row;
    };
    std::vector<Keyed> keyed;
    keyed.reserve(rows.size());
    for (uint32_t r : rows) keyed.push_back({order.cell(s, r), id->cell(s, r), r});
    std::ranges::sort(keyed, [&](const Keyed& a, const Keyed& b) {
        int c = compare_cells(a.key, b.key, order.scalar);
        if (c == 0) c = compare_cells(a.id, b.id, ScalarKind::id);
        return descending ? c > 0 : c < 0;
    });
    for (size_t i = 0; i < rows.size(); ++i) rows[i] = keyed[i].row;
}

graphql::Result<const FieldSpec*> order_field(Entity e, const graphql::OrderBy& order) {
    const FieldSpec* f = entity_field(e, order.field.empty() ? "id" : order.field);
    if (f == nullptr || f->list)
        return graphql::fail(graphql::ErrorKind::data_source,
                             fmt::format("cannot order {} by {}", entity_name(e), order.field));
    return f;
}

Row project(const Snapshot& s, const std::vector<const FieldSpec*>& fields, uint32_t row) {
    Row out;
    out.reserve(fields.size());
    for (const FieldSpec* f : fields) out.push_back(f->cell(s, row));
    return out;
}

graphql::Result<std::vector<const FieldSpec*>> field_specs(Entity e,
                                                           const std::vector<std::string>& names) {
    std::vector<const FieldSpec*> out;
    for (const auto& name : names) {
        const FieldSpec* f = entity_field(e, name);
        if (f == nullptr)
            return graphql::fail(graphql::ErrorKind::data_source,
                                 fmt::format("no field {}.{}", entity_name(e), name));
        out.push_back(f);
    }
    return out;
}

graphql::Result<Entity> entity_of(std::string_view name) {
    auto e = entity_named(name);
    if (!e) return graphql::fail(graphql::ErrorKind::data_source, fmt::format("no entity {}", name));
    return *e;
}

}  // namespace

int compare_cells(const Cell& a, const Cell& b, ScalarKind kind) {
    if (is_null(a) || is_null(b)) return is_null(a) == is_null(b) ? 0 : (is_null(a) ? -1 : 1);
    switch (kind) {
        case ScalarKind::int_value:
        case ScalarKind::big_int:
        case ScalarKind::big_decimal: {
            const auto* x = std::get_if<int64_t>(&a);
            const auto* y = std::get_if<int64_t>(&b);
            if (x != nullptr && y != nullptr) return *x < *y ? -1 : (*x > *y ? 1 : 0);
            return compare_decimal(numeric_text(a), numeric_text(b));
        }
        case ScalarKind::boolean: {
            const auto* x = std::get_if<bool>(&a);
            const auto* y = std::get_if<bool>(&b);
            if (x != nullptr && y != nullptr) return *x == *y ? 0 : (*x ? 1 : -1);
            break;
        }
        default:
            break;
    }
    if (a.index() != b.index()) return a.index() < b.index() ? -1 : 1;
    return sign_of(raw_text(a).compare(raw_text(b)));
}

std::shared_ptr<const std::vector<uint32_t>> ServedSnapshot::order(Entity e,
                                                                   const FieldSpec& field) const {
    std::lock_guard lock(mutex_);
    auto& slot = orders_[{e, &field}];
    if (!slot) {
        std::vector<uint32_t> rows(row_count(data_, e));
        std::iota(rows.begin(), rows.end(), 0U);
        sort_rows(data_, e, field, false, rows);
        slot = std::make_shared<const std::vector<uint32_t>>(std::move(rows));
    }
    return slot;
}

graphql::Result<std::vector<Row>> SnapshotSource::list(const graphql::CollectionQuery& q) {
    auto e = entity_of(q.entity);
    if (!e) return std::unexpected(e.error());
    auto fields = field_specs(*e, q.fields);
    if (!fields) return std::unexpected(fields.error());
    auto order = order_field(*e, q.order);
    if (!order) return std::unexpected(order.error());
    auto filter = compile(q.filter, *e);
    if (!filter) return std::unexpected(filter.error());
    const Snapshot& s = snapshot_->data();
    const Evaluator eval(s);
    const auto first = static_cast<size_t>(std::max<int64_t>(q.first, 0));
    const auto skip = static_cast<size_t>(std::max<int64_t>(q.skip, 0));
    std::vector<Row> out;

    // A page of `rows` (already narrowed, any order): filter, sort, page.
    const auto page_of = [&](std::vector<uint32_t> rows) {
        std::erase_if(rows, [&](uint32_t r) { return !eval.holds(*filter, r); });
        sort_rows(s, *e, **order, q.order.descending, rows);
        for (size_t i = skip; i < rows.size() && i < skip + first; ++i)
            out.push_back(project(s, *fields, rows[i]));
    };

    if (q.per_parent) {
        const Relation* rel = relation_of(*e, q.per_parent->field);
        if (rel == nullptr)
            return graphql::fail(graphql::ErrorKind::data_source,
                                 fmt::format("no list of {} by {}", q.entity, q.per_parent->field));
        for (const auto& id : q.per_parent->ids) {
            const uint32_t parent = row_by_id(s, rel->parent, id);
            if (parent != kNone) page_of(rel->children(s, parent));
        }
        return out;
    }
    if (auto narrowed = candidates(s, *e, q.filter)) {
        page_of(std::move(*narrowed));
        return out;
    }
    // Walk the field's order and stop once the page is full.
    const auto sorted = snapshot_->order(*e, **order);
    size_t matched = 0;
    const auto visit = [&](uint32_t r) {
        if (!eval.holds(*filter, r)) return true;
        if (matched++ >= skip) out.push_back(project(s, *fields, r));
        return out.size() < first;
    };
    if (first == 0) return out;
    if (q.order.descending) {
        for (auto it = sorted->rbegin(); it != sorted->rend() && visit(*it); ++it) {
        }
    } else {
        for (auto it = sorted->begin(); it != sorted->end() && visit(*it); ++it) {
        }
    }
    return out;
}

graphql::Result<std::vector<Row>> SnapshotSource::get_many(const graphql::EntityLookup& lookup) {
    auto e = entity_of(lookup.entity);
    if (!e) return std::unexpected(e.error());
    auto fields = field_specs(*e, lookup.fields);
    if (!fields) return std::unexpected(fields.error());
    const Snapshot& s = snapshot_->data();
    std::vector<Row> out;
    for (const auto& id : lookup.ids)
        if (uint32_t r = row_by_id(s, *e, id); r != kNone) out.push_back(project(s, *fields, r));
    return out;
}

graphql::Result<graphql::IndexStatus> SnapshotSource::status() {
    const Snapshot& s = snapshot_->data();
    graphql::IndexStatus st;
    st.block_num = static_cast<int64_t>(s.block_num);
    st.block_hash = ByteString{{s.block_hash.begin(), s.block_hash.end()}};
    st.block_timestamp = s.block_timestamp;
    st.deployment = "credence";
    return st;
}

}  // namespace credence::subgraph
