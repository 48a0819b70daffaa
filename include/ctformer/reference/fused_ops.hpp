// What the fused operations mean, in terms of the unfused formulas of ops.hpp (double precision),
// so that a fused tree evaluates to the same values as the tree it came from.
#pragma once

#include <array>
#include <utility>

#include "../dsl/ops/fused.hpp"
#include "ops.hpp"

namespace ctformer::reference {

// act(A·Wᵀ + bias) + residual; the residual repeats when it has fewer rows (a PE table).
template <class Epilogue, class... Extra>
value apply(gemm_op<Epilogue>, const dims_t& out, const value& a, const value& w, const Extra&... extra) {
    const std::array<const value*, sizeof...(Extra)> operands{&extra...};
    const value* bias = nullptr;
    const value* residual = nullptr;
    if constexpr (Epilogue::bias) bias = operands[0];
    if constexpr (Epilogue::residual) residual = operands[Epilogue::bias ? 1 : 0];
    const std::size_t n = extent(out), k = extent(a.dims);
    value c(out);
    for (std::size_t i = 0; i < c.size(); ++i) {
        const std::size_t row = i / n, col = i % n;
        double sum = bias ? (*bias)[col] : 0.0;
        for (std::size_t p = 0; p < k; ++p) sum += a[row * k + p] * w[col * k + p];
        if constexpr (Epilogue::act == activation::relu) sum = std::max(sum, 0.0);
        if constexpr (Epilogue::act == activation::gelu) sum = 0.5 * sum * (1.0 + std::erf(sum / std::sqrt(2.0)));
        c[i] = residual ? sum + (*residual)[i % residual->size()] : sum;
    }
    return c;
}

// softmax(mask(scale · Q·Kᵀ)), through the unfused formulas; scores_dims [..., Lq, Lk].
template <causality Causal, bool KeyPadding, class... Padding>
value attention_probabilities(double scale, const dims_t& scores_dims, const value& q, const value& k,
                              const Padding&... padding) {
    dims_t keys_t = k.dims;
    std::swap(keys_t[keys_t.size() - 1], keys_t[keys_t.size() - 2]);
    value s = apply(scale_op{scale}, scores_dims, apply(matmul_op{}, scores_dims, q, apply(transpose_op{}, keys_t, k)));
    if constexpr (Causal == causality::top_left) s = apply(mask_op<mask_kind::causal>{}, scores_dims, s);
    if constexpr (Causal == causality::bottom_right)
        s = apply(mask_op<mask_kind::causal_bottom_right>{}, scores_dims, s);
    if constexpr (KeyPadding) s = apply(mask_op<mask_kind::key_padding>{}, scores_dims, s, padding...);
    return apply(softmax_op{}, scores_dims, s);
}

template <causality Causal, bool KeyPadding, class... Padding>
value apply(attention_probabilities_op<Causal, KeyPadding> op, const dims_t& out, const value& q, const value& k,
            const Padding&... padding) {
    return attention_probabilities<Causal, KeyPadding>(op.scale, out, q, k, padding...);
}

template <causality Causal, bool KeyPadding, class... Padding>
value apply(attention_op<Causal, KeyPadding> op, const dims_t& out, const value& q, const value& k,
            const value& v, const Padding&... padding) {
    dims_t scores_dims = out;
    scores_dims.back() = extent(k.dims, 1);
    return apply(matmul_op{}, out, attention_probabilities<Causal, KeyPadding>(op.scale, scores_dims, q, k, padding...), v);
}

inline value apply(residual_layer_norm_op op, const dims_t& out, const value& a, const value& b,
                   const value& gamma, const value& beta) {
    return apply(layer_norm_op{op.eps}, out, apply(add_op{}, out, a, b), gamma, beta);
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
