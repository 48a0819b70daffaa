// A generated model against ctformer::compile on the same graph, on every Highway target compiled in
// (each chosen in turn with hwy::SetSupportedTargetsForTest).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <hwy/targets.h>

#include <ctformer/compile.hpp>
#include <ctformer/reference/random_inputs.hpp>

namespace test {

template <class Generated, class Graph>
void expect_generated_matches_compile(const Graph& graph, ctf::tensor_map inputs) {
    auto compiled = ctf::compile(graph);
    compiled.bind(inputs);
    const ctf::host_tensor<float> want = compiled.run(inputs, {.threads = 1});
    const ctf::host_tensor<double> reference = ctf::reference::evaluate(graph, inputs);
    for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
        hwy::SetSupportedTargetsForTest(target);
        const Generated model;
        EXPECT_EQ(model.target(), hwy::TargetName(target));
        Generated bound;
        bound.bind(inputs);
        ctf::host_tensor<float> got;
        bound.run(inputs, got, {.threads = 2});
        ASSERT_EQ(got.dims, want.dims);
        double from_compile = 0, from_reference = 0;
        for (std::size_t i = 0; i < want.size(); ++i) {
            from_compile = std::max(from_compile, double(std::abs(got[i] - want[i])));
            from_reference = std::max(from_reference, std::abs(got[i] - reference[i]));
        }
        std::printf("%-8s largest difference from ctf::compile (%s): %.2e, from the reference: %.2e\n",
                    hwy::TargetName(target), hwy::TargetName(HWY_STATIC_TARGET), from_compile, from_reference);
        EXPECT_LE(from_compile, 1e-5) << hwy::TargetName(target);
        EXPECT_LE(from_reference, 1e-4) << hwy::TargetName(target);
        if (target == HWY_STATIC_TARGET) {
            EXPECT_EQ(got.data, want.data) << "the same target should give the same bits";
        }
    }
    hwy::SetSupportedTargetsForTest(0);
}

}  // namespace test
