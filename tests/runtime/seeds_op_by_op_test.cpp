// The seeds' multi-head attention written op by op, as their NumPy and PyTorch code do it (x·Wᵀ + b,
// heads split, Q·Kᵀ, scale by 1/√d_k, the mask, softmax, ·V, heads merged, the output projection),
// not through nn::: it fuses to the same plan as nn::multi_head_attention, with either of the
// seeds' masks (PyTorch's masked_fill(mask == 0, -1e9) is attend; NumPy's + mask·(-1e9) is
// additive), and, compiled, gives the seeds' worked numbers.
#include <ctformer/compile.hpp>

#include <cmath>

#include "support/model_check.hpp"
#include "support/tensors.hpp"

namespace {

// x·Wᵀ + b, split into heads.
template <ctf::fixed_string W, ctf::fixed_string B, int D, int Heads, class X>
auto projected(X x) {
    return ctf::split_heads<Heads>(ctf::matmul(x, ctf::transpose(ctf::weight<W, D, D>())) + ctf::weight<B, D>());
}

template <int D, int Heads, class X, class Mask>
auto seeds_attention(X x, Mask m) {
    constexpr int d_k = D / Heads;
    auto q = projected<"q_proj_weight", "q_proj_bias", D, Heads>(x);
    auto k = projected<"k_proj_weight", "k_proj_bias", D, Heads>(x);
    auto v = projected<"v_proj_weight", "v_proj_bias", D, Heads>(x);
    auto scores = ctf::scale(ctf::matmul(q, ctf::transpose(k)), 1.0 / std::sqrt(double(d_k)));
    auto weights = ctf::softmax(ctf::mask(scores, m));
    auto z = ctf::merge_heads(ctf::matmul(weights, v));
    return ctf::matmul(z, ctf::transpose(ctf::weight<"out_proj.weight", D, D>())) + ctf::weight<"out_proj.bias", D>();
}

std::string plan_of(const std::string& explained) { return explained.substr(explained.find("== plan")); }

constexpr ctf::nn::config seeds{.d_model = 512, .heads = 8};
auto x = ctf::input<"x", ctf::batch, 10, 512>();

TEST(SeedsOpByOp, AttendMaskFusesToTheBlocksPlan) {
    auto m = ctf::bool_input<"mask", ctf::batch, 10, 10>();
    auto by_hand = ctf::compile(seeds_attention<512, 8>(x, ctf::attend(m)));
    auto block = ctf::compile(ctf::nn::multi_head_attention<seeds>(x, ctf::attend(m)));
    EXPECT_EQ(plan_of(by_hand.explain(2)), plan_of(block.explain(2)));
    EXPECT_EQ(by_hand.program().steps.size(), 3u) << by_hand.explain(2);  // Q/K/V GEMM, attention, out GEMM
}

TEST(SeedsOpByOp, AdditiveMaskFusesToTheBlocksPlan) {
    auto bias = ctf::input<"mask_bias", ctf::batch, 10, 10>();
    auto graph = seeds_attention<512, 8>(x, ctf::additive(bias));
    auto by_hand = ctf::compile(graph);
    auto block = ctf::compile(ctf::nn::multi_head_attention<seeds>(x, ctf::additive(bias)));
    EXPECT_EQ(plan_of(by_hand.explain(2)), plan_of(block.explain(2)));
    test::expect_matches_reference(by_hand, graph, 2);
}

// X = [[1,0],[0,1]], every W = I, b = 0, d_k = 2 (tests/nn/attention_test.cpp has the arithmetic).
TEST(SeedsOpByOp, CompiledGivesTheSeedsWorkedExample) {
    auto x2 = ctf::input<"x", ctf::batch, 2, 2>();
    auto m = ctf::bool_input<"mask", ctf::batch, 2, 2>();
    auto model = ctf::compile(seeds_attention<2, 1>(x2, ctf::attend(m)));
    ctf::tensor_map in{{"x", test::identity(2)}, {"mask", test::filled({1, 2, 2}, 1)}};
    in.at("x").dims = {1, 2, 2};
    for (const char* w : {"q_proj_weight", "k_proj_weight", "v_proj_weight", "out_proj.weight"}) in[w] = test::identity(2);
    for (const char* b : {"q_proj_bias", "k_proj_bias", "v_proj_bias", "out_proj.bias"}) in[b] = test::filled({2}, 0);
    model.bind(in);
    test::expect_close(model.run(in, {1}), std::vector<double>{0.669762, 0.330238, 0.330238, 0.669762}, {.atol = 1e-6});
}

}  // namespace
