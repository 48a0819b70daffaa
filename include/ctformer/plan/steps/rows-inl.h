// The row steps (kernels/rows-inl.h has the loops), over the last axis of width N:
//   layer_norm           (x - mean) / √(var + eps) · γ + β
//   residual_layer_norm  the same of a + b, the sum formed in the same pass
//   softmax              exp(x - max) / Σ exp(x - max), a row of -inf giving zeros
// Rows go to the threads in blocks.
// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_PLAN_STEPS_ROWS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_PLAN_STEPS_ROWS_INL_H_
#undef CTFORMER_PLAN_STEPS_ROWS_INL_H_
#else
#define CTFORMER_PLAN_STEPS_ROWS_INL_H_
#endif

#include <algorithm>

#include "../../dsl/ops/layer_norm.hpp"
#include "../../dsl/ops/softmax.hpp"
#include "../../kernels/rows-inl.h"
#include "../../runtime/parallel.hpp"
#include "heads.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::plan::HWY_NAMESPACE {
namespace kt = ctformer::kernels::HWY_NAMESPACE;

// f(first row, count) over blocks of the rows, on the threads.
template <class F>
void for_row_blocks(std::size_t rows, int threads, F f) {
    const std::size_t blocks = std::min<std::size_t>(rows, threads > 1 ? 4 * static_cast<std::size_t>(threads) : 1);
    if (blocks == 0) return;
    const std::size_t per_block = (rows + blocks - 1) / blocks;
    runtime::parallel_for(blocks, threads, [&](std::size_t block, int) {
        const std::size_t first = std::min(rows, block * per_block);
        f(first, std::min(rows, first + per_block) - first);
    });
}

// layer_norm(x, γ, β) and residual_layer_norm(a, b, γ, β).
template <class E>
struct layer_norm_step {
    static constexpr bool residual = is_op<E, residual_layer_norm_op>;
    static constexpr std::size_t n = last(extents_of<E>);

    static std::string kernel() { return op_t<E>::name; }
    static std::string detail(const E& e) { return op_of(e).detail(); }

    template <class Lower>
    static void lower(const E& e, Lower& l, step& s) {
        s.reads.push_back({"x", l.value(child<0>(e))});
        if constexpr (residual) s.reads.push_back({"residual", l.value(child<1>(e))});
        s.reads.push_back({"gamma", l.value(child<residual + 1>(e))});
        s.reads.push_back({"beta", l.value(child<residual + 2>(e))});
    }

    static double flops(const extent_values& at) { return 8.0 * double(elements<shape_of_t<E>>(at)); }
    static std::size_t scratch_bytes() { return 0; }

    static void launch(const step& s, const launch_args& a) {
        const float eps = static_cast<float>(op_of(*static_cast<const E*>(s.node)).eps);
        const float* x = a.reads[0];
        const float* r = residual ? a.reads[1] : nullptr;
        const float *gamma = a.reads[residual + 1], *beta = a.reads[residual + 2];
        for_row_blocks(elements<shape_of_t<E>>(a.extents) / n, a.threads, [&](std::size_t first, std::size_t count) {
            kt::residual_layer_norm<n>(count, x + first * n, r ? r + first * n : nullptr, gamma, beta, eps, a.out + first * n);
        });
    }
};

template <class E>
struct softmax_step {
    static constexpr std::size_t n = last(extents_of<E>);

    static std::string kernel() { return "softmax"; }
    static std::string detail(const E&) { return ""; }

    template <class Lower>
    static void lower(const E& e, Lower& l, step& s) {
        s.reads.push_back({"x", l.value(child<0>(e))});
    }

    static double flops(const extent_values& at) { return 5.0 * double(elements<shape_of_t<E>>(at)); }
    static std::size_t scratch_bytes() { return 0; }

    static void launch(const step&, const launch_args& a) {
        for_row_blocks(elements<shape_of_t<E>>(a.extents) / n, a.threads, [&](std::size_t first, std::size_t count) {
            kt::softmax<n>(count, a.reads[0] + first * n, a.out + first * n);
        });
    }
};

}  // namespace ctformer::plan::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_PLAN_STEPS_ROWS_INL_H_ toggle
