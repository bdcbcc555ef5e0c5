// The revision words and registry names used by deployment files, the index and the CLI.
#include <gtest/gtest.h>

#include <credence/core/erc8004_revision.hpp>

namespace credence::core {
namespace {

TEST(core_erc8004_revision, words_round_trip) {
    for (const auto r :
         {Erc8004Revision::current, Erc8004Revision::score, Erc8004Revision::draft}) {
        EXPECT_EQ(parse_erc8004_revision(to_string(r)), r);
    }
    EXPECT_EQ(to_string(Erc8004Revision::score), "score");
    EXPECT_EQ(parse_erc8004_revision("Draft"), std::nullopt);
    EXPECT_EQ(parse_erc8004_revision(""), std::nullopt);
    EXPECT_EQ(to_string(static_cast<Erc8004Revision>(9)), "unknown");
}

TEST(core_erc8004_revision, registry_names_are_the_deployment_files) {
    EXPECT_EQ(registry_contract_name(Erc8004Revision::current, Erc8004Registry::identity),
              "IdentityRegistry");
    EXPECT_EQ(registry_contract_name(Erc8004Revision::score, Erc8004Registry::reputation),
              "ScoreReputationRegistry");
    EXPECT_EQ(registry_contract_name(Erc8004Revision::draft, Erc8004Registry::validation),
              "DraftValidationRegistry");
}

}  // namespace
}  // namespace credence::core
