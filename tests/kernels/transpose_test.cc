// The in-register block transposes (kernels/transpose-inl.h) on every Highway target compiled in,
// against the element-by-element transpose: transpose_4x4 (every target but the scalar one) and
// transpose_block for rows and columns of 1 to 69, below, at and past multiples of 4 (the blocks,
// the overlapping last block of rows, the columns done one at a time), from strided rows into rows
// of a longer stride. Random values; every element of the destination compared exactly, those the
// transpose must not write holding their sentinel (a NaN or a stray write fails).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/transpose_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>
#include <hwy/tests/hwy_gtest.h>

#include <random>
#include <string>
#include <vector>

#include <ctformer/kernels/transpose-inl.h>

#include "support/compare.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::tests::HWY_NAMESPACE {
namespace kt = ctformer::kernels::HWY_NAMESPACE;
namespace {

constexpr float kUnwritten = -7777.0f;

std::vector<float> uniform(std::size_t n, unsigned seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (float& x : v) x = value(random);
    return v;
}

// to[c · to_stride + j] = from[j · from_stride + c] for j < rows, c < columns; the rest unwritten.
std::vector<double> transposed(const std::vector<float>& from, std::size_t from_stride, std::size_t rows,
                               std::size_t columns, std::size_t to_stride) {
    std::vector<double> to(columns * to_stride, kUnwritten);
    for (std::size_t j = 0; j < rows; ++j)
        for (std::size_t c = 0; c < columns; ++c) to[c * to_stride + j] = from[j * from_stride + c];
    return to;
}

void check_block(std::size_t rows, std::size_t columns) {
    const std::size_t from_stride = columns + 3, to_stride = rows + 2;
    const std::vector<float> from = uniform(rows * from_stride, unsigned(100 * rows + columns));
    std::vector<float> to(columns * to_stride, kUnwritten);
    kt::transpose_block({from.data(), from_stride}, rows, columns, to.data(), to_stride);
    test::expect_close(to, transposed(from, from_stride, rows, columns, to_stride), {},
                       "transpose_block " + std::to_string(rows) + " x " + std::to_string(columns));
}

}  // namespace

void TestTranspose4x4() {
#if HWY_TARGET != HWY_SCALAR
    constexpr std::size_t from_stride = 7, to_stride = 6;
    const std::vector<float> from = uniform(4 * from_stride, 7);
    std::vector<float> to(4 * to_stride, kUnwritten);
    kt::transpose_4x4({from.data(), from_stride}, to.data(), to_stride);
    test::expect_close(to, transposed(from, from_stride, 4, 4, to_stride), {}, "transpose_4x4");
#endif
}

void TestTransposeBlock() {
    for (std::size_t rows : {1, 2, 3, 4, 5, 7, 8, 17, 69})
        for (std::size_t columns : {1, 3, 4, 5, 8, 17, 69}) check_block(rows, columns);
}

}  // namespace ctformer::tests::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ctformer::tests {
HWY_BEFORE_TEST(TransposeKernel);
HWY_EXPORT_AND_TEST_P(TransposeKernel, TestTranspose4x4);
HWY_EXPORT_AND_TEST_P(TransposeKernel, TestTransposeBlock);
}  // namespace ctformer::tests
#endif
