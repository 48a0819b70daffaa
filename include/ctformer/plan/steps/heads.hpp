// Per-head matrices in memory, as the steps that read or write heads find them (fused attention,
// attention probabilities, a batched matmul). Instance i of [..., H, L, D] is (outer = i / H,
// head = i % H); a view says where its matrix starts and how far apart its rows are:
//
//   split_heads(x)                x [..., L, H·D]: head h is columns h·D .. h·D + D - 1, rows H·D apart
//   split_heads(columns(x))       the same, inside a column range of a wider x (fuse_qkv's result)
//   expand_heads(v)               GQA/MQA: head h reads group h / (H / G) of the view v
//   anything else                 contiguous [..., H, L, D] matrices, computed into a slot first
//   merge_heads over a step       the step writes [..., L, H·D] directly
//
// Nothing is copied: the views are index arithmetic over the slot that holds the base value.
#pragma once

#include <algorithm>
#include <cstddef>

#include "../../dsl/ops/heads.hpp"
#include "../../kernels/rotary.hpp"
#include "../../kernels/strided.hpp"
#include "../../passes/match.hpp"
#include "../program.hpp"

namespace ctformer::plan {

// Elements of a value of Shape for a run of the given extents.
template <class Shape>
std::size_t elements(const extent_values& at) {
    return at.elements(Shape::extents);
}

// Extent i from the end of E's shape (0: the last) for a run of the given extents.
template <class E>
std::size_t extent(const extent_values& at, std::size_t from_end = 0) {
    return at.of(last(extents_of<E>, from_end));
}

// Whether the run-time batch stays out of E's last two axes, which the steps that loop over matrices
// take at compile time (a [B, D] value's rows are known only at run time).
// Where each row of E's value sits in its sequence, in this run (kernels/rotary.hpp): its index
// along the axis before the last, from the run's first position, or a packed token's own place.
template <class E>
kernels::row_positions row_positions_of(const launch_args& a) {
    return {a.extents.position, extent<E>(a.extents, 1), a.extents.ragged ? a.extents.ragged->positions.data() : nullptr};
}

template <class E>
inline constexpr bool batch_outside_matrix = [] {
    if constexpr (rank_of<E> < 2) return true;
    else return last(extents_of<E>) != batch && last(extents_of<E>, 1) != batch;
}();

// A step over matrices of E... (when Check): a named error where the batch is inside one.
template <bool Check, class... E>
struct batch_outside_matrices {
    static_assert(!Check || (batch_outside_matrix<E> && ...),
                  "CTF_BATCH_EXTENT_INSIDE_A_MATRIX: the batch is one of the last two axes of a matrix this step "
                  "loops over; give the value a length axis ([B, 1, D]), or write a product with a weight as "
                  "linear (x·Wᵀ)");
    static constexpr bool value = true;
};

template <class T>
struct head_view {
    T* data;
    std::size_t heads = 1, repeat = 1, outer_count = 1, outer_stride = 0, head_stride = 0, row_stride = 0;

    kernels::strided_rows<T> at(std::size_t instance) const {
        const std::size_t outer = instance / heads % outer_count, head = instance % heads / repeat;
        return {data + outer * outer_stride + head * head_stride, row_stride};
    }
};

// Steps that write [..., heads, L, D], which merge_heads can take in place: a step of merge_heads
// of one writes the merged layout directly, heads_node_t<E> being the node under it.
template <class E>
concept batched_matmul = is_op<E, matmul_op>;  // of activations: x·Wᵀ of a weight W is a GEMM

template <class E>
concept head_writer = is_attention<E> || batched_matmul<E>;

template <class E>
concept merged_heads = is_op<E, merge_heads_op> && head_writer<child_t<E, 0>>;

template <class E>
struct heads_node {
    using type = E;
};
template <class E>
    requires merged_heads<E>
struct heads_node<E> {
    using type = child_t<E, 0>;
};
template <class E>
using heads_node_t = typename heads_node<E>::type;

// Operands read through a view of the slot of their base.
template <class E>
concept head_view_of_slot = is_op<E, expand_heads_op> || is_op<E, split_heads_op>;

// The expression whose value holds the heads of operand E: x of split_heads(x) or of
// split_heads(columns(x)), under expand_heads for GQA; E itself when E is not a view.
template <class E>
concept split_columns = is_op<E, split_heads_op> && is_columns<child_t<E, 0>>;

template <class E>
const auto& head_base(const E& e) {
    if constexpr (is_op<E, expand_heads_op>) return head_base(child<0>(e));
    else if constexpr (split_columns<E>) return child<0>(child<0>(e));
    else if constexpr (is_op<E, split_heads_op>) return child<0>(e);
    else return e;
}

// The heads of X that memory holds: expand_heads' groups (GQA's K and V), not the heads it repeats
// them to.
template <class X>
constexpr std::size_t stored_heads() {
    if constexpr (is_op<X, expand_heads_op>) return stored_heads<child_t<X, 0>>();
    else if constexpr (rank_of<X> < 3) return 1;
    else return static_cast<std::size_t>(std::max(last(extents_of<X>, 2), 1));
}

// The heads of operand E, its base value at `base`. The width of a head is static, its length L may
// be a run-time one; a contiguous matrix may have run-time lengths on both axes ([..., Lq, Lk]).
template <class E>
head_view<const float> heads_of(const float* base, const extent_values& at) {
    const std::size_t len = extent<E>(at, 1), width = extent<E>(at);
    if constexpr (is_op<E, expand_heads_op>) {
        head_view<const float> view = heads_of<child_t<E, 0>>(base, at);
        constexpr std::size_t heads = last(extents_of<E>, 2);
        view.repeat *= heads / view.heads;  // an expand of an expand repeats both
        view.heads = heads;
        return view;
    } else if constexpr (is_op<E, split_heads_op>) {
        using X = child_t<E, 0>;
        constexpr std::size_t heads = last(extents_of<E>, 2);
        const std::size_t outer = elements<shape_of_t<E>>(at) / (heads * len * width);
        if constexpr (is_columns<X>) {
            constexpr std::size_t stride = last(extents_of<child_t<X, 0>>);
            return {base + op_t<X>::begin, heads, 1, outer, len * stride, width, stride};
        } else {
            return {base, heads, 1, outer, len * heads * width, width, heads * width};
        }
    } else {
        constexpr int before = rank_of<E> >= 3 ? last(extents_of<E>, 2) : 1;  // [..., H, L, D]'s H
        constexpr std::size_t heads = before < 0 ? 1 : before;               // [B, L, D]: one per sequence
        const std::size_t outer = elements<shape_of_t<E>>(at) / (heads * len * width);
        return {base, heads, 1, outer, heads * len * width, len * width, width};
    }
}

// Where a step that writes the heads of A ([..., H, L, D]) puts instance i: contiguous, or, under
// merge_heads, straight into the merged [..., L, H·D] layout.
template <class A, bool Merged>
head_view<float> heads_written(float* out, const extent_values& at) {
    const std::size_t len = extent<A>(at, 1), d = extent<A>(at);
    if constexpr (Merged) {
        constexpr std::size_t heads = last(extents_of<A>, 2);
        const std::size_t outer = elements<shape_of_t<A>>(at) / (heads * len * d);
        return {out, heads, 1, outer, len * heads * d, d, heads * d};
    } else {
        return {out, 1, 1, elements<shape_of_t<A>>(at) / (len * d), len * d, 0, d};
    }
}

}  // namespace ctformer::plan
