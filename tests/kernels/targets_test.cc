// Which Highway targets the per-target tests (kernel_tests, model_tests) are compiled for, which of
// them this CPU runs, and which are compiled but cannot run here: a test "on every target" covers
// the second list only. ./build.sh test prints the line after the tests.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include <hwy/highway.h>
#include <hwy/targets.h>

namespace {

std::string names(std::int64_t targets) {
    std::string text;
    for (std::int64_t bits = targets; bits; bits &= bits - 1)
        text += (text.empty() ? "" : " ") + std::string(hwy::TargetName(bits & -bits));
    return text.empty() ? "none" : text;
}

TEST(HighwayTargets, CompiledAndRunHere) {
    const std::int64_t compiled = HWY_TARGETS, here = compiled & hwy::SupportedTargets();
    std::printf("Highway targets compiled: %s; run on this CPU: %s; compiled but not run here: %s\n",
                names(compiled).c_str(), names(here).c_str(), names(compiled & ~here).c_str());
    EXPECT_NE(here, 0);
#if HWY_ARCH_X86
    constexpr std::int64_t x86 = HWY_AVX3_DL | HWY_AVX3 | HWY_AVX2 | HWY_SSE4 | HWY_SSSE3 | HWY_SCALAR;
    const std::int64_t missing = x86 & ~compiled & ~std::int64_t{HWY_DISABLED_TARGETS};
    EXPECT_EQ(missing, 0) << "not compiled: " << names(missing);
#endif
}

}  // namespace
