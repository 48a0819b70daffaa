// The fused attention kernel against the reference evaluator's scaled_dot_product_attention, on
// every Highway target compiled in: square and cross shapes with tails, L = 1, causal masks with
// Lq != Lk in both alignments, key padding, attend and additive masks, fully masked queries
// (zeros), and logits near ±90.
// Tolerance: values are uniform in [-1, 1], so outputs (weighted means of value rows) are within ±1;
// fp32 against the double reference stays within 1e-5 + 1e-4·|want|, logits near ±90 included.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/attention_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>
#include <hwy/tests/hwy_gtest.h>

#include <cmath>
#include <vector>

#include <ctformer/ctformer.hpp>
#include <ctformer/kernels/attention-inl.h>
#include <ctformer/reference/random_inputs.hpp>

#include "support/compare.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::tests::HWY_NAMESPACE {
namespace k = ctformer::kernels;
namespace kt = ctformer::kernels::HWY_NAMESPACE;

// The reference, in the DSL, with the masks the kernel applies.
template <causality Causal, bool Padding, class Q, class K, class V, class P>
auto reference_attention(Q q, K key, V v, P pad) {
    auto causal_mask = [] {
        if constexpr (Causal == causality::bottom_right) return causal_bottom_right;
        else return causal;
    };
    using nn::scaled_dot_product_attention;
    if constexpr (Causal == causality::none && !Padding) return scaled_dot_product_attention(q, key, v);
    else if constexpr (Causal == causality::none) return scaled_dot_product_attention(q, key, v, key_padding(pad));
    else if constexpr (!Padding) return scaled_dot_product_attention(q, key, v, causal_mask());
    else return scaled_dot_product_attention(q, key, v, causal_mask(), key_padding(pad));
}

// logit_scale multiplies q: 30 puts logits near ±90, where a naive exp overflows.
template <std::size_t Lq, std::size_t Lk, std::size_t Dk, std::size_t Dv, causality Causal = causality::none,
          bool Padding = false>
void check(float logit_scale = 1.0f, std::vector<float> pad_values = {}) {
    auto q = input<"q", int(Lq), int(Dk)>();
    auto key = input<"k", int(Lk), int(Dk)>();
    auto v = input<"v", int(Lk), int(Dv)>();
    auto pad = bool_input<"pad", int(Lk)>();
    auto expr = reference_attention<Causal, Padding>(q, key, v, pad);
    tensor_map in = reference::random_inputs(q + q, 1, 21);
    in.merge(reference::random_inputs(key + key, 1, 22));
    in.merge(reference::random_inputs(v + v, 1, 23));
    for (float& x : in.at("q").data) x *= logit_scale;
    in["pad"] = host_tensor<float>({Lk}, pad_values.empty() ? std::vector<float>(Lk, 1.0f) : pad_values);
    const auto want = reference::evaluate(expr, in);

    const float scale = static_cast<float>(1.0 / std::sqrt(double(Dk)));
    const k::attention_args args{scale, Padding ? in.at("pad").data.data() : nullptr};
    using scratch_type = kt::attention_scratch<Dk, Dv>;
    const auto memory = hwy::AllocateAligned<std::byte>(scratch_type::bytes(Lq, Lk));
    scratch_type scratch(memory.get(), Lq, Lk);
    std::vector<float> got(Lq * Dv, -12345.0f);
    kt::attention<Dk, Dv, Causal>(in.at("q").data.data(), in.at("k").data.data(),
                                          in.at("v").data.data(), got.data(), args, scratch);
    test::expect_close(got, want, {.atol = 1e-5, .rtol = 1e-4},
                       "attention Lq=" + std::to_string(Lq) + " Lk=" + std::to_string(Lk) + " Dk=" + std::to_string(Dk) +
                           " Dv=" + std::to_string(Dv));
}

void TestShapes() {
    check<1, 1, 8, 8>();
    check<10, 10, 64, 64>();
    check<7, 13, 16, 24>();
    check<129, 37, 64, 64>();
    check<37, 129, 64, 40>();
    check<9, 70, 16, 12>();  // value rows of no whole vector on AVX2 and AVX-512: staged, padded
}

void TestCausal() {
    check<10, 10, 64, 64, causality::top_left>();
    check<129, 129, 32, 32, causality::top_left>();
    check<5, 70, 16, 16, causality::top_left>();
    check<5, 70, 16, 16, causality::bottom_right>();
    check<70, 5, 16, 16, causality::bottom_right>();  // the first 65 queries see no key: zeros
    check<70, 5, 16, 16, causality::top_left>();
    check<300, 260, 64, 64, causality::top_left>();  // two query tiles over five key blocks
}

void TestPaddingAndFullyMaskedRows() {
    check<6, 9, 16, 16, causality::none, true>(1.0f, {1, 0, 1, 1, 0, 0, 1, 1, 0});
    check<6, 9, 16, 16, causality::none, true>(1.0f, std::vector<float>(9, 0.0f));  // all masked: zeros
    check<6, 9, 16, 16, causality::top_left, true>(1.0f, {0, 0, 1, 1, 0, 0, 1, 1, 0});  // rows 0, 1: zeros
    std::vector<float> every_third(150, 0.0f);  // keys 0, 3, 6, ... up to 126; the last block all masked
    for (std::size_t j = 0; j < 128; j += 3) every_third[j] = 1.0f;
    check<70, 150, 16, 16, causality::none, true>(1.0f, every_third);
}

void TestLargeLogits() {
    check<10, 10, 64, 64>(30.0f);
    check<33, 70, 64, 64, causality::bottom_right>(30.0f);
}

// attend and additive masks, as the scores are computed: of [Lq, Lk] (Rows = Lq) or one row for
// every query ([1, Lk]: a row stride of 0), with causality, against mask(…, attend / additive) in
// the DSL. Every third score barred, biases of ±3, and a query row whose every key is barred.
template <std::size_t Lq, std::size_t Lk, std::size_t Dk, std::size_t Rows, causality Causal = causality::none>
void check_masks() {
    auto q = input<"q", int(Lq), int(Dk)>();
    auto key = input<"k", int(Lk), int(Dk)>();
    auto v = input<"v", int(Lk), int(Dk)>();
    auto m = bool_input<"m", int(Rows), int(Lk)>();
    auto b = input<"b", int(Rows), int(Lk)>();
    auto expr = [&] {
        if constexpr (Causal == causality::none) return nn::scaled_dot_product_attention(q, key, v, attend(m), additive(b));
        else return nn::scaled_dot_product_attention(q, key, v, additive(b), causal, attend(m));
    }();
    tensor_map in = reference::random_inputs(expr, 1, 24);
    for (std::size_t i = 0; i < Rows * Lk; ++i) {
        in.at("m")[i] = i % 3 == 1 || (i / Lk == Rows - 1 && Rows > 1) ? 0.0f : 1.0f;  // the last row: all barred
        in.at("b")[i] = 3.0f * std::sin(0.7f * float(i));
    }
    const auto want = reference::evaluate(expr, in);
    const std::size_t stride = Rows == 1 ? 0 : Lk;
    const k::attention_args args{static_cast<float>(1.0 / std::sqrt(double(Dk))), nullptr,
                                 {in.at("m").data.data(), stride}, {in.at("b").data.data(), stride}};
    using scratch_type = kt::attention_scratch<Dk, Dk>;
    const auto memory = hwy::AllocateAligned<std::byte>(scratch_type::bytes(Lq, Lk));
    scratch_type scratch(memory.get(), Lq, Lk);
    std::vector<float> got(Lq * Dk, -12345.0f);
    kt::attention<Dk, Dk, Causal>(in.at("q").data.data(), in.at("k").data.data(), in.at("v").data.data(),
                                          got.data(), args, scratch);
    test::expect_close(got, want, {.atol = 1e-5, .rtol = 1e-4},
                       "masked attention Lq=" + std::to_string(Lq) + " Lk=" + std::to_string(Lk) + " rows " +
                           std::to_string(Rows));
}

void TestAttendAndAdditiveMasks() {
    check_masks<10, 10, 16, 10>();
    check_masks<7, 13, 16, 1>();     // one row for every query
    check_masks<9, 70, 16, 9>();     // the mask rows' last vectors partial, two key blocks
    check_masks<70, 70, 32, 70, causality::top_left>();
    check_masks<33, 5, 8, 33>();     // fewer keys than one vector
}

}  // namespace ctformer::tests::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ctformer::tests {
HWY_BEFORE_TEST(AttentionKernel);
HWY_EXPORT_AND_TEST_P(AttentionKernel, TestShapes);
HWY_EXPORT_AND_TEST_P(AttentionKernel, TestCausal);
HWY_EXPORT_AND_TEST_P(AttentionKernel, TestPaddingAndFullyMaskedRows);
HWY_EXPORT_AND_TEST_P(AttentionKernel, TestLargeLogits);
HWY_EXPORT_AND_TEST_P(AttentionKernel, TestAttendAndAdditiveMasks);
}  // namespace ctformer::tests
#endif
