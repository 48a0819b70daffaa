// The batched matmul step: one small product per (sequence, head), out = a · b, both read through
// head views (the attention weights times V's heads, need_weights), written as heads or, under
// merge_heads, straight into [..., L, heads·D]. kernels/matmul-inl.h has the loops.
// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_PLAN_STEPS_MATMUL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_PLAN_STEPS_MATMUL_INL_H_
#undef CTFORMER_PLAN_STEPS_MATMUL_INL_H_
#else
#define CTFORMER_PLAN_STEPS_MATMUL_INL_H_
#endif

#include "../../kernels/matmul-inl.h"
#include "../../core/parallel.hpp"
#include "heads.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::plan::HWY_NAMESPACE {
namespace kt = ctformer::kernels::HWY_NAMESPACE;

// A matmul of activations (x·Wᵀ of a weight W is a GEMM; a transposed operand is a step of its
// own), or merge_heads of one.
template <class E>
    requires batched_matmul<E> || (merged_heads<E> && batched_matmul<child_t<E, 0>>)
struct batched_matmul_step {
    static constexpr bool merged = merged_heads<E>;
    using M = std::conditional_t<merged, child_t<E, 0>, E>;
    static_assert(batch_outside_matrices<true, M, child_t<M, 0>, child_t<M, 1>>::value);

    static const M& node(const E& e) {
        if constexpr (merged) return child<0>(e);
        else return e;
    }
    static std::string kernel() { return merged ? "matmul (heads merged)" : "matmul"; }
    static std::string detail(const E&) { return ""; }

    template <class Lower>
    static void lower(const E& e, Lower& l, step& s) {
        s.reads.push_back({"a", l.value(head_base(child<0>(node(e))))});
        s.reads.push_back({"b", l.value(head_base(child<1>(node(e))))});
    }

    static double flops(const extent_values& at) { return 2.0 * double(elements<shape_of_t<M>>(at)) * extent<child_t<M, 0>>(at); }
    static std::size_t scratch_bytes() { return 0; }

    static void launch(const step&, const launch_args& a) {
        const std::size_t m = extent<M>(a.extents, 1), n = extent<M>(a.extents), k = extent<child_t<M, 0>>(a.extents);
        const std::size_t instances = elements<shape_of_t<M>>(a.extents) / (m * n);
        const head_view<const float> x = heads_of<child_t<M, 0>>(a.read("a"), a.extents);
        const head_view<const float> y = heads_of<child_t<M, 1>>(a.read("b"), a.extents);
        const head_view<float> out = heads_written<M, merged>(a.out, a.extents);
        parallel_for(instances, a.threads, [&](std::size_t i, int) { kt::matmul(m, k, n, x.at(i), y.at(i), out.at(i)); });
    }
};

}  // namespace ctformer::plan::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_PLAN_STEPS_MATMUL_INL_H_ toggle
