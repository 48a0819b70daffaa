// Compiled models against the reference evaluator, on every Highway target compiled in: the seeds'
// multi-head attention, encoder layers (post-LN relu, pre-LN gelu, on 2 threads), and a repeated
// stack against its layers run in turn. Tolerance in support/model_check.hpp. (Masks and odd shapes:
// model_masks_test.cc; two files build in parallel.)
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/model_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>
#include <hwy/tests/hwy_gtest.h>

#include <ctformer/runtime/model-inl.h>

#include "support/model_check.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::tests::HWY_NAMESPACE {
namespace rt = ctformer::runtime::HWY_NAMESPACE;

template <class Graph>
void check(const Graph& graph, std::size_t batch, int threads = 1) {
    auto model = rt::compile(graph);
    test::expect_matches_reference(model, graph, batch, 3, threads);
}

void TestSeedsMultiHeadAttention() {
    constexpr nn::config seeds{.d_model = 512, .heads = 8};
    check(nn::multi_head_attention<seeds>(input<"x", batch, 10, 512>()), 2);
}

void TestEncoderLayers() {
    constexpr nn::config post{.d_model = 32, .heads = 4, .d_ff = 64};
    constexpr nn::config pre{.d_model = 32, .heads = 4, .d_ff = 64, .act = nn::activation::gelu,
                             .norm = nn::norm_position::pre};
    check(nn::encoder_layer<post>(input<"x", batch, 7, 32>()), 3);
    check(nn::encoder_layer<pre>(input<"x", batch, 37, 32>()), 2, 2);
}

// nn::encoder<cfg, 3>, one body run three times, against one compiled layer run three times in
// turn, bound each time to that layer's weights (names without "layers.{i}.").
void TestRepeatedStackIsItsLayersInTurn() {
    constexpr nn::config cfg{.d_model = 32, .heads = 4, .d_ff = 64, .act = activation::gelu, .norm = nn::norm_position::pre};
    auto x = input<"x", batch, 9, 32>();
    auto stack = nn::encoder<cfg, 3>(x, causal);
    auto stacked = rt::compile(stack);
    const tensor_map weights = test::expect_matches_reference(stacked, stack, 2, 4);
    auto layer = rt::compile(nn::encoder_layer<cfg>(x, causal));
    host_tensor<float> h = weights.at("x");
    for (int i = 0; i < 3; ++i) {
        tensor_map own{{"x", h}};
        const std::string prefix = "layers." + std::to_string(i) + ".";
        for (const auto& [name, t] : weights)
            if (name.starts_with(prefix)) own[name.substr(prefix.size())] = t;
        layer.bind(own);
        h = layer.run(own, {1});
    }
    test::expect_close(stacked.run(weights, {1}), h, {.atol = 1e-6}, "the stack against its layers in turn");
}

}  // namespace ctformer::tests::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ctformer::tests {
HWY_BEFORE_TEST(CompiledModel);
HWY_EXPORT_AND_TEST_P(CompiledModel, TestSeedsMultiHeadAttention);
HWY_EXPORT_AND_TEST_P(CompiledModel, TestEncoderLayers);
HWY_EXPORT_AND_TEST_P(CompiledModel, TestRepeatedStackIsItsLayersInTurn);
}  // namespace ctformer::tests
#endif
