// The syntax tree of an executable GraphQL document (GraphQL §2.2 Document, ExecutableDefinition).
//
// Only executable definitions exist here: operations and fragments. Type-system definitions are
// not part of this library's input (the schema is described in C++, schema.hpp).
//
// Invariants of a parsed Document: nesting (selection sets, list/object values, list types) is
// at most ParseLimits::max_depth deep, so the recursive destructors and the recursive walks of
// the planner stay within a small, bounded stack.
//
// Thread-safety: plain value types; const access from several threads is safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <credence/graphql/error.hpp>

namespace credence::graphql::ast {

struct ObjectField;

/// GraphQL §2.9 Input Values. `text` holds the variable name, the numeric text as written, the
/// string after unescaping, or the enum name.
struct Value {
    enum class Kind : std::uint8_t {
        variable,
        int_value,
        float_value,
        string,
        boolean,
        null,
        enum_value,
        list,
        object
    };
    Kind kind = Kind::null;
    std::string text;
    bool boolean = false;
    std::vector<Value> list;
    std::vector<ObjectField> fields;
    Location loc;
};

struct ObjectField {
    std::string name;
    Value value;
    Location loc;
};

/// GraphQL §2.11 Type References: a named type, or a list of `of[0]`; either may be non-null.
struct Type {
    std::string name;      // empty for a list type
    std::vector<Type> of;  // one element for a list type
    bool non_null = false;
    Location loc;

    [[nodiscard]] bool is_list() const { return !of.empty(); }
};

struct Argument {
    std::string name;
    Value value;
    Location loc;
};

struct Directive {
    std::string name;
    std::vector<Argument> arguments;
    Location loc;
};

struct Selection;

struct SelectionSet {
    std::vector<Selection> selections;
    Location loc;
};

/// GraphQL §2.4 Selection: a field, a fragment spread (`name` is the fragment) or an inline
/// fragment (`type_condition` may be empty).
struct Selection {
    enum class Kind : std::uint8_t { field, fragment_spread, inline_fragment };
    Kind kind = Kind::field;
    std::string alias;  // field only; empty when none
    std::string name;   // field name or fragment name
    std::string type_condition;
    std::vector<Argument> arguments;
    std::vector<Directive> directives;
    std::optional<SelectionSet> selection_set;
    Location loc;

    [[nodiscard]] const std::string& response_key() const { return alias.empty() ? name : alias; }
};

struct VariableDefinition {
    std::string name;
    Type type;
    std::optional<Value> default_value;
    std::vector<Directive> directives;
    Location loc;
};

struct OperationDefinition {
    enum class Kind : std::uint8_t { query, mutation, subscription };
    Kind kind = Kind::query;
    std::string name;  // empty for an anonymous operation
    std::vector<VariableDefinition> variables;
    std::vector<Directive> directives;
    SelectionSet selection_set;
    Location loc;
};

struct FragmentDefinition {
    std::string name;
    std::string type_condition;
    std::vector<Directive> directives;
    SelectionSet selection_set;
    Location loc;
};

struct Document {
    std::vector<OperationDefinition> operations;
    std::vector<FragmentDefinition> fragments;
};

}  // namespace credence::graphql::ast
