// Test support for the GraphQL executor: the agent0 subgraph's entities as a schema table, and
// MemorySource, a real DataSource over vectors of rows (filters, order, per-parent pages and
// projections implemented plainly), which records every call so tests can count round trips.
// Header-only, test code only (included by *_test.cpp in this folder).
//
// The schema mirrors the entity types of the agent0 subgraph's `schema.graphql` (Agent,
// Feedback, FeedbackResponse, Validation, AgentMetadata, Protocol, AgentRegistrationFile,
// FeedbackFile); its timeseries and aggregations are left out.
//
// Thread-safety: one MemorySource per test.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <credence/graphql/data_source.hpp>
#include <credence/graphql/schema.hpp>
#include <credence/subgraph/agent0_schema.hpp>

namespace credence::graphql::test_support {

inline SchemaDef agent0_schema_def() { return subgraph::agent0_schema_def(); }

/// An entity as the tests write it: field name -> cell (absent fields are null).
using Record = std::map<std::string, Cell, std::less<>>;

class MemorySource : public DataSource {
public:
    std::map<std::string, std::vector<Record>, std::less<>> tables;
    std::vector<std::string> calls;  // "list Agent", "get_many AgentRegistrationFile 3", ...
    std::vector<CollectionQuery> queries;
    std::vector<EntityLookup> lookups;
    IndexStatus index_status;
    bool fail_next = false;  // the next call fails, as a database that went away

    Result<std::vector<Row>> list(const CollectionQuery& q) override {
        calls.push_back("list " + q.entity);
        queries.push_back(q);
        if (fail_next) return fail(ErrorKind::data_source, "connection lost");
        std::vector<const Record*> matched;
        for (const auto& r : tables[q.entity])
            if (eval(q.filter, r)) matched.push_back(&r);
        const auto less = [&](const Record* a, const Record* b) {
            const int c = compare(cell(*a, q.order.field), cell(*b, q.order.field));
            if (c != 0) return q.order.descending ? c > 0 : c < 0;
            return compare(cell(*a, "id"), cell(*b, "id")) < 0;
        };
        std::sort(matched.begin(), matched.end(), less);  // a total order: ties go by id
        std::vector<Row> out;
        const auto page = [&](const std::vector<const Record*>& rows) {
            for (std::size_t i = 0; i < rows.size(); ++i) {
                if (static_cast<std::int64_t>(i) < q.skip) continue;
                if (static_cast<std::int64_t>(i) >= q.skip + q.first) break;
                out.push_back(project(*rows[i], q.fields));
            }
        };
        if (!q.per_parent) {
            page(matched);
            return out;
        }
        for (const auto& parent : q.per_parent->ids) {
            std::vector<const Record*> mine;
            for (const auto* r : matched)
                if (cell(*r, q.per_parent->field) == Cell(parent)) mine.push_back(r);
            page(mine);
        }
        return out;
    }

    Result<std::vector<Row>> get_many(const EntityLookup& lookup) override {
        calls.push_back(fmt::format("get_many {} {}", lookup.entity, lookup.ids.size()));
        lookups.push_back(lookup);
        if (fail_next) return fail(ErrorKind::data_source, "connection lost");
        std::vector<Row> out;
        for (const auto& r : tables[lookup.entity])
            for (const auto& id : lookup.ids)
                if (cell(r, "id") == Cell(id)) out.push_back(project(r, lookup.fields));
        return out;
    }

    Result<IndexStatus> status() override {
        calls.push_back("status");
        return index_status;
    }

private:
    static const Cell& cell(const Record& r, std::string_view field) {
        static const Cell kNull;
        const auto it = r.find(field);
        return it == r.end() ? kNull : it->second;
    }

    static Row project(const Record& r, const std::vector<std::string>& fields) {
        Row row;
        for (const auto& f : fields) row.push_back(cell(r, f));
        return row;
    }

    static std::string lower(std::string s) {
        for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return s;
    }

    // Numbers compare as numbers (BigInt and BigDecimal travel as decimal strings), other
    // strings and bytes lexicographically; null sorts first.
    static int compare_scalar(const Scalar& a, const Scalar& b) {
        if (a.index() != b.index()) return a.index() < b.index() ? -1 : 1;
        if (const auto* s = std::get_if<std::string>(&a)) {
            const auto& t = std::get<std::string>(b);
            char* end_a = nullptr;
            char* end_b = nullptr;
            const long double x = std::strtold(s->c_str(), &end_a);
            const long double y = std::strtold(t.c_str(), &end_b);
            if (!s->empty() && !t.empty() && *end_a == '\0' && *end_b == '\0' &&
                s->find_first_of("xX") == std::string::npos)
                return x < y ? -1 : x > y ? 1 : 0;
            return s->compare(t) < 0 ? -1 : s->compare(t) > 0 ? 1 : 0;
        }
        if (const auto* n = std::get_if<std::int64_t>(&a)) {
            const auto m = std::get<std::int64_t>(b);
            return *n < m ? -1 : *n > m ? 1 : 0;
        }
        if (const auto* x = std::get_if<ByteString>(&a)) {
            const auto& y = std::get<ByteString>(b);
            return x->bytes < y.bytes ? -1 : x->bytes > y.bytes ? 1 : 0;
        }
        if (const auto* x = std::get_if<bool>(&a)) {
            const bool y = std::get<bool>(b);
            return *x == y ? 0 : (*x ? 1 : -1);
        }
        return 0;
    }

    static Scalar as_scalar(const Cell& c) {
        return std::visit(
            [](const auto& v) -> Scalar {
                if constexpr (std::is_same_v<std::decay_t<decltype(v)>, ScalarList>) {
                    return std::monostate{};
                } else {
                    return v;
                }
            },
            c);
    }

    static int compare(const Cell& a, const Cell& b) {
        return compare_scalar(as_scalar(a), as_scalar(b));
    }

    static std::string text(const Scalar& s) {
        if (const auto* str = std::get_if<std::string>(&s)) return *str;
        if (const auto* b = std::get_if<ByteString>(&s))
            return std::string(b->bytes.begin(), b->bytes.end());
        return {};
    }

    bool eval(const Filter& f, const Record& r) {
        switch (f.kind) {
            case Filter::Kind::all:
                return std::all_of(f.children.begin(), f.children.end(),
                                   [&](const Filter& c) { return eval(c, r); });
            case Filter::Kind::any:
                return std::any_of(f.children.begin(), f.children.end(),
                                   [&](const Filter& c) { return eval(c, r); });
            case Filter::Kind::nested: {
                Filter inner;
                inner.children = f.children;
                if (!f.derived_from.empty()) {
                    for (const auto& other : tables[f.entity])
                        if (cell(other, f.derived_from) == cell(r, "id") && eval(inner, other))
                            return true;
                    return false;
                }
                for (const auto& other : tables[f.entity])
                    if (cell(other, "id") == cell(r, f.field)) return eval(inner, other);
                return false;
            }
            case Filter::Kind::compare:
                break;
        }
        const Cell& value = cell(r, f.field);
        const bool is_null = std::holds_alternative<std::monostate>(value);
        const bool operand_null = std::holds_alternative<std::monostate>(f.operand);
        if (f.list_field) {
            const auto* have = std::get_if<ScalarList>(&value);
            const auto* want = std::get_if<ScalarList>(&f.operand);
            if (f.op == FilterOp::equal) return operand_null ? is_null : value == f.operand;
            if (f.op == FilterOp::not_equal) return operand_null ? !is_null : value != f.operand;
            if (have == nullptr || want == nullptr) return false;
            const bool nocase =
                f.op == FilterOp::contains_nocase || f.op == FilterOp::not_contains_nocase;
            const auto has = [&](const Scalar& s) {
                return std::any_of(have->begin(), have->end(), [&](const Scalar& h) {
                    return nocase ? lower(text(h)) == lower(text(s)) : h == s;
                });
            };
            const bool all = std::all_of(want->begin(), want->end(), has);
            const bool negated =
                f.op == FilterOp::not_contains || f.op == FilterOp::not_contains_nocase;
            return negated ? !std::any_of(want->begin(), want->end(), has) : all;
        }
        const Scalar v = as_scalar(value);
        switch (f.op) {
            case FilterOp::equal:
                return operand_null ? is_null : compare(value, f.operand) == 0 && !is_null;
            case FilterOp::not_equal:
                return operand_null ? !is_null : !is_null && compare(value, f.operand) != 0;
            case FilterOp::gt:
                return !is_null && compare(value, f.operand) > 0;
            case FilterOp::lt:
                return !is_null && compare(value, f.operand) < 0;
            case FilterOp::gte:
                return !is_null && compare(value, f.operand) >= 0;
            case FilterOp::lte:
                return !is_null && compare(value, f.operand) <= 0;
            case FilterOp::in:
            case FilterOp::not_in: {
                const auto& list = std::get<ScalarList>(f.operand);
                const bool found = std::any_of(list.begin(), list.end(), [&](const Scalar& s) {
                    return compare_scalar(v, s) == 0;
                });
                return !is_null && (f.op == FilterOp::in ? found : !found);
            }
            default:
                break;
        }
        if (is_null) return false;
        const std::string op_name(filter_suffix(f.op));
        const bool nocase = op_name.ends_with("_nocase");
        const bool negated = op_name.starts_with("_not");
        std::string hay = text(v);
        std::string needle = text(as_scalar(f.operand));
        if (nocase) {
            hay = lower(hay);
            needle = lower(needle);
        }
        bool hit = false;
        if (op_name.find("contains") != std::string::npos)
            hit = hay.find(needle) != std::string::npos;
        if (op_name.find("starts_with") != std::string::npos) hit = hay.starts_with(needle);
        if (op_name.find("ends_with") != std::string::npos) hit = hay.ends_with(needle);
        return negated ? !hit : hit;
    }
};

}  // namespace credence::graphql::test_support
