// make_schema(): the table is checked, and the types The Graph generates around each entity.
#include <gtest/gtest.h>

#include <string>

#include <credence/graphql/memory_source_test_support.hpp>
#include <credence/graphql/schema.hpp>

using namespace credence::graphql;

namespace {

SchemaDef one_entity(std::vector<EntityField> fields) {
    SchemaDef def;
    def.entities.push_back({"Thing", std::move(fields), "thing", "things"});
    return def;
}

std::string error_of(const SchemaDef& def) {
    auto s = make_schema(def);
    EXPECT_FALSE(s.has_value());
    return s ? std::string() : s.error().message;
}

}  // namespace

TEST(graphql_schema, table_errors) {
    EXPECT_NE(error_of(one_entity({{"name", "String"}})).find("id: ID!"), std::string::npos);
    EXPECT_NE(error_of(one_entity({{"id", "ID"}})).find("id: ID!"), std::string::npos);
    EXPECT_NE(error_of(one_entity({{"id", "ID!"}, {"x", "Float"}})).find("unknown type"),
              std::string::npos);
    EXPECT_NE(error_of(one_entity({{"id", "ID!"}, {"x", "[Int!"}})).find("bad field"),
              std::string::npos);
    EXPECT_NE(error_of(one_entity({{"id", "ID!"}, {"x", "[[Int]]"}})).find("lists of lists"),
              std::string::npos);
    EXPECT_NE(error_of(one_entity({{"id", "ID!"}, {"id", "ID!"}})).find("named twice"),
              std::string::npos);
    EXPECT_NE(error_of(one_entity({{"id", "ID!"}, {"others", "[Thing!]!"}})).find("@derivedFrom"),
              std::string::npos);
    EXPECT_NE(error_of(one_entity({{"id", "ID!"}, {"others", "[Thing!]!", "nope"}}))
                  .find("names no field"),
              std::string::npos);
    auto def = one_entity({{"id", "ID!"}});
    def.entities.push_back(def.entities[0]);
    EXPECT_NE(error_of(def).find("repeated entity"), std::string::npos);
    def = one_entity({{"id", "ID!"}});
    def.entities[0].collection.clear();
    EXPECT_NE(error_of(def).find("root fields"), std::string::npos);
}

TEST(graphql_schema, generated_types) {
    auto schema = make_schema(test_support::agent0_schema_def());
    ASSERT_TRUE(schema.has_value()) << schema.error().message;
    const NamedType* filter = schema->type("Agent_filter");
    ASSERT_NE(filter, nullptr);
    EXPECT_EQ(filter->kind, TypeKind::input_object);
    // A Bytes field: equality, order, membership, containment; no _nocase or _starts_with.
    for (const char* key : {"owner", "owner_not", "owner_gt", "owner_lte", "owner_in",
                            "owner_not_in", "owner_contains", "owner_not_contains"})
        EXPECT_NE(filter->input_field(key), nullptr) << key;
    EXPECT_EQ(filter->input_field("owner_starts_with"), nullptr);
    // A reference: compared as an id string, and a nested filter.
    const InputValue* nested = filter->input_field("registrationFile_");
    ASSERT_NE(nested, nullptr);
    EXPECT_TRUE(nested->filter_nested);
    EXPECT_EQ(type_to_string(nested->type), "AgentRegistrationFile_filter");
    EXPECT_EQ(type_to_string(filter->input_field("registrationFile_in")->type), "[String!]");
    EXPECT_NE(filter->input_field("registrationFile_starts_with_nocase"), nullptr);
    // A list column: containment by lists.
    EXPECT_EQ(type_to_string(filter->input_field("operators_contains")->type), "[Bytes!]");
    EXPECT_EQ(filter->input_field("operators_gt"), nullptr);
    // @derivedFrom: only the nested filter.
    EXPECT_NE(filter->input_field("feedback_"), nullptr);
    EXPECT_EQ(filter->input_field("feedback"), nullptr);
    // A String field has the whole text family; a String list the _nocase containment.
    const NamedType* file = schema->type("AgentRegistrationFile_filter");
    for (const char* key : {"name_contains_nocase", "name_not_starts_with_nocase", "name_ends_with",
                            "oasfSkills_contains_nocase"})
        EXPECT_NE(file->input_field(key), nullptr) << key;
    EXPECT_EQ(file->input_field("hasOASF_gt"), nullptr);  // Boolean: no order
    const InputValue* key = file->input_field("name_not_ends_with_nocase");
    EXPECT_EQ(key->filter_field, "name");
    EXPECT_EQ(key->filter_op, FilterOp::not_ends_with_nocase);
    // Order: scalar and reference fields, not lists.
    const NamedType* order = schema->type("Agent_orderBy");
    EXPECT_TRUE(order->has_enum_value("createdAt"));
    EXPECT_TRUE(order->has_enum_value("registrationFile"));
    EXPECT_FALSE(order->has_enum_value("operators"));
    EXPECT_FALSE(order->has_enum_value("feedback"));
    // Root fields.
    const auto& query = schema->query_type();
    EXPECT_EQ(query.field("agents")->role, FieldRole::collection);
    EXPECT_EQ(type_to_string(query.field("agents")->type), "[Agent!]!");
    EXPECT_EQ(query.field("agent")->role, FieldRole::single);
    EXPECT_EQ(query.field("agentMetadatas")->entity, "AgentMetadata");
    EXPECT_EQ(query.field("_meta")->role, FieldRole::meta);
    const FieldDef* responses = schema->type("Feedback")->field("responses");
    EXPECT_EQ(responses->role, FieldRole::derived);
    EXPECT_EQ(responses->derived_from, "feedback");
    EXPECT_NE(responses->arg("first"), nullptr);
}
