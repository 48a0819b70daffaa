// The comparison every numeric test uses (support/compare.hpp): it fails on a NaN or an infinity
// that the other side does not hold, on shapes that differ, and just past its tolerance.
#include <gtest/gtest-spi.h>

#include <limits>

#include "support/compare.hpp"

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();
constexpr test::tolerance tight{.atol = 1e-6, .rtol = 1e-3};

bool agrees(std::vector<double> got, std::vector<double> want) { return test::compare(got, want, tight).ok(); }

TEST(Compare, NonFiniteValuesAgreeOnlyWithTheSame) {
    EXPECT_FALSE(agrees({nan}, {1.0}));
    EXPECT_FALSE(agrees({1.0}, {nan}));
    EXPECT_FALSE(agrees({nan, nan, nan}, {0.1, 0.2, 0.3}));  // an all-NaN output
    EXPECT_TRUE(agrees({nan}, {nan}));
    EXPECT_TRUE(agrees({inf, -inf}, {inf, -inf}));
    EXPECT_FALSE(agrees({inf}, {-inf}));
    EXPECT_FALSE(agrees({inf}, {1e300}));
    EXPECT_FALSE(agrees({1e300}, {inf}));
}

TEST(Compare, ToleranceIsAbsolutePlusRelative) {
    EXPECT_TRUE(agrees({1.0 + 0.9e-3}, {1.0}));    // within 1e-6 + 1e-3·1
    EXPECT_FALSE(agrees({1.0 + 1.1e-3}, {1.0}));
    EXPECT_TRUE(agrees({0.9e-6}, {0.0}));          // the absolute part alone at 0
    EXPECT_FALSE(agrees({1.1e-6}, {0.0}));
    EXPECT_TRUE(agrees({-100.05}, {-100.0}));       // |want| sets the relative part
}

TEST(Compare, ShapesMustAgree) {
    EXPECT_FALSE(agrees({1.0, 2.0}, {1.0}));
    const ctformer::host_tensor<float> a({2, 3}), b({3, 2});
    const test::comparison c = test::compare(a, b, tight);
    EXPECT_FALSE(c.ok());
    EXPECT_NE(c.summary().find("shape [2,3], expected [3,2]"), std::string::npos) << c.summary();
}

TEST(Compare, ReportsCountLargestDifferenceAndFirstMismatches) {
    const test::comparison c = test::compare(std::vector<double>{1, 2, 3.5, nan}, std::vector<double>{1, 2, 3, 4}, tight);
    EXPECT_EQ(c.compared, 4u);
    EXPECT_EQ(c.mismatches, 2u);
    EXPECT_DOUBLE_EQ(c.largest_difference, 0.5);
    EXPECT_NE(c.first_mismatches.find("at flat index 2: got 3.5, want 3"), std::string::npos) << c.first_mismatches;
    EXPECT_NE(c.first_mismatches.find("at flat index 3: got nan, want 4"), std::string::npos) << c.first_mismatches;
}

TEST(Compare, ExpectCloseFailsTheTest) {
    const std::vector<float> got{1.0f, std::numeric_limits<float>::quiet_NaN()};
    const std::vector<double> want{1.0, 1.0};
    EXPECT_NONFATAL_FAILURE(test::expect_close(got, want, tight, "outputs"), "outputs: 1 of 2 elements");
}

}  // namespace
