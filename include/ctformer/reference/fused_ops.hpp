// What the fused operations mean, in terms of the unfused formulas of ops.hpp (double precision),
// so that a fused tree evaluates to the same values as the tree it came from.
#pragma once

#include <array>
#include <vector>
#include <utility>

#include "../dsl/ops/fused.hpp"
#include "ops.hpp"

namespace ctformer::reference {

// T[ids[..., l]] + P[F + l]: the embedding, then its position's row added.
inline value apply(embedding_op<true> op, const dims_t& out, const value& table, const value& ids, const value& positions) {
    const value rows = apply(leading_rows_op{op.first}, {extent(out, 1), extent(out)}, positions);
    return apply(add_op{}, out, apply(embedding_op<false>{}, out, table, ids), rows);
}

// act(A·Wᵀ + bias) + residual; the residual repeats when it has fewer rows (a PE table). Gated:
// act(gate) · up, gate and up the products of W's first and second halves of rows. Rotated: the
// heads of the first columns then turned by rotary positions (the angles' table is the kernel's).
template <class Epilogue, class... Extra>
value apply(gemm_op<Epilogue>, const dims_t& out, const value& a, const value& w, const Extra&... extra) {
    const std::array<const value*, sizeof...(Extra)> operands{&extra...};
    const value* bias = nullptr;
    const value* residual = nullptr;
    if constexpr (Epilogue::bias) bias = operands[0];
    if constexpr (Epilogue::residual) residual = operands[Epilogue::bias ? 1 : 0];
    const std::size_t n = extent(out), k = extent(a.dims);
    const auto product = [&](std::size_t row, std::size_t col) {
        double sum = bias ? (*bias)[col] : 0.0;
        for (std::size_t p = 0; p < k; ++p) sum += a[row * k + p] * w[col * k + p];
        return sum;
    };
    value c(out);
    for (std::size_t i = 0; i < c.size(); ++i) {
        const std::size_t row = i / n, col = i % n;
        double sum = activated(Epilogue::act, product(row, col));
        if constexpr (Epilogue::gated) sum *= product(row, n + col);
        c[i] = residual ? sum + (*residual)[i % residual->size()] : sum;
    }
    if constexpr (Epilogue::rotated) turn_heads(c, Epilogue::rotary.spec, Epilogue::rotary.columns);
    return c;
}

// softmax(mask(scale · Q·Kᵀ)), through the unfused formulas; scores_dims [..., Lq, Lk]; `masks`
// the mask tensors in the fused op's order (key padding, attend, additive, those it has).
template <class Kind>
value attention_probabilities(const Kind& op, const dims_t& scores_dims, const value& q, const value& k,
                              const std::vector<const value*>& masks) {
    constexpr attention_masks m = Kind::masks;
    dims_t keys_t = k.dims;
    std::swap(keys_t[keys_t.size() - 1], keys_t[keys_t.size() - 2]);
    value s = apply(scale_op{op.scale}, scores_dims, apply(matmul_op{}, scores_dims, q, apply(transpose_op{}, keys_t, k)));
    if constexpr (m.causal == causality::top_left) s = apply(mask_op<mask_kind::causal, m.window>{}, scores_dims, s);
    if constexpr (m.causal == causality::bottom_right) s = apply(mask_op<mask_kind::causal_bottom_right>{}, scores_dims, s);
    std::size_t next = 0;
    if constexpr (m.key_padding) s = apply(mask_op<mask_kind::key_padding>{}, scores_dims, s, *masks[next++]);
    if constexpr (m.attend) s = apply(mask_op<mask_kind::attend>{op.attend_batch_first}, scores_dims, s, *masks[next++]);
    if constexpr (m.additive)
        s = apply(mask_op<mask_kind::additive>{op.additive_batch_first}, scores_dims, s, *masks[next++]);
    return apply(softmax_op{}, scores_dims, s);
}

template <attention_masks Masks, class... Masking>
value apply(const attention_probabilities_op<Masks>& op, const dims_t& out, const value& q, const value& k,
            const Masking&... masks) {
    return attention_probabilities(op, out, q, k, {&masks...});
}

template <attention_masks Masks, class... Masking>
value apply(const attention_op<Masks>& op, const dims_t& out, const value& q, const value& k, const value& v,
            const Masking&... masks) {
    dims_t scores_dims = out;
    scores_dims.back() = extent(k.dims, 1);
    return apply(matmul_op{}, out, attention_probabilities(op, scores_dims, q, k, {&masks...}), v);
}

inline value apply(residual_layer_norm_op op, const dims_t& out, const value& a, const value& b,
                   const value& gamma, const value& beta) {
    return apply(layer_norm_op{op.eps}, out, apply(add_op{}, out, a, b), gamma, beta);
}

// LayerNorm(W[ids] + P[F + l] + types), types T[type_ids] (Typed) or T[R] for every token.
inline value apply(embedding_layer_norm_op<true> op, const dims_t& out, const value& words, const value& ids,
                   const value& positions, const value& types, const value& type_ids, const value& gamma,
                   const value& beta) {
    const value sum = apply(add_op{}, out, apply(embedding_op<true>{op.first}, out, words, ids, positions),
                            apply(embedding_op<false>{}, out, types, type_ids));
    return apply(layer_norm_op{op.eps}, out, sum, gamma, beta);
}

inline value apply(embedding_layer_norm_op<false> op, const dims_t& out, const value& words, const value& ids,
                   const value& positions, const value& types, const value& gamma, const value& beta) {
    const value row = apply(table_row_op{op.type_row}, {extent(out)}, types);
    const value sum = apply(add_op{}, out, apply(embedding_op<true>{op.first}, out, words, ids, positions), row);
    return apply(layer_norm_op{op.eps}, out, sum, gamma, beta);
}

template <int Begin, int End>
value apply(columns_op<Begin, End>, const dims_t& out, const value& x) {
    const std::size_t width = extent(x.dims), count = End - Begin;
    value y(out);
    for (std::size_t row = 0; row < y.size() / count; ++row)
        std::copy_n(&x[row * width + Begin], count, &y[row * count]);
    return y;
}

// Stacked along the first axis: row-major, the parts' values one after the other.
template <class... Parts>
value apply(concat_op, const dims_t& out, const Parts&... parts) {
    value y(out);
    auto at = y.data.begin();
    ((at = std::copy(parts.data.begin(), parts.data.end(), at)), ...);
    return y;
}

}  // namespace ctformer::reference
