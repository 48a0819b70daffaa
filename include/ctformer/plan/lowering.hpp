// How a fused tree becomes kernel steps; the runtime (which runs them) and the plan (which lists
// them) both follow these rules, so what explain() shows is what runs.
//
// Every call node is one step that writes its value to memory, except views, which a step reads
// through: split_heads / expand_heads / columns under the steps that read heads (fused_attention,
// attention_probabilities, a batched matmul: head index arithmetic), and merge_heads over a step
// that writes heads (the kernel writes the merged layout). Leaves are memory already. A step is a
// kernel (gemm, fused_attention, attention_probabilities, matmul, residual_layer_norm, layer_norm,
// softmax, add) or, for an operation no pass fused, the reference formula run in double precision
// (slow; shown as such).
#pragma once

#include <cstddef>
#include <string>

#include "../dsl/ops/heads.hpp"
#include "../dsl/ops/layer_norm.hpp"
#include "../dsl/ops/softmax.hpp"
#include "../passes/match.hpp"

namespace ctformer::plan {

// Elements of a value of Shape, with the batch extent filled in.
template <class Shape>
constexpr std::size_t elements(std::size_t batch_size) {
    std::size_t n = 1;
    for (int e : Shape::extents) n *= e == batch ? batch_size : static_cast<std::size_t>(e);
    return n;
}

// A matmul whose right-hand side is not transposed: one small product per batch index and head.
template <class E>
concept batched_matmul = is_op<E, matmul_op> && !is_op<child_t<E, 1>, transpose_op>;

// Steps that write [..., heads, L, D] values, which merge_heads can take in place.
template <class E>
concept head_writer = is_attention<E> || batched_matmul<E>;

template <class E>
concept merged_heads = is_op<E, merge_heads_op> && head_writer<child_t<E, 0>>;

// GQA/MQA groups read as heads: expand_heads over split_heads.
template <class E>
concept expanded_split = is_op<E, expand_heads_op> && is_op<child_t<E, 0>, split_heads_op>;

// Steps that read their operands through head views.
template <class E>
concept head_reader = head_writer<E> || is_probabilities<E>;

template <class E>
concept kernel_step = is_gemm<E> || head_reader<E> || merged_heads<E> || is_op<E, residual_layer_norm_op> ||
                      is_op<E, layer_norm_op> || is_op<E, softmax_op> || is_op<E, add_op>;

template <class E>
std::string kernel_name() {
    if constexpr (merged_heads<E>) return kernel_name<child_t<E, 0>>() + " (heads merged)";
    else if constexpr (kernel_step<E>) return op_t<E>::name;
    else return std::string("reference ") + op_t<E>::name;
}

// Causal attention visits only the keys each query may see.
template <causality Causal>
constexpr std::size_t visible_pairs(std::size_t lq, std::size_t lk) {
    std::size_t pairs = 0;
    for (std::size_t i = 0; i < lq; ++i) pairs += kernels::visible_keys<Causal>(i, lq, lk);
    return pairs;
}

// Floating-point operations of a step (multiply-add = 2); 0 where not counted.
template <class E>
double flops(std::size_t batch_size) {
    const double out = static_cast<double>(elements<shape_of_t<E>>(batch_size));
    if constexpr (merged_heads<E>) {
        return flops<child_t<E, 0>>(batch_size);
    } else if constexpr (batched_matmul<E>) {
        return 2.0 * out * last(extents_of<child_t<E, 0>>);
    } else if constexpr (is_probabilities<E>) {
        constexpr std::size_t lq = last(extents_of<E>, 1), lk = last(extents_of<E>), dk = last(extents_of<child_t<E, 0>>);
        return out / static_cast<double>(lq * lk) * 2.0 * static_cast<double>(visible_pairs<op_t<E>::causal_kind>(lq, lk) * dk);
    } else if constexpr (is_gemm<E>) {
        return 2.0 * out * last(extents_of<child_t<E, 1>>);
    } else if constexpr (is_attention<E>) {
        constexpr std::size_t lq = last(extents_of<E>, 1), dv = last(extents_of<E>);
        constexpr std::size_t lk = last(extents_of<child_t<E, 1>>, 1), dk = last(extents_of<child_t<E, 1>>);
        const double instances = out / static_cast<double>(lq * dv);
        return instances * 2.0 * static_cast<double>(visible_pairs<op_t<E>::causal_kind>(lq, lk) * (dk + dv));
    } else if constexpr (is_op<E, residual_layer_norm_op> || is_op<E, layer_norm_op>) {
        return 8.0 * out;
    } else if constexpr (is_op<E, softmax_op>) {
        return 5.0 * out;
    } else if constexpr (is_op<E, add_op>) {
        return out;
    } else {
        return 0.0;
    }
}

}  // namespace ctformer::plan
