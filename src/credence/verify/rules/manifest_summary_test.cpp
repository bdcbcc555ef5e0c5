// The manifest summary the tool profiles are built from: only objects have one, and fields of the
// wrong JSON type read as empty rather than failing the summary.
#include <credence/verify/rules/manifest_summary.hpp>

#include <gtest/gtest.h>

namespace credence::verify {
namespace {

using Json = nlohmann::json;

TEST(manifest_summary, only_objects_and_wrong_types_read_as_empty) {
    EXPECT_FALSE(tool_manifest_summary(Json::array()).has_value());
    const auto summary = tool_manifest_summary(Json{{"name", 5}, {"tags", "x"}});
    ASSERT_TRUE(summary);
    EXPECT_EQ((*summary)["name"], "");
    EXPECT_TRUE((*summary)["tags"].empty());
}

}  // namespace
}  // namespace credence::verify
