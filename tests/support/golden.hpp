// PyTorch golden files (tests/data/golden/, written by tests/data/make_golden.py): weights by
// state_dict name, inputs, and PyTorch's outputs as "expected*". A compiled model must match them to
// atol 1e-4 (the interop issue's bar); the largest difference seen is printed.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>
#include <ctformer/runtime/state_dict.hpp>

namespace test {

inline ctf::tensor_map golden(const std::string& name) {
    return ctf::load_state_dict(std::string(CTFORMER_GOLDEN_DIR) + "/" + name + ".safetensors");
}

inline void expect_matches_pytorch(const ctf::host_tensor<float>& got, const ctf::host_tensor<float>& want,
                                   const std::string& what) {
    ASSERT_EQ(got.dims, want.dims) << what;
    double worst = 0;
    for (std::size_t i = 0; i < want.size(); ++i) worst = std::max(worst, double(std::abs(got[i] - want[i])));
    std::printf("%-40s largest difference from PyTorch: %.2e\n", what.c_str(), worst);
    EXPECT_LE(worst, 1e-4) << what;
}

// Compiles `graph`, binds and runs it on the golden file's tensors, compares with "expected".
template <class Graph>
void expect_golden(const Graph& graph, const std::string& name) {
    const ctf::tensor_map tensors = golden(name);
    auto model = ctf::compile(graph);
    model.bind(tensors);
    expect_matches_pytorch(model.run(tensors, {2}), tensors.at("expected"), name);
}

}  // namespace test
