// Small helpers for building inputs in tests (and the comparison, compare.hpp).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <ctformer/ctformer.hpp>
#include <ctformer/reference/evaluate.hpp>

#include "compare.hpp"

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

}  // namespace test
