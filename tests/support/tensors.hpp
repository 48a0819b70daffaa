// Small helpers for building inputs and comparing results in tests.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <ctformer/ctformer.hpp>

namespace test {

inline ctf::host_tensor<float> tensor(ctf::dims_t dims, std::vector<float> values) {
    return ctf::host_tensor<float>(std::move(dims), std::move(values));
}

inline ctf::host_tensor<float> filled(ctf::dims_t dims, float value) {
    ctf::host_tensor<float> t(std::move(dims));
    std::fill(t.data.begin(), t.data.end(), value);
    return t;
}

inline ctf::host_tensor<float> identity(std::size_t n) {
    ctf::host_tensor<float> t({n, n});
    for (std::size_t i = 0; i < n; ++i) t[i * n + i] = 1;
    return t;
}

// Every element within tolerance; an expected infinity (a masked score) must match exactly.
inline void expect_near(const ctf::host_tensor<double>& got, const std::vector<double>& want,
                        double tolerance) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        if (std::isinf(want[i])) EXPECT_EQ(got[i], want[i]) << "at flat index " << i;
        else EXPECT_NEAR(got[i], want[i], tolerance) << "at flat index " << i;
    }
}

inline void expect_same(const ctf::host_tensor<double>& a, const ctf::host_tensor<double>& b, double tolerance) {
    ASSERT_EQ(a.dims, b.dims);
    expect_near(a, b.data, tolerance);
}

}  // namespace test
