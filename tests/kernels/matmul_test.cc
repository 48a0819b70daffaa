// The batched-matmul kernel (one instance: out = a · b, strided rows) against the reference
// evaluator, on every Highway target compiled in: row and column tails (1, 7, 13, 37, 129), and rows
// read from and written into wider matrices, as heads are. Tolerance: operands uniform in [-1, 1], so
// sums of up to 129 products are O(10); fp32 against double stays within 1e-5 + 1e-4·|want|.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/matmul_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>
#include <hwy/tests/hwy_gtest.h>

#include <cmath>
#include <vector>

#include <ctformer/ctformer.hpp>
#include <ctformer/kernels/matmul-inl.h>
#include <ctformer/reference/evaluate.hpp>
#include <ctformer/reference/random_inputs.hpp>

#include "support/compare.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::tests::HWY_NAMESPACE {
namespace kt = ctformer::kernels::HWY_NAMESPACE;

// Each matrix sits in the first columns of rows `pad` floats wider than it.
template <std::size_t M, std::size_t K, std::size_t N>
void check(std::size_t pad) {
    auto a = input<"a", int(M), int(K)>();
    auto b = input<"b", int(K), int(N)>();
    const tensor_map in = reference::random_inputs(matmul(a, b), 1, 31);
    const auto want = reference::evaluate(matmul(a, b), in);
    const auto widen = [&](const host_tensor<float>& t, std::size_t rows, std::size_t cols) {
        std::vector<float> wide(rows * (cols + pad), 7.0f);
        for (std::size_t r = 0; r < rows; ++r) std::copy_n(&t[r * cols], cols, &wide[r * (cols + pad)]);
        return wide;
    };
    const std::vector<float> wide_a = widen(in.at("a"), M, K), wide_b = widen(in.at("b"), K, N);
    std::vector<float> out(M * (N + pad), -12345.0f);
    kt::matmul(M, K, N, {wide_a.data(), K + pad}, {wide_b.data(), N + pad}, {out.data(), N + pad});
    std::vector<float> got;
    for (std::size_t i = 0; i < M; ++i) {
        got.insert(got.end(), &out[i * (N + pad)], &out[i * (N + pad)] + N);
        for (std::size_t j = N; j < N + pad; ++j) ASSERT_EQ(out[i * (N + pad) + j], -12345.0f) << "wrote past row " << i;
    }
    test::expect_close(got, want, {.atol = 1e-5, .rtol = 1e-4},
                       "matmul " + std::to_string(M) + "x" + std::to_string(K) + "x" + std::to_string(N));
}

void TestMatmulShapes() {
    check<1, 1, 1>(0);
    check<7, 10, 37>(3);
    check<37, 129, 13>(5);
    check<10, 10, 64>(64);
    check<129, 64, 16>(0);
}

}  // namespace ctformer::tests::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ctformer::tests {
HWY_BEFORE_TEST(MatmulKernel);
HWY_EXPORT_AND_TEST_P(MatmulKernel, TestMatmulShapes);
}  // namespace ctformer::tests
#endif
