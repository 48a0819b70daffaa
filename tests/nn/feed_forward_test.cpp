#include "support/tensors.hpp"

namespace {

// x = [1, -1]; W1 = [[1,0],[0,1],[1,1]], b1 = [0, 0.5, 0] → hidden = [1, -0.5, 0]
// W2 = [[1,2,3],[4,5,6]], b2 = [0.1, 0.2]
ctf::tensor_map ffn_inputs() {
    return {{"x", test::tensor({1, 2}, {1, -1})},
            {"linear1.weight", test::tensor({3, 2}, {1, 0, 0, 1, 1, 1})},
            {"linear1.bias", test::tensor({3}, {0, 0.5f, 0})},
            {"linear2.weight", test::tensor({2, 3}, {1, 2, 3, 4, 5, 6})},
            {"linear2.bias", test::tensor({2}, {0.1f, 0.2f})}};
}

TEST(FeedForward, ReluHandComputed) {
    constexpr ctf::nn::config cfg{.d_model = 2, .heads = 1, .d_ff = 3};
    auto x = ctf::input<"x", 1, 2>();
    // relu(hidden) = [1, 0, 0] → y = [1 + 0.1, 4 + 0.2]
    test::expect_close(ctf::reference::evaluate(ctf::nn::feed_forward<cfg>(x), ffn_inputs()), {1.1, 4.2}, {.atol = 1e-6});
}

TEST(FeedForward, GeluHandComputed) {
    constexpr ctf::nn::config cfg{.d_model = 2, .heads = 1, .d_ff = 3, .act = ctf::nn::activation::gelu};
    auto x = ctf::input<"x", 1, 2>();
    // gelu(hidden) = [0.8413447, -0.1542687, 0]
    // y = [0.8413447 - 2·0.1542687 + 0.1, 4·0.8413447 - 5·0.1542687 + 0.2] = [0.6328073, 2.7940353]
    test::expect_close(ctf::reference::evaluate(ctf::nn::feed_forward<cfg>(x), ffn_inputs()),
                      {0.6328073, 2.7940353}, {.atol = 1e-6});
}

}  // namespace
