// Deep documents cost heap, never C++ stack: the depth limit holds before anything is built, and
// an allowed deep tree parses, copies, serializes and dies without recursion. The allowed cases
// run on a thread with a 256 KiB stack, where one frame per level would overflow long before
// 100,000 levels.
#include <credence/core/jcs.hpp>
#include <credence/core/json.hpp>

#include <gtest/gtest.h>

#include <pthread.h>

#include <functional>
#include <string>
#include <utility>

using namespace credence::core;

namespace {

constexpr size_t kSmallStack = 256 * 1024;

// Runs `fn` on a fresh thread whose stack is `stack_bytes`; false if the thread did not start.
bool run_with_stack(size_t stack_bytes, std::function<void()> fn) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, stack_bytes);
    pthread_t thread;
    auto trampoline = [](void* arg) -> void* {
        (*static_cast<std::function<void()>*>(arg))();
        return nullptr;
    };
    const int rc = pthread_create(&thread, &attr, trampoline, &fn);
    pthread_attr_destroy(&attr);
    if (rc != 0) return false;
    pthread_join(thread, nullptr);
    return true;
}

std::string nested_arrays(size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
}

}  // namespace

// A hostile body of 150,000 unclosed `[`. The default limit stops it at
// level 129, before the parser has built anything for that level.
TEST(core_json_deep, rejects_150k_open_brackets_at_the_depth_limit) {
    const std::string attack(150'000, '[');
    const auto r = parse_json(attack);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, JsonError::too_deep);
    EXPECT_EQ(r.error().detail, "nesting deeper than 128 at line 1, column 129");
    EXPECT_EQ(canonicalize(std::string_view(attack)).error().code, JsonError::too_deep);
    std::string objects;
    for (int i = 0; i < 150'000; ++i) objects += "{\"a\":";
    EXPECT_EQ(parse_json(objects).error().code, JsonError::too_deep);
}

TEST(core_json_deep, deep_allowed_tree_parses_copies_and_dies_on_a_small_stack) {
    constexpr size_t kDepth = 100'000;
    const std::string text = nested_arrays(kDepth);
    const ParseLimits limits{.max_bytes = size_t{1} << 20, .max_depth = kDepth};
    bool done = false;
    ASSERT_TRUE(run_with_stack(kSmallStack, [&] {
        auto doc = parse_json(text, limits);
        ASSERT_TRUE(doc.has_value());
        JsonValue copy = *doc;  // copy construction
        JsonValue assigned;
        assigned = copy;  // copy assignment
        // Walk down the copy: it is as deep as the original and shares nothing with it.
        size_t depth = 0;
        for (const JsonValue* v = &assigned; v->is_array() && !v->as_array().empty();
             v = &v->as_array()[0])
            ++depth;
        EXPECT_EQ(depth, kDepth - 1);
        EXPECT_NE(&doc->as_array()[0], &copy.as_array()[0]);
        const auto from_dom = canonicalize(assigned);
        ASSERT_TRUE(from_dom.has_value());
        EXPECT_EQ(*from_dom, text);
        const auto from_text = canonicalize(std::string_view(text), limits);
        ASSERT_TRUE(from_text.has_value());
        EXPECT_EQ(*from_text, text);
        done = true;
    }));  // doc, copy and assigned are destroyed on the small stack
    EXPECT_TRUE(done);
}

TEST(core_json_deep, hand_built_deep_objects_die_on_a_small_stack) {
    bool done = false;
    ASSERT_TRUE(run_with_stack(kSmallStack, [&] {
        JsonValue v(std::string("leaf"));
        for (int i = 0; i < 200'000; ++i) {
            JsonValue::Object o;
            o.push_back(JsonMember{"k", std::move(v)});
            v = JsonValue(std::move(o));
        }
        JsonValue copy = v;
        EXPECT_TRUE(copy.is_object());
        v = JsonValue(nullptr);  // move assignment destroys the old tree
        EXPECT_TRUE(v.is_null());
        done = true;
    }));
    EXPECT_TRUE(done);
}
