// Operations that no pass fuses, each on its own kernel, against the reference evaluator on every
// Highway target compiled in: scale and the activations outside a GEMM (widths that leave a partial
// vector), a matmul of two activations with a transposed operand, and the head views (split,
// expand, merge, transpose of a split) as copies; rank-3 batched operands, whose extent before the
// matrix is the batch. The plans hold no other kind of step. Every mask kind on written-out scores,
// with softmax, at every pair of lengths: model_lengths_test.cc.
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
HWY_EXPORT_AND_TEST_P(StandaloneOperations, TestHeadViews);
}  // namespace ctformer::tests
#endif
