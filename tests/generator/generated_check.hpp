// A generated model against ctformer::compile on the same graph, on every Highway target it compiles
// (each chosen in turn with hwy::SetSupportedTargetsForTest). The tests are built for the static
// target of CTFORMER_ARCH_FLAGS (AVX2 by default), so ctformer::compile here is SIMD code, and the
// generated model's run on that target must give the same bits.
#pragma once

#include <gtest/gtest.h>

#include <ctformer/compile.hpp>
#include <ctformer/reference/evaluate.hpp>
#include <ctformer/reference/random_inputs.hpp>

#include "generated_targets.hpp"
#include "support/compare.hpp"

namespace test {

// The outputs of a few encoder layers are O(1): another target's vectors round other sums (within
// 1e-5 of ctformer::compile), and fp32 stays within 1e-5 + 1e-4·|want| of the double reference.
template <class Generated, class Graph>
void expect_generated_matches_compile(const Graph& graph, ctf::tensor_map inputs) {
    static_assert(HWY_STATIC_TARGET != HWY_EMU128 && HWY_STATIC_TARGET != HWY_SCALAR,
                  "built for the SIMD target of CTFORMER_ARCH_FLAGS");
    const std::string static_name = hwy::TargetName(HWY_STATIC_TARGET);
    auto compiled = ctf::compile(graph);
    compiled.bind(inputs);
    const ctf::host_tensor<float> want = compiled.run(inputs, {.threads = 1});
    const ctf::host_tensor<double> reference = ctf::reference::evaluate(graph, inputs);
    bool static_target_ran = false;
    for (const std::int64_t target : generated_model_targets()) {
        hwy::SetSupportedTargetsForTest(target);
        const std::string name = hwy::TargetName(target);
        const Generated model;
        EXPECT_EQ(model.target(), name);
        Generated bound;
        bound.bind(inputs);
        ctf::host_tensor<float> got;
        bound.run(inputs, got, {.threads = 2});
        expect_close(got, want, {.atol = 1e-5, .rtol = 0}, name + ": from ctf::compile (" + static_name + ")");
        expect_close(got, reference, {.atol = 1e-5, .rtol = 1e-4}, name + ": from the reference");
        if (target == HWY_STATIC_TARGET) {
            static_target_ran = true;
            EXPECT_EQ(got.data, want.data) << "the same target should give the same bits";
        }
    }
    hwy::SetSupportedTargetsForTest(0);
    EXPECT_TRUE(static_target_ran) << "this CPU lacks " << static_name << ": the bit-for-bit comparison did not run";
}

}  // namespace test
