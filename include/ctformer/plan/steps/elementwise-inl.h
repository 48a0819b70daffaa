// Elementwise steps:
//   add, multiply  a + b, a · b, the operand with fewer extents repeated (its extents are the trailing ones)
//   scale       factor · x
//   activation  an activation (relu, gelu, silu, ...) of a value no GEMM epilogue took (kernels/activation-inl.h)
//   copy        a value that is already in memory (an input, a weight) copied where the graph wants it:
//               the result of a graph that returns its input, a binding of a leaf
// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_PLAN_STEPS_ELEMENTWISE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_PLAN_STEPS_ELEMENTWISE_INL_H_
#undef CTFORMER_PLAN_STEPS_ELEMENTWISE_INL_H_
#else
#define CTFORMER_PLAN_STEPS_ELEMENTWISE_INL_H_
#endif

#include <algorithm>
#include <type_traits>

#include <hwy/highway.h>

#include "../../dsl/ops/elementwise.hpp"
#include "../../kernels/elementwise-inl.h"
#include "../../shape/ragged.hpp"
#include "heads.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::plan::HWY_NAMESPACE {
namespace kt = ctformer::kernels::HWY_NAMESPACE;

// a + b and a · b.
template <class E>
    requires is_op<E, add_op> || is_op<E, multiply_op>
struct binary_step {
    static constexpr bool multiply = is_op<E, multiply_op>;
    // A packed batch's rows are tokens: operands of one shape add as they are, a row [D] to every
    // token, a [L, D] table (x + PE) by each token's position (in a decoding run, from
    // extents.position on).
    static constexpr bool same_shapes = std::is_same_v<shape_of_t<child_t<E, 0>>, shape_of_t<child_t<E, 1>>>;
    static constexpr bool table = is_constant<child_t<E, 1>> && rank_of<child_t<E, 1>> == 2;
    static constexpr bool row = rank_of<child_t<E, 1>> == 1 && extents_of<child_t<E, 1>>[0] > 0;
    static constexpr bool mixed_lengths = same_shapes || table || row;
    static std::string kernel() { return op_t<E>::name; }
    static std::string detail(const E&) { return ""; }
    static float apply(float x, float y) { return multiply ? x * y : x + y; }

    template <class Lower>
    static void lower(const E& e, Lower& l, step& s) {
        s.reads.push_back({"a", l.value(child<0>(e))});
        s.reads.push_back({"b", l.value(child<1>(e))});
    }

    static double flops(const extent_values& at) { return double(elements<shape_of_t<E>>(at)); }
    static std::size_t scratch_bytes() { return 0; }

    static void launch(const step&, const launch_args& a) {
        if constexpr (table && !same_shapes)
            if (a.extents.ragged) return add_by_position(a, a.extents.ragged->positions);
        const std::size_t na = elements<shape_of_t<child_t<E, 0>>>(a.extents);
        const std::size_t nb = elements<shape_of_t<child_t<E, 1>>>(a.extents);
        const std::size_t n = elements<shape_of_t<E>>(a.extents), period = std::min(na, nb);
        const float* b = a.read("b") + (table ? a.extents.position * last(extents_of<E>) : 0);  // the rows of its positions
        for (std::size_t base = 0; base < n; base += period) {
            const float* x = a.read("a") + base % na;
            const float* y = b + base % nb;
            for (std::size_t j = 0; j < period; ++j) a.out[base + j] = apply(x[j], y[j]);
        }
    }

    // Token t of a packed batch adds the table's row of its position.
    static void add_by_position(const launch_args& a, const std::vector<std::size_t>& positions) {
        constexpr std::size_t d = last(extents_of<E>);
        const float *x = a.read("a"), *table = a.read("b");
        for (std::size_t t = 0; t < positions.size(); ++t)
            for (std::size_t j = 0; j < d; ++j) a.out[t * d + j] = apply(x[t * d + j], table[positions[t] * d + j]);
    }
};

// What the one-operand elementwise steps share: x read as it is, one FLOP an element.
template <class E>
struct unary_step {
    static constexpr bool mixed_lengths = true;  // element by element
    static std::size_t n(const extent_values& at) { return elements<shape_of_t<E>>(at); }
    static double flops(const extent_values& at) { return double(n(at)); }
    static std::size_t scratch_bytes() { return 0; }

    template <class Lower>
    static void lower(const E& e, Lower& l, step& s) {
        s.reads.push_back({"x", l.value(child<0>(e))});
    }
};

template <class E>
    requires is_op<E, scale_op>
struct scale_step : unary_step<E> {
    static std::string kernel() { return "scale"; }
    static std::string detail(const E& e) { return op_of(e).detail(); }

    static void launch(const step& s, const launch_args& a) {
        const float factor = static_cast<float>(op_of(*static_cast<const E*>(s.node)).factor);
        kt::scale_values(unary_step<E>::n(a.extents), factor, a.read("x"), a.out);
    }
};

// An activation of a value no GEMM epilogue took.
template <class E>
    requires is_activation<E>
struct activation_step : unary_step<E> {
    static std::string kernel() { return op_t<E>::name; }
    static std::string detail(const E&) { return ""; }

    static void launch(const step&, const launch_args& a) {
        kt::activate_values<op_t<E>::act>(unary_step<E>::n(a.extents), a.read("x"), a.out);
    }
};

// A leaf computed into a slot of its own (a graph whose result is an input or weight).
template <class E>
    requires is_leaf<E>
struct copy_step {
    static constexpr bool mixed_lengths = true;
    static std::string kernel() { return "copy"; }
    static std::string detail(const E&) { return ""; }

    template <class Lower>
    static void lower(const E& e, Lower& l, step& s) {
        s.reads.push_back({"x", l.value(e)});
    }

    static double flops(const extent_values&) { return 0; }
    static std::size_t scratch_bytes() { return 0; }

    static void launch(const step&, const launch_args& a) {
        std::copy_n(a.read("x"), elements<shape_of_t<E>>(a.extents), a.out);
    }
};

}  // namespace ctformer::plan::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_PLAN_STEPS_ELEMENTWISE_INL_H_ toggle
