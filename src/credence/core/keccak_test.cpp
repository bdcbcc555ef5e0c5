#include <credence/core/keccak.hpp>

#include <gtest/gtest.h>

#include "support/vectors.hpp"

using namespace credence::core;

// All 257 keccak256 cases of ethers' hashes.json, one-shot and incremental with awkward splits.
TEST(core_keccak, ethers_hashes_vectors) {
    const auto cases = credence::testing::read_vector_json("ethers/hashes.json");
    ASSERT_EQ(cases.size(), 257u);
    for (const auto& c : cases) {
        const auto data = from_hex(c["data"].get<std::string>());
        ASSERT_TRUE(data.has_value());
        const std::string expected = c["keccak256"];
        EXPECT_EQ(to_hex(keccak256(*data)), expected) << c["name"];

        for (size_t split : {size_t{1}, size_t{7}, size_t{135}, size_t{136}, size_t{137}}) {
            Keccak256 h;
            for (size_t pos = 0; pos < data->size(); pos += split)
                h.update(ByteView(*data).subspan(pos, std::min(split, data->size() - pos)));
            EXPECT_EQ(to_hex(h.finalize()), expected) << c["name"] << " split " << split;
        }
    }
}

TEST(core_keccak, text_overload_hashes_utf8_bytes) {
    EXPECT_EQ(keccak256(std::string_view("abc")), keccak256(as_bytes("abc")));
}
