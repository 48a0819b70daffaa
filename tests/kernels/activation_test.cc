// The activations (kernels/activation-inl.h) on every Highway target compiled in, against their
// formulas in double (reference/ops.hpp: std::erfc; ½x(1 + tanh u) as x·σ(2u), which is the same
// without 1 + tanh u cancelling to 0 in the far negative tail; std::tanh checked where it does not
// cancel, x > -3; std::tanh; x/(1 + e^-x)): a dense sweep of [-12, 12] (2^21 points, both ends included) through activate_values,
// whose last values take the one-lane path. Relative error under 1e-6 + 1.5e-7·x²: the exponent's
// fp32 rounding (of x²/2 in erfc's, of 2u in σ's) grows with x², so the far tail (|act(x)| < 1e-20
// at x = -10) is good to about 1e-5, where PyTorch's own fp32 GELU returns 0; below 1e-30 the answer
// may flush to 0. The largest relative error for |x| ≤ 4 and over the whole sweep is printed.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/activation_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>
#include <hwy/tests/hwy_gtest.h>

#include <cmath>
#include <iostream>
#include <vector>

#include <ctformer/kernels/activation-inl.h>
#include <ctformer/reference/ops.hpp>

HWY_BEFORE_NAMESPACE();
namespace ctformer::tests::HWY_NAMESPACE {
namespace kt = ctformer::kernels::HWY_NAMESPACE;

constexpr double tiny = 1e-30;

double relative_bound(double x) { return 1e-6 + 1.5e-7 * x * x; }

// The sweep, with one more value than a multiple of any target's lanes (the one-lane tail).
std::vector<float> sweep() {
    const std::size_t count = (1 << 21) + 1;
    std::vector<float> x(count);
    for (std::size_t i = 0; i < count; ++i) x[i] = static_cast<float>(-12.0 + 24.0 * double(i) / double(count - 1));
    return x;
}

template <activation Act>
void check_activation(const char* name) {
    const std::vector<float> x = sweep();
    std::vector<float> y(x.size());
    kt::activate_values<Act>(x.size(), x.data(), y.data());
    double worst_near = 0, worst = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double want = reference::activated(Act, x[i]), magnitude = std::abs(want);
        const double error = std::abs(double(y[i]) - want);
        ASSERT_LE(error, relative_bound(x[i]) * magnitude + tiny)
            << name << "(" << x[i] << ") = " << y[i] << ", want " << want;  // fails on NaN
        if (magnitude >= tiny) worst = std::max(worst, error / magnitude);
        if (magnitude >= tiny && std::abs(x[i]) <= 4) worst_near = std::max(worst_near, error / magnitude);
        if (Act == activation::gelu_tanh && x[i] > -3) {  // where 1 + tanh u keeps its digits in double
            const double u = 0.7978845608028654 * (x[i] + 0.044715 * double(x[i]) * x[i] * x[i]);
            ASSERT_NEAR(want, 0.5 * x[i] * (1 + std::tanh(u)), 1e-10 * magnitude) << "the oracle at " << x[i];
        }
    }
    std::cout << name << " on " << hwy::TargetName(HWY_TARGET) << ": largest relative error " << worst_near
              << " for |x| <= 4, " << worst << " over [-12, 12]\n";
}

void TestGelu() { check_activation<activation::gelu>("gelu"); }
void TestGeluTanh() { check_activation<activation::gelu_tanh>("gelu_tanh"); }
void TestTanh() { check_activation<activation::tanh>("tanh"); }
void TestSilu() { check_activation<activation::silu>("silu"); }

void TestRelu() {
    const std::vector<float> x = sweep();
    std::vector<float> y(x.size());
    kt::activate_values<activation::relu>(x.size(), x.data(), y.data());
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], x[i] > 0 ? x[i] : 0.0f) << "relu(" << x[i] << ")";
}

}  // namespace ctformer::tests::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ctformer::tests {
HWY_BEFORE_TEST(ActivationKernel);
HWY_EXPORT_AND_TEST_P(ActivationKernel, TestGelu);
HWY_EXPORT_AND_TEST_P(ActivationKernel, TestGeluTanh);
HWY_EXPORT_AND_TEST_P(ActivationKernel, TestTanh);
HWY_EXPORT_AND_TEST_P(ActivationKernel, TestSilu);
HWY_EXPORT_AND_TEST_P(ActivationKernel, TestRelu);
}  // namespace ctformer::tests
#endif
