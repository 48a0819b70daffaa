// Compiled models against the reference evaluator, on every Highway target compiled in:
// need_weights (attention_probabilities, a batched matmul with V, the head average), and attend and
// additive masks of every shape, fused into the attention kernels. GQA with causal and key-padding
// masks (a sequence with every key masked), the positional encoding in a GEMM epilogue,
// cross-attention and odd lengths: model_lengths_test.cc, every length of one model.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/model_masks_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>
#include <hwy/tests/hwy_gtest.h>

#include <ctformer/runtime/attention_weights.hpp>
#include <ctformer/runtime/model-inl.h>

#include "support/model_check.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::tests::HWY_NAMESPACE {
namespace rt = ctformer::runtime::HWY_NAMESPACE;

// need_weights: the output, the per-head weights kept from the run, and their mean over the heads.
void TestAttentionWeights() {
    constexpr nn::config gqa{.d_model = 32, .heads = 4, .kv_heads = 2};
    auto x = input<"x", batch, 9, 32>();
    auto pad = bool_input<"pad", batch, 9>();
    auto mha = nn::multi_head_attention_with_weights<gqa>(x, x, x, causal, key_padding(pad));
    auto model = rt::compile(mha.output);
    tensor_map inputs = reference::random_inputs(mha.output, 2, 9);
    inputs.at("pad")[3] = 0;
    model.bind(inputs);
    host_tensor<float> output, weights;
    model.run(inputs, output, {.threads = 2, .keep = {{"attn_weights", &weights}}});
    reference::evaluator evaluate(inputs);
    test::expect_close(output, evaluate(mha.output), test::fp32_model, "output");
    const reference::value& want = evaluate.intermediate("attn_weights");
    test::expect_close(weights, want, test::fp32_model, "per-head weights");
    const host_tensor<float> mean = average_over_heads(weights);
    host_tensor<double> want_mean({2, 9, 9});
    for (std::size_t i = 0; i < want_mean.size(); ++i) {
        const std::size_t b = i / 81, within = i % 81;
        for (std::size_t h = 0; h < 4; ++h) want_mean[i] += want[(b * 4 + h) * 81 + within] / 4;
    }
    test::expect_close(mean, want_mean, test::fp32_model, "weights averaged over the heads");
    EXPECT_THROW(model.run(inputs, output, {.keep = {{"no_such_value", &weights}}}), missing_tensor);
}

// Every mask is in the attention kernel: no step masks or normalises written-out scores.
template <class Model>
void expect_masks_fused(const Model& model) {
    for (const plan::step& s : model.program().steps) {
        EXPECT_NE(s.kernel, "mask");
        EXPECT_NE(s.kernel, "softmax");
    }
}

// An irregular pattern (no period that divides a row or a head's slice), so a wrong row, head or
// sequence stride reads other values.
bool scrambled(std::size_t i, unsigned salt) { return ((i + salt) * 2654435761u >> 7) % 3 == 0; }

// Random masks: about a third of attend's and key padding's entries false, one query row of
// sequence 0 wholly barred, additive biases of ±2 and some -1e9.
void scramble_masks(tensor_map& inputs) {
    for (auto& [name, t] : inputs) {
        if (name.starts_with("m")) {
            for (std::size_t i = 0; i < t.size(); ++i) t[i] = scrambled(i, 1) ? 0.0f : 1.0f;
            for (std::size_t j = 0; j < t.dims.back(); ++j) t[j] = 0.0f;  // its first row: every key barred
        }
        if (name == "pad")
            for (std::size_t i = 0; i < t.size(); ++i) t[i] = scrambled(i, 5) ? 0.0f : 1.0f;
        if (name.starts_with("b"))
            for (std::size_t i = 0; i < t.size(); ++i) t[i] = i % 11 == 4 ? -1e9f : 2.0f * std::sin(float(i));
    }
}

template <class Graph>
void check_masked(const Graph& graph, std::size_t batch = 2) {
    auto model = rt::compile(graph);
    expect_masks_fused(model);
    tensor_map inputs = reference::random_inputs(graph, batch, 8);
    scramble_masks(inputs);
    model.bind(inputs);
    test::expect_close(model.run(inputs, {2}), reference::evaluate(graph, inputs), test::fp32_model);
}

// The seeds' mask forms (attend: PyTorch's masked_fill(mask == 0, -1e9); additive: NumPy's
// mask·(-1e9)) in every shape that broadcasts to [B, heads, Lq, Lk], alone and together, with causal
// and key padding, self- and cross-attention, Q/K/V still one GEMM. Each graph holds two shapes, so
// that the file compiles fewer models (CI time) and every shape is checked beside another.
void TestAttendAndAdditiveMaskShapes() {
    constexpr nn::config cfg{.d_model = 16, .heads = 2};
    auto x = input<"x", batch, 6, 16>();
    check_masked(nn::multi_head_attention<cfg>(x, attend(bool_input<"m", 2, 6, 6>())));
    check_masked(nn::multi_head_attention<cfg>(x, attend(bool_input<"m", 6, 6>()),
                                               additive(input<"b", batch, 2, 6, 6>())));
    check_masked(nn::multi_head_attention<cfg>(x, attend(bool_input<"m", batch, 1, 6, 6>()),
                                               additive(input<"b", 6, 6>()), causal,
                                               key_padding(bool_input<"pad", batch, 6>())));
    auto graph = nn::multi_head_attention<cfg>(x, causal, attend(bool_input<"m", batch, 6, 6>()),
                                               additive(input<"b", 1, 6>()));
    check_masked(graph);
    auto kv = input<"kv", batch, 9, 16>();
    check_masked(nn::multi_head_attention<cfg>(x, kv, kv, attend(bool_input<"m", batch, 6, 9>()), causal_bottom_right,
                                               additive(input<"b", 2, 6, 9>())));
    EXPECT_EQ(rt::compile(graph).program().steps.size(), 3u);  // the Q/K/V GEMM, the attention, the output GEMM
}

// need_weights with the same masks, a sliding window of 3 keys as the causal one: the probabilities
// kernel applies them too.
void TestAttentionWeightsWithMasks() {
    constexpr nn::config cfg{.d_model = 16, .heads = 2};
    auto x = input<"x", batch, 7, 16>();
    auto mha = nn::multi_head_attention_with_weights<cfg>(x, x, x, attend(bool_input<"m", batch, 7, 7>()),
                                                          additive(input<"b", 2, 7, 7>()), sliding_window<3>);
    auto model = rt::compile(mha.output);
    expect_masks_fused(model);
    tensor_map inputs = reference::random_inputs(mha.output, 2, 10);
    scramble_masks(inputs);
    model.bind(inputs);
    host_tensor<float> output, weights;
    model.run(inputs, output, {.threads = 2, .keep = {{"attn_weights", &weights}}});
    reference::evaluator evaluate(inputs);
    test::expect_close(output, evaluate(mha.output), test::fp32_model, "output");
    test::expect_close(weights, evaluate.intermediate("attn_weights"), test::fp32_model, "masked weights");
}

}  // namespace ctformer::tests::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ctformer::tests {
HWY_BEFORE_TEST(CompiledModelMasks);
HWY_EXPORT_AND_TEST_P(CompiledModelMasks, TestAttentionWeights);
HWY_EXPORT_AND_TEST_P(CompiledModelMasks, TestAttendAndAdditiveMaskShapes);
HWY_EXPORT_AND_TEST_P(CompiledModelMasks, TestAttentionWeightsWithMasks);
}  // namespace ctformer::tests
#endif
