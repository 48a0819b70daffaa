// The fused attention kernel against the reference evaluator's scaled_dot_product_attention, on
// every Highway target compiled in: square and cross shapes with tails, L = 1, causal masks with
// Lq != Lk in both alignments, sliding windows (one key, a few, across key blocks and query tiles), key padding, attend and additive masks, fully masked queries
// (zeros), logits near ±90, and scores that overflow (NaN).
// Tolerance: values are uniform in [-1, 1], so outputs (weighted means of value rows) are within ±1;
// fp32 against the double reference stays within 1e-5 + 1e-4·|want|, logits near ±90 included.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/attention_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>
#include <hwy/tests/hwy_gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <ctformer/ctformer.hpp>
#include <ctformer/kernels/attention-inl.h>
#include <ctformer/reference/evaluate.hpp>
#include <ctformer/reference/random_inputs.hpp>

#include "support/compare.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::tests::HWY_NAMESPACE {
namespace k = ctformer::kernels;
namespace kt = ctformer::kernels::HWY_NAMESPACE;

// The reference, in the DSL, with the masks the kernel applies (Window: a top-left causal mask's
// sliding window).
template <causality Causal, bool Padding, int Window, class Q, class K, class V, class P>
auto reference_attention(Q q, K key, V v, P pad) {
    auto causal_mask = [] {
        if constexpr (Causal == causality::bottom_right) return causal_bottom_right;
        else if constexpr (Window > 0) return sliding_window<Window>;
        else return causal;
    };
    using nn::scaled_dot_product_attention;
    if constexpr (Causal == causality::none && !Padding) return scaled_dot_product_attention(q, key, v);
    else if constexpr (Causal == causality::none) return scaled_dot_product_attention(q, key, v, key_padding(pad));
    else if constexpr (!Padding) return scaled_dot_product_attention(q, key, v, causal_mask());
    else return scaled_dot_product_attention(q, key, v, causal_mask(), key_padding(pad));
}

// logit_scale multiplies q: 30 puts logits near ±90, where a naive exp overflows. The lengths are
// run-time, as the kernel takes them: one reference graph per head size and mask.
template <std::size_t Dk, std::size_t Dv, causality Causal = causality::none, bool Padding = false, int Window = 0>
void check(std::size_t lq, std::size_t lk, float logit_scale = 1.0f, std::vector<float> pad_values = {}) {
    auto q = input<"q", upto<300>, int(Dk)>();
    auto key = input<"k", upto<300, 1>, int(Dk)>();
    auto v = input<"v", upto<300, 1>, int(Dv)>();
    auto pad = bool_input<"pad", upto<300, 1>>();
    auto expr = reference_attention<Causal, Padding, Window>(q, key, v, pad);
    const extent_values at{1, {lq, lk}};
    tensor_map in = reference::random_inputs(q + q, at, 21);
    in.merge(reference::random_inputs(key + key, at, 22));
    in.merge(reference::random_inputs(v + v, at, 23));
    for (float& x : in.at("q").data) x *= logit_scale;
    in["pad"] = host_tensor<float>({lk}, pad_values.empty() ? std::vector<float>(lk, 1.0f) : pad_values);
    const auto want = reference::evaluate(expr, in);

    const float scale = static_cast<float>(1.0 / std::sqrt(double(Dk)));
    const k::attention_args args{.scale = scale, .key_attend = Padding ? in.at("pad").data.data() : nullptr, .window = Window};
    using scratch_type = kt::attention_scratch<Dk, Dv>;
    const auto memory = hwy::AllocateAligned<std::byte>(scratch_type::bytes(lq, lk));
    scratch_type scratch(memory.get(), lq, lk);
    std::vector<float> got(lq * Dv, -12345.0f);
    kt::attention<Dk, Dv, Causal>(in.at("q").data.data(), in.at("k").data.data(),
                                          in.at("v").data.data(), got.data(), args, scratch);
    test::expect_close(got, want, {.atol = 1e-5, .rtol = 1e-4},
                       "attention Lq=" + std::to_string(lq) + " Lk=" + std::to_string(lk) + " Dk=" + std::to_string(Dk) +
                           " Dv=" + std::to_string(Dv) + " window=" + std::to_string(Window));
}

void TestShapes() {
    check<8, 8>(1, 1);
    check<64, 64>(10, 10);
    check<16, 24>(7, 13);
    check<64, 64>(129, 37);
    check<64, 40>(37, 129);
    check<16, 12>(9, 70);  // value rows of no whole vector on AVX2 and AVX-512: staged, padded
    check<6, 6>(11, 13);   // key rows of no whole 4 × 4 block: their last columns staged one at a time
}

void TestCausal() {
    check<64, 64, causality::top_left>(10, 10);
    check<32, 32, causality::top_left>(129, 129);
    check<16, 16, causality::top_left>(5, 70);
    check<16, 16, causality::bottom_right>(5, 70);
    check<16, 16, causality::bottom_right>(70, 5);  // the first 65 queries see no key: zeros
    check<16, 16, causality::top_left>(70, 5);
    check<64, 64, causality::top_left>(300, 260);  // two query tiles over five key blocks
}

// Each query i over keys (i - W, i]: W of 1 (itself alone), a few, one key block; across key blocks
// and query tiles (blocks before every row's window skipped), more queries than keys (the last rows'
// windows past the keys: zeros), and a window whose keys are all padding (zeros).
void TestSlidingWindow() {
    check<16, 16, causality::top_left, false, 1>(10, 10);
    check<64, 64, causality::top_left, false, 3>(10, 10);
    check<32, 32, causality::top_left, false, 64>(129, 129);
    check<64, 64, causality::top_left, false, 70>(300, 300);  // two query tiles; blocks skipped
    check<16, 16, causality::top_left, false, 5>(70, 40);     // queries 40-43 see fewer keys, 44 on none: zeros
    check<16, 16, causality::top_left, true, 2>(6, 9, 1.0f, {1, 1, 0, 0, 1, 1, 0, 0, 1});  // row 3: zeros
    check<64, 64, causality::top_left, false, 7>(33, 33, 30.0f);
}

void TestPaddingAndFullyMaskedRows() {
    check<16, 16, causality::none, true>(6, 9, 1.0f, {1, 0, 1, 1, 0, 0, 1, 1, 0});
    check<16, 16, causality::none, true>(6, 9, 1.0f, std::vector<float>(9, 0.0f));  // all masked: zeros
    check<16, 16, causality::top_left, true>(6, 9, 1.0f, {0, 0, 1, 1, 0, 0, 1, 1, 0});  // rows 0, 1: zeros
    std::vector<float> every_third(150, 0.0f);  // keys 0, 3, 6, ... up to 126; the last block all masked
    for (std::size_t j = 0; j < 128; j += 3) every_third[j] = 1.0f;
    check<16, 16, causality::none, true>(70, 150, 1.0f, every_third);
}

void TestLargeLogits() {
    check<64, 64>(10, 10, 30.0f);
    check<64, 64, causality::bottom_right>(33, 70, 30.0f);
}

// attend and additive masks, as the scores are computed: of [Lq, Lk] or, OneRow, one row for every
// query ([1, Lk]: a row stride of 0), with causality, against mask(…, attend / additive) in the DSL.
// Every third score barred, biases of ±3, and a query row whose every key is barred.
template <std::size_t Dk, bool OneRow = false, causality Causal = causality::none>
void check_masks(std::size_t lq, std::size_t lk) {
    auto q = input<"q", upto<100>, int(Dk)>();
    auto key = input<"k", upto<100, 1>, int(Dk)>();
    auto v = input<"v", upto<100, 1>, int(Dk)>();
    constexpr int rows = OneRow ? 1 : upto<100>;
    auto m = bool_input<"m", rows, upto<100, 1>>();
    auto b = input<"b", rows, upto<100, 1>>();
    auto expr = [&] {
        if constexpr (Causal == causality::none) return nn::scaled_dot_product_attention(q, key, v, attend(m), additive(b));
        else return nn::scaled_dot_product_attention(q, key, v, additive(b), causal, attend(m));
    }();
    tensor_map in = reference::random_inputs(expr, extent_values{1, {lq, lk}}, 24);
    const std::size_t mask_rows = OneRow ? 1 : lq;
    for (std::size_t i = 0; i < mask_rows * lk; ++i) {
        in.at("m")[i] = i % 3 == 1 || (i / lk == mask_rows - 1 && mask_rows > 1) ? 0.0f : 1.0f;  // the last row: all barred
        in.at("b")[i] = 3.0f * std::sin(0.7f * float(i));
    }
    const auto want = reference::evaluate(expr, in);
    const std::size_t stride = OneRow ? 0 : lk;
    const k::attention_args args{static_cast<float>(1.0 / std::sqrt(double(Dk))), nullptr,
                                 {in.at("m").data.data(), stride}, {in.at("b").data.data(), stride}};
    using scratch_type = kt::attention_scratch<Dk, Dk>;
    const auto memory = hwy::AllocateAligned<std::byte>(scratch_type::bytes(lq, lk));
    scratch_type scratch(memory.get(), lq, lk);
    std::vector<float> got(lq * Dk, -12345.0f);
    kt::attention<Dk, Dk, Causal>(in.at("q").data.data(), in.at("k").data.data(), in.at("v").data.data(),
                                          got.data(), args, scratch);
    test::expect_close(got, want, {.atol = 1e-5, .rtol = 1e-4},
                       "masked attention Lq=" + std::to_string(lq) + " Lk=" + std::to_string(lk) + " rows " +
                           std::to_string(mask_rows));
}

void TestAttendAndAdditiveMasks() {
    check_masks<16>(10, 10);
    check_masks<16, true>(7, 13);  // one row for every query
    check_masks<16>(9, 70);        // the mask rows' last vectors partial, two key blocks
    check_masks<32, false, causality::top_left>(70, 70);
    check_masks<8>(33, 5);         // fewer keys than one vector
}

// Scores that overflow to -inf are not masked keys: a row that sees a key, every score of it -inf,
// is NaN (PyTorch's softmax of such a row), never a finite answer; rows the masks bar wholly stay
// zeros. q = 1e30, k = -1e30: every score -inf. Bottom-right causal with 70 queries over 5 keys: the
// first 65 see no key; the additive mask bars every key of row 66 (-inf) and none of the others.
void TestOverflowedScoresAreNaN() {
    constexpr std::size_t D = 16, lq = 70, lk = 5;
    const std::vector<float> q(lq * D, 1e30f), key(lk * D, -1e30f), v(lk * D, 1.0f);
    std::vector<float> additive(lq * lk, 0.0f);
    std::fill_n(&additive[66 * lk], lk, -std::numeric_limits<float>::infinity());
    const k::attention_args args{0.25f, nullptr, {nullptr, 0}, {additive.data(), lk}};
    const auto expect_row = [](const float* row, std::size_t n, std::size_t i, const char* path) {
        for (std::size_t c = 0; c < n; ++c) {
            if (i < 65 || i == 66) EXPECT_EQ(row[c], 0.0f) << path << " row " << i << " is wholly masked";
            else EXPECT_TRUE(std::isnan(row[c])) << path << " row " << i << ": " << row[c];
        }
    };
    using scratch_type = kt::attention_scratch<D, D>;
    const auto memory = hwy::AllocateAligned<std::byte>(scratch_type::bytes(lq, lk));
    scratch_type scratch(memory.get(), lq, lk);
    std::vector<float> out(lq * D, -12345.0f);
    kt::attention<D, D, causality::bottom_right>(q.data(), key.data(), v.data(), out.data(), args, scratch);
    for (std::size_t i = 0; i < lq; ++i) expect_row(&out[i * D], D, i, "attention");

    using probability_scratch = kt::attention_scratch<D, 0>;
    const auto probability_memory = hwy::AllocateAligned<std::byte>(probability_scratch::bytes(lq, lk));
    probability_scratch ps(probability_memory.get(), lq, lk);
    std::vector<float> p(lq * lk, -12345.0f);
    kt::probability_rows<D, causality::bottom_right>({q.data(), D}, {key.data(), D}, 0, lq, {p.data(), lk}, args, ps);
    for (std::size_t i = 0; i < lq; ++i) expect_row(&p[i * lk], lk, i, "probabilities");
}

}  // namespace ctformer::tests::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ctformer::tests {
HWY_BEFORE_TEST(AttentionKernel);
HWY_EXPORT_AND_TEST_P(AttentionKernel, TestShapes);
HWY_EXPORT_AND_TEST_P(AttentionKernel, TestCausal);
HWY_EXPORT_AND_TEST_P(AttentionKernel, TestSlidingWindow);
HWY_EXPORT_AND_TEST_P(AttentionKernel, TestPaddingAndFullyMaskedRows);
HWY_EXPORT_AND_TEST_P(AttentionKernel, TestLargeLogits);
HWY_EXPORT_AND_TEST_P(AttentionKernel, TestAttendAndAdditiveMasks);
HWY_EXPORT_AND_TEST_P(AttentionKernel, TestOverflowedScoresAreNaN);
}  // namespace ctformer::tests
#endif
