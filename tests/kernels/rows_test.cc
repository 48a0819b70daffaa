// Row kernels (residual LayerNorm, RMSNorm, softmax, L2 normalisation, the pooling's weighted mean) against
// the reference evaluator on every Highway target compiled in, for widths with and without a partial
// last vector, rows 1 and 37, masked rows, logits near ±90, and LayerNorm and L2 norms of values up
// to 3e37. Tolerance: normalised rows and probabilities are O(1); fp32 against the double
// reference stays within 1e-5 + 1e-4·|want|.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/rows_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>
#include <hwy/tests/hwy_gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <ctformer/ctformer.hpp>
#include <ctformer/kernels/rows-inl.h>
#include <ctformer/reference/evaluate.hpp>
#include <ctformer/reference/random_inputs.hpp>

#include "support/compare.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::tests::HWY_NAMESPACE {
namespace kt = ctformer::kernels::HWY_NAMESPACE;

void expect_close(const std::vector<float>& got, const host_tensor<double>& want) {
    test::expect_close(got, want, {.atol = 1e-5, .rtol = 1e-4});
}

template <std::size_t N>
void check_layer_norm(std::size_t rows, float magnitude = 1.0f) {
    auto x = input<"x", batch, int(N)>();
    auto r = input<"r", batch, int(N)>();
    auto g = weight<"g", int(N)>();
    auto b = weight<"b", int(N)>();
    tensor_map in = reference::random_inputs(layer_norm(x + r, g, b), rows, 31);
    for (const char* name : {"x", "r"})
        for (float& v : in.at(name).data) v *= magnitude;
    const auto want = reference::evaluate(layer_norm(x + r, g, b), in);
    std::vector<float> got(rows * N);
    kt::residual_layer_norm<N>(rows, in.at("x").data.data(), in.at("r").data.data(), in.at("g").data.data(),
                               in.at("b").data.data(), 1e-5f, got.data());
    expect_close(got, want);

    const auto want_plain = reference::evaluate(layer_norm(x, g, b), in);
    kt::residual_layer_norm<N>(rows, in.at("x").data.data(), nullptr, in.at("g").data.data(),
                               in.at("b").data.data(), 1e-5f, got.data());
    expect_close(got, want_plain);
}

void TestResidualLayerNorm() {
    for (std::size_t rows : {1, 37}) {
        check_layer_norm<512>(rows);
        check_layer_norm<13>(rows);
        check_layer_norm<3>(rows);
    }
}

// Values whose squares overflow fp32 (1e20, 1e30) normalise as in double precision; a row holding
// an infinity has no finite answer and gives NaN, as PyTorch does.
void TestLayerNormOfHugeValues() {
    for (float magnitude : {1e20f, 1e30f, 3e37f}) {
        check_layer_norm<512>(3, magnitude);
        check_layer_norm<13>(2, magnitude);
    }
    std::vector<float> row(13, 1.0f), gamma(13, 1.0f), beta(13, 0.0f), out(13);
    row[4] = std::numeric_limits<float>::infinity();
    kt::residual_layer_norm<13>(1, row.data(), nullptr, gamma.data(), beta.data(), 1e-5f, out.data());
    for (float v : out) EXPECT_TRUE(std::isnan(v)) << v;
    row[4] = 1e30f;  // one huge value among ones: finite, and as in double precision
    kt::residual_layer_norm<13>(1, row.data(), nullptr, gamma.data(), beta.data(), 1e-5f, out.data());
    EXPECT_NEAR(out[4], std::sqrt(12.0), 1e-5);
    EXPECT_NEAR(out[0], -1.0 / std::sqrt(12.0), 1e-6);
}

template <std::size_t N>
void check_rms_norm(std::size_t rows, float magnitude = 1.0f) {
    auto x = input<"x", batch, int(N)>();
    auto g = weight<"g", int(N)>();
    tensor_map in = reference::random_inputs(rms_norm(x, g, 1e-5), rows, 37);
    for (float& v : in.at("x").data) v *= magnitude;
    std::vector<float> got(rows * N);
    kt::rms_norm<N>(rows, in.at("x").data.data(), in.at("g").data.data(), 1e-5f, got.data());
    expect_close(got, reference::evaluate(rms_norm(x, g, 1e-5), in));
}

// Widths with and without a partial last vector; values whose squares overflow fp32 normalise as in
// double precision; an infinity gives NaN in its place and zeros beside it, and a NaN a NaN row, as
// PyTorch's x · rsqrt(mean(x²) + eps) does.
void TestRmsNorm() {
    for (std::size_t rows : {1, 37}) {
        check_rms_norm<512>(rows);
        check_rms_norm<13>(rows);
        check_rms_norm<3>(rows);
    }
    for (float magnitude : {1e20f, 1e30f, 3e37f}) {
        check_rms_norm<512>(3, magnitude);
        check_rms_norm<13>(2, magnitude);
    }
    std::vector<float> row(13, 2.0f), gamma(13, 1.5f), out(13);
    row[9] = std::numeric_limits<float>::infinity();
    kt::rms_norm<13>(1, row.data(), gamma.data(), 1e-5f, out.data());
    for (std::size_t i = 0; i < 13; ++i) {
        if (i == 9) EXPECT_TRUE(std::isnan(out[i])) << out[i];
        else EXPECT_EQ(out[i], 0.0f) << i;
    }
    row[9] = std::numeric_limits<float>::quiet_NaN();
    kt::rms_norm<13>(1, row.data(), gamma.data(), 1e-5f, out.data());
    for (float v : out) EXPECT_TRUE(std::isnan(v)) << v;
}

template <std::size_t N>
void check_softmax(std::size_t rows, float logit_scale, std::size_t masked_row = ~std::size_t{0}) {
    auto x = input<"x", batch, int(N)>();
    tensor_map in = reference::random_inputs(x + x, rows, 32);
    for (float& v : in.at("x").data) v *= logit_scale;
    if (masked_row < rows)
        for (std::size_t j = 0; j < N; ++j) in.at("x")[masked_row * N + j] = -std::numeric_limits<float>::infinity();
    in.at("x")[N - 1] = -std::numeric_limits<float>::infinity();  // one masked entry in row 0
    const auto want = reference::evaluate(softmax(x), in);
    std::vector<float> got(rows * N);
    kt::softmax(rows, N, in.at("x").data.data(), got.data());
    expect_close(got, want);
}

void TestSoftmax() {
    check_softmax<10>(37, 1.0f, 5);
    check_softmax<128>(4, 1.0f, 2);
    check_softmax<7>(1, 1.0f);
    check_softmax<128>(4, 90.0f);  // logits near ±90
}

template <std::size_t N>
void check_l2_normalize(std::size_t rows, float magnitude = 1.0f) {
    auto x = input<"x", batch, int(N)>();
    tensor_map in = reference::random_inputs(x + x, rows, 33);
    for (float& v : in.at("x").data) v *= magnitude;
    for (std::size_t j = 0; j < N; ++j) in.at("x")[j] = 0;  // row 0: zeros stay zeros
    const auto want = reference::evaluate(l2_normalize(x), in);
    std::vector<float> got(rows * N);
    kt::l2_normalize<N>(rows, in.at("x").data.data(), float(l2_normalize_op::least_norm), got.data());
    expect_close(got, want);
}

void TestL2Normalize() {
    for (float magnitude : {1.0f, 1e-3f, 1e20f, 3e37f}) {
        check_l2_normalize<384>(5, magnitude);
        check_l2_normalize<13>(37, magnitude);
    }
}

// The mean of a sequence's rows: weighted by a mask with zeros among its ones, by no mask, and by
// a mask of zeros only (zeros).
template <std::size_t N>
void check_weighted_mean(std::size_t length) {
    auto x = input<"x", batch, upto<64>, int(N)>();
    auto m = bool_input<"m", batch, upto<64>>();
    tensor_map in = reference::random_inputs(mean_pool(x, m), {1, {length}}, 34);
    for (std::size_t l = 0; l < length; ++l) in.at("m")[l] = l % 3 != 1;
    std::vector<float> got(N);
    kt::weighted_mean<N>(length, in.at("x").data.data(), in.at("m").data.data(), got.data());
    expect_close(got, reference::evaluate(mean_pool(x, m), in));
    kt::weighted_mean<N>(length, in.at("x").data.data(), nullptr, got.data());
    expect_close(got, reference::evaluate(mean_pool(x), in));
    std::fill(in.at("m").data.begin(), in.at("m").data.end(), 0.0f);
    kt::weighted_mean<N>(length, in.at("x").data.data(), in.at("m").data.data(), got.data());
    expect_close(got, reference::evaluate(mean_pool(x, m), in));
    EXPECT_EQ(got[0], 0.0f);
}

void TestWeightedMean() {
    check_weighted_mean<384>(37);
    check_weighted_mean<13>(1);
    check_weighted_mean<64>(64);
}

}  // namespace ctformer::tests::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ctformer::tests {
HWY_BEFORE_TEST(RowKernels);
HWY_EXPORT_AND_TEST_P(RowKernels, TestResidualLayerNorm);
HWY_EXPORT_AND_TEST_P(RowKernels, TestLayerNormOfHugeValues);
HWY_EXPORT_AND_TEST_P(RowKernels, TestRmsNorm);
HWY_EXPORT_AND_TEST_P(RowKernels, TestSoftmax);
HWY_EXPORT_AND_TEST_P(RowKernels, TestL2Normalize);
HWY_EXPORT_AND_TEST_P(RowKernels, TestWeightedMean);
}  // namespace ctformer::tests
#endif
