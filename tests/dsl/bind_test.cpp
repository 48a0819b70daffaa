// Bind, don't nest: a bound value is a small leaf, computed once, and the graph lists it once.
#include "support/tensors.hpp"

namespace {

TEST(Bind, BoundValueIsComputedOnceAndReadWhereUsed) {
    auto x = ctf::input<"x", 2>();
    auto h = ctf::bind<"h">(x + x);
    auto y = h + h;  // 4x
    static_assert(ctf::is_leaf<decltype(h)>);
    EXPECT_EQ(std::tuple_size_v<decltype(y.bindings)>, 1u);
    const ctf::tensor_map in{{"x", test::tensor({2}, {1, -2})}};
    test::expect_close(ctf::reference::evaluate(y, in), {4, -8}, {.atol = 0});
}

TEST(Bind, GraphsSharingBindingsListThemOnce) {
    auto x = ctf::input<"x", 2>();
    auto a = ctf::bind<"a">(x + x);
    auto b = ctf::bind<"b">(a + x);
    auto y = ctf::bind<"c">(a + b) + b;  // a reached directly and through b
    EXPECT_EQ(std::tuple_size_v<decltype(y.bindings)>, 3u);
    const ctf::tensor_map in{{"x", test::tensor({2}, {1, 2})}};
    // a = 2x, b = 3x, c = 5x, y = 8x
    test::expect_close(ctf::reference::evaluate(y, in), {8, 16}, {.atol = 0});
}

TEST(Bind, LeavesAreNotBoundAgain) {
    auto x = ctf::input<"x", 2>();
    auto same = ctf::bind_unless_leaf<"x_again">(x);
    static_assert(std::is_same_v<decltype(same), decltype(x)>);
    auto h = ctf::bind<"h">(x + x);
    static_assert(std::is_same_v<decltype(ctf::bind_unless_leaf<"h_again">(h)), decltype(h)>);
}

}  // namespace
