// rotate_row (kernels/rotary-inl.h) on every Highway target compiled in, against the turn written out
// here in double: both pairings, whole heads and partial ones (dimensions past the pairs copied),
// pair counts of 1, 3, 17 and 64 (none, one and several whole vectors with and without a partial one
// on every target), three heads a row, out of place and in place. Random values and angles; every
// element of the row compared, and a sentinel past it (a stray write fails, and so does a NaN).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/rotary_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>
#include <hwy/tests/hwy_gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <ctformer/kernels/rotary-inl.h>

#include "support/compare.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::tests::HWY_NAMESPACE {
namespace kt = ctformer::kernels::HWY_NAMESPACE;

std::vector<float> uniform(std::size_t n, unsigned seed, float range) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> value(-range, range);
    std::vector<float> v(n);
    for (float& x : v) x = value(random);
    return v;
}

void check_rotation(std::size_t pairs, std::size_t head_dim, bool half, bool in_place) {
    constexpr std::size_t heads = 3;
    constexpr float kUnwritten = -7777.0f;
    const std::vector<float> x = uniform(heads * head_dim, unsigned(pairs * 100 + head_dim), 1.0f);
    const std::vector<float> angle = uniform(pairs, unsigned(pairs), 50.0f);
    std::vector<float> cos(pairs), sin(pairs);
    for (std::size_t i = 0; i < pairs; ++i) cos[i] = std::cos(angle[i]), sin[i] = std::sin(angle[i]);
    std::vector<float> out = in_place ? x : std::vector<float>(x.size(), kUnwritten);
    out.push_back(kUnwritten);
    kt::rotate_row(heads, head_dim, pairs, half, cos.data(), sin.data(), in_place ? out.data() : x.data(), out.data());

    std::vector<double> want(x.begin(), x.end());
    want.push_back(kUnwritten);
    for (std::size_t h = 0; h < heads * head_dim; h += head_dim)
        for (std::size_t i = 0; i < pairs; ++i) {
            const std::size_t a = h + (half ? i : 2 * i), b = a + (half ? pairs : 1);
            want[a] = double(x[a]) * cos[i] - double(x[b]) * sin[i];
            want[b] = double(x[b]) * cos[i] + double(x[a]) * sin[i];
        }
    test::expect_close(out, want, {.atol = 3e-7, .rtol = 0},
                       std::string(half ? "half" : "interleaved") + " pairs=" + std::to_string(pairs) +
                           " head_dim=" + std::to_string(head_dim) + (in_place ? " in place" : ""));
}

void TestRotateRow() {
    for (std::size_t pairs : {1, 3, 17, 64})
        for (std::size_t extra : {0, 6})  // whole heads, and partial rotary
            for (bool half : {true, false})
                for (bool in_place : {false, true}) check_rotation(pairs, 2 * pairs + extra, half, in_place);
}

}  // namespace ctformer::tests::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ctformer::tests {
HWY_BEFORE_TEST(RotaryKernel);
HWY_EXPORT_AND_TEST_P(RotaryKernel, TestRotateRow);
}  // namespace ctformer::tests
#endif
