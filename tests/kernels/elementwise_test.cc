// The stand-alone operations' kernels (kernels/elementwise-inl.h) on every Highway target compiled
// in, each against its loop written out here: scale_values and add_values (in double: one fp32
// rounding, 2^-24 relative, from it), transpose_matrix (across its 32 × 32 tiles), copy_rows, and
// the masks on written-out score rows (add_row, bar_row, bar_from), for sizes of 0, 1, 3, 17, 64 + 5
// and 259: none, one and several whole vectors with and without a partial one on every target.
// Random values; every element of each output buffer compared, those past n or between strided
// rows holding their sentinel (a NaN or a stray write fails).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/elementwise_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>
#include <hwy/tests/hwy_gtest.h>

#include <limits>
#include <random>
#include <string>
#include <vector>

#include <ctformer/kernels/elementwise-inl.h>

#include "support/compare.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::tests::HWY_NAMESPACE {
namespace kt = ctformer::kernels::HWY_NAMESPACE;
namespace {

constexpr float kUnwritten = -7777.0f;
constexpr std::size_t kPast = 9;  // sentinels after the n values
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr test::tolerance kOneRounding{.atol = 0, .rtol = 1e-7};  // fp32's 2^-24 = 6e-8 relative
const std::size_t kSizes[] = {0, 1, 3, 17, 69, 259};

std::vector<float> uniform(std::size_t n, unsigned seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (float& x : v) x = value(random);
    return v;
}

std::string named(const char* what, std::size_t n) { return std::string(what) + " n=" + std::to_string(n); }

}  // namespace

void TestScaleValues() {
    for (std::size_t n : kSizes)
        for (float factor : {0.125f, -3.7f}) {
            const std::vector<float> in = uniform(n, unsigned(n));
            std::vector<float> out(n + kPast, kUnwritten);
            kt::scale_values(n, factor, in.data(), out.data());
            std::vector<double> want(n + kPast, kUnwritten);
            for (std::size_t i = 0; i < n; ++i) want[i] = double(factor) * double(in[i]);
            test::expect_close(out, want, kOneRounding, named("scale_values", n));
        }
}

void TestAddValues() {
    for (std::size_t n : kSizes) {
        const std::vector<float> a = uniform(n, unsigned(n)), b = uniform(n, unsigned(n + 1000));
        std::vector<float> out(n + kPast, kUnwritten);
        kt::add_values(n, a.data(), b.data(), out.data());
        std::vector<double> want(n + kPast, kUnwritten);
        for (std::size_t i = 0; i < n; ++i) want[i] = double(a[i]) + double(b[i]);
        test::expect_close(out, want, kOneRounding, named("add_values", n));
    }
}

// out [cols, rows] = inᵀ, in of rows strided by cols + 5; sizes below, at and past the 32 × 32 tile.
void TestTransposeMatrix() {
    for (std::size_t rows : {1, 3, 32, 33, 69})
        for (std::size_t cols : {1, 5, 32, 33, 69}) {
            const std::size_t stride = cols + 5;
            const std::vector<float> in = uniform(rows * stride, unsigned(100 * rows + cols));
            std::vector<float> out(cols * rows + kPast, kUnwritten);
            kt::transpose_matrix(rows, cols, {in.data(), stride}, out.data());
            std::vector<double> want(out.size(), kUnwritten);
            for (std::size_t r = 0; r < rows; ++r)
                for (std::size_t c = 0; c < cols; ++c) want[c * rows + r] = in[r * stride + c];
            test::expect_close(out, want, {}, "transpose_matrix " + std::to_string(rows) + " x " + std::to_string(cols));
        }
}

// `count` rows of `width` from rows strided by width + 2 into rows strided by width + 5.
void TestCopyRows() {
    for (std::size_t count : {1, 3, 17})
        for (std::size_t width : {1, 3, 17, 69}) {
            const std::size_t in_stride = width + 2, out_stride = width + 5;
            const std::vector<float> in = uniform(count * in_stride, unsigned(100 * count + width));
            std::vector<float> out(count * out_stride, kUnwritten);
            kt::copy_rows({in.data(), in_stride}, count, width, {out.data(), out_stride});
            std::vector<double> want(out.size(), kUnwritten);
            for (std::size_t r = 0; r < count; ++r)
                for (std::size_t c = 0; c < width; ++c) want[r * out_stride + c] = in[r * in_stride + c];
            test::expect_close(out, want, {}, "copy_rows " + std::to_string(count) + " x " + std::to_string(width));
        }
}

// A row of scores masked in place: add_row adds a bias row, bar_row bars (-inf) the keys whose mask
// is 0 (every third, and the last), bar_from bars the keys from `visible` on.
void TestMaskRows() {
    for (std::size_t n : kSizes) {
        const std::vector<float> scores = uniform(n, unsigned(n + 2000)), bias = uniform(n, unsigned(n + 3000));
        std::vector<float> mask(n, 1.0f);
        for (std::size_t i = 0; i < n; ++i)
            if (i % 3 == 1 || i + 1 == n) mask[i] = 0.0f;
        std::vector<double> want(n + kPast, kUnwritten);

        std::vector<float> row(scores);
        row.resize(n + kPast, kUnwritten);
        kt::add_row(n, bias.data(), row.data());
        for (std::size_t i = 0; i < n; ++i) want[i] = double(scores[i]) + double(bias[i]);
        test::expect_close(row, want, kOneRounding, named("add_row", n));

        row.assign(scores.begin(), scores.end());
        row.resize(n + kPast, kUnwritten);
        kt::bar_row(n, mask.data(), row.data());
        for (std::size_t i = 0; i < n; ++i) want[i] = mask[i] == 0.0f ? -kInf : scores[i];
        test::expect_close(row, want, {}, named("bar_row", n));

        for (std::size_t visible : {std::size_t{0}, std::size_t{1}, n / 2, n, n + 5}) {
            row.assign(scores.begin(), scores.end());
            row.resize(n + kPast, kUnwritten);
            kt::bar_from(n, visible, row.data());
            for (std::size_t i = 0; i < n; ++i) want[i] = i < visible ? scores[i] : -kInf;
            test::expect_close(row, want, {}, named("bar_from", n) + " visible " + std::to_string(visible));
        }
    }
}

}  // namespace ctformer::tests::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ctformer::tests {
HWY_BEFORE_TEST(ElementwiseKernels);
HWY_EXPORT_AND_TEST_P(ElementwiseKernels, TestScaleValues);
HWY_EXPORT_AND_TEST_P(ElementwiseKernels, TestAddValues);
HWY_EXPORT_AND_TEST_P(ElementwiseKernels, TestTransposeMatrix);
HWY_EXPORT_AND_TEST_P(ElementwiseKernels, TestCopyRows);
HWY_EXPORT_AND_TEST_P(ElementwiseKernels, TestMaskRows);
}  // namespace ctformer::tests
#endif
