// Operations that no pass fuses, each on its own kernel, against the reference evaluator on every
// Highway target compiled in: scale and the activations outside a GEMM (widths that leave a partial
// vector), a matmul of two activations with a transposed operand, every mask kind on written-out
// scores (broadcast shapes, rows with every key masked, Lq != Lk), softmax, and the head views
// (split, expand, merge, transpose of a split) as copies; rank-3 batched operands, whose extent
// before the matrix is the batch. The plans hold no other kind of step.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/model_ops_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>
#include <hwy/tests/hwy_gtest.h>

#include <ctformer/runtime/model-inl.h>

#include "support/model_check.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::tests::HWY_NAMESPACE {
namespace rt = ctformer::runtime::HWY_NAMESPACE;

// The graph compiled, its plan made of the given kernels only, and its output the reference's.
template <class Graph>
void check(const Graph& graph, const tensor_map& inputs, std::initializer_list<std::string_view> kernels) {
    auto model = rt::compile(graph);
    for (const plan::step& s : model.program().steps)
        EXPECT_NE(std::find(kernels.begin(), kernels.end(), s.kernel), kernels.end()) << "unexpected step " << s.kernel;
    model.bind(inputs);
    test::expect_close(model.run(inputs, {2}), reference::evaluate(graph, inputs), test::fp32_model);
}

template <class Graph>
void check(const Graph& graph, std::initializer_list<std::string_view> kernels) {
    check(graph, reference::random_inputs(graph, 2, 11), kernels);
}

void TestScaleAndActivations() {
    auto x = input<"x", batch, 7, 13>();
    check(relu(x) + gelu(scale(x, 2.5)) + gelu_tanh(scale(x, -3.0)), {"relu", "gelu", "gelu_tanh", "scale", "add"});
}

// softmax(mask(Q·Kᵀ)) · V with no scale, so no attention kernel takes it: each operation a step.
template <class Masked>
void check_scores(const Masked& masked, tensor_map inputs, std::initializer_list<std::string_view> kernels) {
    auto v = input<"v", batch, 2, 6, 3>();
    check(matmul(softmax(masked), v), inputs, kernels);
}

// About a third of a boolean mask's keys barred, in no period that divides a row.
void bar_some(host_tensor<float>& m) {
    for (std::size_t i = 0; i < m.size(); ++i)
        if ((i * 2654435761u >> 7) % 3 == 0) m[i] = 0;
}

void TestMasksOnWrittenScores() {
    auto q = input<"q", batch, 2, 5, 8>();
    auto k = input<"k", batch, 2, 6, 8>();
    auto scores = matmul(q, transpose(k));
    auto pad = bool_input<"pad", batch, 6>();
    auto seq_mask = bool_input<"m", batch, 5, 6>();
    auto head_bias = input<"bias", 2, 5, 6>();
    auto graph = mask(mask(mask(mask(scores, causal_bottom_right), key_padding(pad)), attend(seq_mask)),
                      additive(head_bias));
    tensor_map inputs = reference::random_inputs(matmul(softmax(graph), input<"v", batch, 2, 6, 3>()), 2, 13);
    for (std::size_t key = 0; key < 6; ++key) inputs.at("pad")[6 + key] = 0;  // sequence 1: no key at all
    bar_some(inputs.at("m"));
    inputs.at("pad")[2] = 0;
    check_scores(graph, inputs, {"transpose", "matmul", "mask", "softmax"});

    auto wide_q = input<"q", batch, 2, 8, 8>();  // Lq > Lk: the first rows see no key
    auto bias = input<"bias", 8, 6>();
    auto full = bool_input<"m", batch, 2, 8, 6>();
    auto wide = mask(mask(mask(matmul(wide_q, transpose(k)), causal_bottom_right), additive(bias)), attend(full));
    tensor_map wide_inputs = reference::random_inputs(matmul(softmax(wide), input<"v", batch, 2, 6, 3>()), 2, 17);
    bar_some(wide_inputs.at("m"));
    check_scores(wide, wide_inputs, {"transpose", "matmul", "mask", "softmax"});
    check_scores(mask(scores, causal), reference::random_inputs(matmul(softmax(mask(scores, causal)),
                                                                       input<"v", batch, 2, 6, 3>()), 2, 19),
                 {"transpose", "matmul", "mask", "softmax"});
}

void TestHeadViews() {
    auto x = input<"x", batch, 5, 12>();
    check(merge_heads(expand_heads<6>(split_heads<3>(x))), {"split_heads", "expand_heads", "merge_heads"});
    check(merge_heads(expand_heads<6>(expand_heads<3>(split_heads<1>(input<"one", batch, 5, 4>())))), {"expand_heads", "merge_heads"});
    check(transpose(split_heads<3>(x)), {"transpose"});
    check(split_heads<4>(scale(x, 0.5)) + split_heads<4>(x), {"scale", "split_heads", "add"});
    auto a = input<"a", batch, 5, 4>();  // rank 3: the batch, not heads, before the matrix
    check(matmul(a, transpose(input<"b", batch, 6, 4>())), {"transpose", "matmul"});
    check(nn::scaled_dot_product_attention(a, a, a, causal), {"fused_attention"});
}

}  // namespace ctformer::tests::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ctformer::tests {
HWY_BEFORE_TEST(StandaloneOperations);
HWY_EXPORT_AND_TEST_P(StandaloneOperations, TestScaleAndActivations);
HWY_EXPORT_AND_TEST_P(StandaloneOperations, TestMasksOnWrittenScores);
HWY_EXPORT_AND_TEST_P(StandaloneOperations, TestHeadViews);
}  // namespace ctformer::tests
#endif
