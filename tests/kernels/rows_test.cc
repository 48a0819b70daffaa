// Row kernels (residual LayerNorm, softmax) against the reference evaluator on every Highway target
// compiled in, for widths with and without a partial last vector, rows 1 and 37, masked rows, and
// logits near ±90. Tolerance: normalised rows and probabilities are O(1); fp32 against the double
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
#include <ctformer/reference/random_inputs.hpp>

#include "support/compare.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::tests::HWY_NAMESPACE {
namespace kt = ctformer::kernels::HWY_NAMESPACE;

void expect_close(const std::vector<float>& got, const host_tensor<double>& want) {
    test::expect_close(got, want, {.atol = 1e-5, .rtol = 1e-4});
}

template <std::size_t N>
void check_layer_norm(std::size_t rows) {
    auto x = input<"x", batch, int(N)>();
    auto r = input<"r", batch, int(N)>();
    auto g = weight<"g", int(N)>();
    auto b = weight<"b", int(N)>();
    const tensor_map in = reference::random_inputs(layer_norm(x + r, g, b), rows, 31);
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
    kt::softmax<N>(rows, in.at("x").data.data(), got.data());
    expect_close(got, want);
}

void TestSoftmax() {
    check_softmax<10>(37, 1.0f, 5);
    check_softmax<128>(4, 1.0f, 2);
    check_softmax<7>(1, 1.0f);
    check_softmax<128>(4, 90.0f);  // logits near ±90
}

}  // namespace ctformer::tests::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ctformer::tests {
HWY_BEFORE_TEST(RowKernels);
HWY_EXPORT_AND_TEST_P(RowKernels, TestResidualLayerNorm);
HWY_EXPORT_AND_TEST_P(RowKernels, TestSoftmax);
}  // namespace ctformer::tests
#endif
