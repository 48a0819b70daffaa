// Operations no pass fused into a kernel (scale, transpose, attend and additive masks, activations
// outside a GEMM, views read by no head-reading step): the reference formula in double precision,
// correct and slow, shown in the plan as "reference <op>".
// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_PLAN_STEPS_REFERENCE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_PLAN_STEPS_REFERENCE_INL_H_
#undef CTFORMER_PLAN_STEPS_REFERENCE_INL_H_
#else
#define CTFORMER_PLAN_STEPS_REFERENCE_INL_H_
#endif

#include <algorithm>
#include <tuple>

#include <hwy/highway.h>

#include "../../reference/evaluate.hpp"
#include "heads.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::plan::HWY_NAMESPACE {

template <class E>
struct reference_step {
    static std::string kernel() { return std::string("reference ") + op_t<E>::name; }
    static std::string detail(const E& e) {
        if constexpr (has_detail<op_t<E>>) return op_of(e).detail();
        else return "";
    }

    // Each child in place (the steps keep pointers to the nodes they compute).
    template <class Lower>
    static void lower(const E& e, Lower& l, step& s) {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (s.reads.push_back({"x", l.value(child<I>(e))}), ...);
        }(std::make_index_sequence<arity<E>>{});
    }

    static double flops(const extent_values&) { return 0; }
    static std::size_t scratch_bytes() { return 0; }

    template <class Shape>
    static reference::value widened(const float* data, const extent_values& at) {
        reference::value v(dims_of<Shape>(at.batch));
        std::copy_n(data, v.size(), v.data.begin());
        return v;
    }

    static void launch(const step& s, const launch_args& a) {
        const E& e = *static_cast<const E*>(s.node);
        const reference::value y = [&]<std::size_t... I>(std::index_sequence<I...>) {
            return reference::apply(op_of(e), dims_of<shape_of_t<E>>(a.extents.batch),
                                    widened<shape_of_t<child_t<E, I>>>(a.reads[I], a.extents)...);
        }(std::make_index_sequence<arity<E>>{});
        std::copy(y.data.begin(), y.data.end(), a.out);
    }
};

}  // namespace ctformer::plan::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_PLAN_STEPS_REFERENCE_INL_H_ toggle
