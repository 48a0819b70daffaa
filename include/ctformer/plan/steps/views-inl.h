// Steps that move values without arithmetic, for the views no step reads in place (heads.hpp):
//   heads      split_heads, or expand_heads (GQA/MQA), written out as contiguous [..., H, L, D]
//   merge      merge_heads of a value whose step cannot write it merged: [..., H, L, D] → [..., L, H·D]
//   transpose  the last two axes, a matrix at a time; it reads its operand through a head view
//   columns    x[..., B:E] that no step reads as heads, copied row by row
// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_PLAN_STEPS_VIEWS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_PLAN_STEPS_VIEWS_INL_H_
#undef CTFORMER_PLAN_STEPS_VIEWS_INL_H_
#else
#define CTFORMER_PLAN_STEPS_VIEWS_INL_H_
#endif

#include <hwy/highway.h>

#include "../../kernels/elementwise-inl.h"
#include "../../core/parallel.hpp"
#include "heads.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::plan::HWY_NAMESPACE {
namespace kt = ctformer::kernels::HWY_NAMESPACE;

// What the view steps share: no FLOPs, no scratch, the node's own name.
template <class E>
struct move_step {
    static std::string kernel() { return op_t<E>::name; }
    static std::string detail(const E&) { return ""; }
    static double flops(const extent_values&) { return 0; }
    static std::size_t scratch_bytes() { return 0; }
};

template <class E>
    requires head_view_of_slot<E>
struct heads_step : move_step<E>, batch_outside_matrices<true, E> {

    template <class Lower>
    static void lower(const E& e, Lower& l, step& s) {
        s.reads.push_back({"x", l.value(head_base(e))});
    }

    static void launch(const step&, const launch_args& a) {
        const head_view<const float> x = heads_of<E>(a.read("x"), a.extents);
        const std::size_t len = extent<E>(a.extents, 1), width = extent<E>(a.extents);
        const std::size_t instances = elements<shape_of_t<E>>(a.extents) / (len * width);
        parallel_for(instances, a.threads, [&](std::size_t i, int) {
            kt::copy_rows(x.at(i), len, width, {a.out + i * len * width, width});
        });
    }
};

template <class E>
    requires is_op<E, merge_heads_op> && (!head_writer<child_t<E, 0>>)
struct merge_step : move_step<E>, batch_outside_matrices<true, child_t<E, 0>> {
    using X = child_t<E, 0>;

    template <class Lower>
    static void lower(const E& e, Lower& l, step& s) {
        s.reads.push_back({"x", l.value(child<0>(e))});
    }

    static void launch(const step&, const launch_args& a) {
        const head_view<float> out = heads_written<X, true>(a.out, a.extents);
        const std::size_t len = extent<X>(a.extents, 1), width = extent<X>(a.extents);
        const std::size_t instances = elements<shape_of_t<X>>(a.extents) / (len * width);
        const float* x = a.read("x");
        parallel_for(instances, a.threads, [&](std::size_t i, int) {
            kt::copy_rows({x + i * len * width, width}, len, width, out.at(i));
        });
    }
};

template <class E>
    requires is_op<E, transpose_op>
struct transpose_step : move_step<E>, batch_outside_matrices<true, child_t<E, 0>> {
    using X = child_t<E, 0>;

    template <class Lower>
    static void lower(const E& e, Lower& l, step& s) {
        s.reads.push_back({"x", l.value(head_base(child<0>(e)))});
    }

    static void launch(const step&, const launch_args& a) {
        const head_view<const float> x = heads_of<X>(a.read("x"), a.extents);
        const std::size_t rows = extent<X>(a.extents, 1), cols = extent<X>(a.extents);
        const std::size_t instances = elements<shape_of_t<E>>(a.extents) / (rows * cols);
        parallel_for(instances, a.threads, [&](std::size_t i, int) {
            kt::transpose_matrix(rows, cols, x.at(i), a.out + i * rows * cols);
        });
    }
};

template <class E>
    requires is_columns<E>
struct columns_step : move_step<E> {
    static constexpr bool mixed_lengths = true;  // row by row

    template <class Lower>
    static void lower(const E& e, Lower& l, step& s) {
        s.reads.push_back({"x", l.value(child<0>(e))});
    }

    static void launch(const step&, const launch_args& a) {
        constexpr std::size_t width = op_t<E>::end - op_t<E>::begin, stride = last(extents_of<child_t<E, 0>>);
        kt::copy_rows({a.read("x") + op_t<E>::begin, stride}, elements<shape_of_t<E>>(a.extents) / width, width, {a.out, width});
    }
};

}  // namespace ctformer::plan::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_PLAN_STEPS_VIEWS_INL_H_ toggle
