// softmax's exp (kernels/exp-inl.h) on every Highway target compiled in, against std::exp in double:
// relative error under 2.5e-7 over [-87, 0] (a million points and the ends), and exactly 0 below
// -87 and at -inf, as masked scores need.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/exp_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>
#include <hwy/tests/hwy_gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <ctformer/kernels/exp-inl.h>

HWY_BEFORE_NAMESPACE();
namespace ctformer::tests::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace kt = ctformer::kernels::HWY_NAMESPACE;

// exp_nonpositive of each value, a vector at a time (values.size() a multiple of the lanes).
std::vector<float> vector_exp(std::vector<float> values) {
    const hn::ScalableTag<float> d;
    for (std::size_t i = 0; i < values.size(); i += hn::Lanes(d))
        hn::StoreU(kt::exp_nonpositive(d, hn::LoadU(d, &values[i])), d, &values[i]);
    return values;
}

void TestExpNonPositive() {
    const std::size_t count = 1 << 20;  // a multiple of every target's lanes
    std::vector<float> x(count);
    for (std::size_t i = 0; i < count; ++i) x[i] = -87.0f * static_cast<float>(i) / (count - 1);
    const std::vector<float> y = vector_exp(x);
    for (std::size_t i = 0; i < count; ++i) {
        const double want = std::exp(static_cast<double>(x[i]));
        ASSERT_LE(std::abs(y[i] - want), 2.5e-7 * want) << "exp(" << x[i] << ")";
    }
    EXPECT_EQ(y.front(), 1.0f);

    std::vector<float> below(hn::Lanes(hn::ScalableTag<float>()), -std::numeric_limits<float>::infinity());
    if (below.size() > 1) below[1] = -87.5f;
    if (below.size() > 2) below[2] = -1e30f;
    for (float v : vector_exp(below)) EXPECT_EQ(v, 0.0f);
}

}  // namespace ctformer::tests::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ctformer::tests {
HWY_BEFORE_TEST(ExpKernel);
HWY_EXPORT_AND_TEST_P(ExpKernel, TestExpNonPositive);
}  // namespace ctformer::tests
#endif
