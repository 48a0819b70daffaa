// What every operation means, as plain loops in double precision: the oracle every kernel is tested
// against. Each function takes the result's dims (the node's static shape with the batch filled in)
// and its operands; broadcast operands repeat, since their dims are the trailing dims of the result.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

#include "../dsl/ops/embedding.hpp"
#include "../dsl/ops/heads.hpp"
#include "../dsl/ops/layer_norm.hpp"
#include "../dsl/ops/mask.hpp"
#include "../dsl/ops/matmul.hpp"
#include "../dsl/ops/pooling.hpp"
#include "../dsl/ops/rotary.hpp"
#include "../dsl/ops/softmax.hpp"
#include "../core/host_tensor.hpp"
#include "../shape/broadcast.hpp"

namespace ctformer::reference {

using value = host_tensor<double>;

inline constexpr double minus_infinity = -std::numeric_limits<double>::infinity();

// The extent `from_end` places before the last (0: the last extent).
inline std::size_t extent(const dims_t& dims, std::size_t from_end = 0) {
    return dims[dims.size() - 1 - from_end];
}

// C[n] = A[n mod |A|] · B[n mod |B|] for every matrix n of the result.
inline value apply(matmul_op, const dims_t& out, const value& a, const value& b) {
    const std::size_t m = extent(a.dims, 1), k = extent(a.dims), n = extent(b.dims);
    const std::size_t a_count = a.size() / (m * k), b_count = b.size() / (k * n);
    value c(out);
    for (std::size_t matrix = 0; matrix < c.size() / (m * n); ++matrix) {
        const double* A = &a[(matrix % a_count) * m * k];
        const double* B = &b[(matrix % b_count) * k * n];
        double* C = &c[matrix * m * n];
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                double sum = 0;
                for (std::size_t p = 0; p < k; ++p) sum += A[i * k + p] * B[p * n + j];
                C[i * n + j] = sum;
            }
    }
    return c;
}

// Y[..., j, i] = X[..., i, j]
inline value apply(transpose_op, const dims_t& out, const value& x) {
    const std::size_t rows = extent(x.dims, 1), cols = extent(x.dims);
    value y(out);
    for (std::size_t base = 0; base < x.size(); base += rows * cols)
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t j = 0; j < cols; ++j) y[base + j * rows + i] = x[base + i * cols + j];
    return y;
}

inline value apply(add_op, const dims_t& out, const value& a, const value& b) {
    value y(out);
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = a[i % a.size()] + b[i % b.size()];
    return y;
}

inline value apply(multiply_op, const dims_t& out, const value& a, const value& b) {
    value y(out);
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = a[i % a.size()] * b[i % b.size()];
    return y;
}

// Y[..., l, :] = T[ids[..., l], :]; an id outside T's rows is a token_id_out_of_range error.
inline value apply(embedding_op<false>, const dims_t& out, const value& table, const value& ids) {
    const std::size_t rows = table.dims[0], width = table.dims[1];
    value y(out);
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (!(ids[i] >= 0 && ids[i] < double(rows)))
            throw token_id_out_of_range("ids", index_of(ids.dims, i), static_cast<long long>(ids[i]), "table", rows);
        std::copy_n(&table[static_cast<std::size_t>(ids[i]) * width], width, &y[i * width]);
    }
    return y;
}

// Y = T[F … F+L-1, :]
inline value apply(leading_rows_op op, const dims_t& out, const value& table) {
    value y(out);
    std::copy_n(table.data.begin() + op.first * table.dims[1], y.size(), y.data.begin());
    return y;
}

// y = T[I, :]
inline value apply(table_row_op op, const dims_t& out, const value& table) {
    return apply(leading_rows_op{op.row}, out, table);
}

template <class F>
value map(const dims_t& out, const value& x, F f) {
    value y(out);
    std::transform(x.data.begin(), x.data.end(), y.data.begin(), f);
    return y;
}

inline value apply(scale_op op, const dims_t& out, const value& x) {
    return map(out, x, [&](double v) { return v * op.factor; });
}

// The activations' formulas (core/kinds.hpp).
inline double activated(activation act, double v) {
    constexpr double pi = 3.14159265358979323846;
    switch (act) {
        case activation::relu: return std::max(v, 0.0);
        case activation::gelu: return 0.5 * v * std::erfc(-v / std::sqrt(2.0));
        case activation::gelu_tanh:  // ½v(1 + tanh u) = v·σ(2u), which does not cancel to 0 for u ≪ 0
            return v / (1.0 + std::exp(-2.0 * std::sqrt(2.0 / pi) * (v + 0.044715 * v * v * v)));
        case activation::tanh: return std::tanh(v);
        case activation::silu: return v / (1.0 + std::exp(-v));
        default: return v;
    }
}

template <activation Act>
value apply(activation_op<Act>, const dims_t& out, const value& x) {
    return map(out, x, [](double v) { return activated(Act, v); });
}

// Over the last axis: exp(x - max) / Σ exp(x - max); a row with every entry -inf gives zeros.
inline value apply(softmax_op, const dims_t& out, const value& x) {
    const std::size_t n = extent(x.dims);
    value y(out);
    for (std::size_t row = 0; row < x.size(); row += n) {
        const double max = *std::max_element(&x[row], &x[row] + n);
        if (max == minus_infinity) continue;
        double sum = 0;
        for (std::size_t j = 0; j < n; ++j) {
            y[row + j] = std::exp(x[row + j] - max);
            sum += y[row + j];
        }
        for (std::size_t j = 0; j < n; ++j) y[row + j] /= sum;
    }
    return y;
}

// Scores [..., Lq, Lk]; a score whose key may not be attended becomes -inf: past the causal limit,
// or Window keys or more before it.
template <mask_kind Kind, int Window>
value apply(mask_op<Kind, Window>, const dims_t& out, const value& scores) {
    static_assert(Kind == mask_kind::causal || Kind == mask_kind::causal_bottom_right);
    const std::size_t lq = extent(out, 1), lk = extent(out);
    const std::size_t shift = Kind == mask_kind::causal_bottom_right && lk > lq ? lk - lq : 0;
    const std::size_t cut = Kind == mask_kind::causal_bottom_right && lq > lk ? lq - lk : 0;
    value y = scores;
    for (std::size_t base = 0; base < y.size(); base += lq * lk)
        for (std::size_t i = 0; i < lq; ++i)
            for (std::size_t j = 0; j < lk; ++j)
                if (j + cut > i + shift || (Window && j + cut + Window <= i + shift)) y[base + i * lk + j] = minus_infinity;
    return y;
}

// attend and additive: m broadcast to the scores (shape/broadcast.hpp); key_padding: m [B, Lk].
template <mask_kind Kind>
value apply(mask_op<Kind> op, const dims_t& out, const value& scores, const value& m) {
    const std::size_t lk = extent(out);
    const std::size_t per_sequence = scores.size() / (m.dims.size() == 2 ? m.dims[0] : 1);
    const std::vector<std::size_t> strides = broadcast_strides(m.dims, out, op.batch_first);
    value y = scores;
    for (std::size_t i = 0; i < y.size(); ++i) {
        if constexpr (Kind == mask_kind::additive) {
            y[i] += m[broadcast_index(i, out, strides)];
        } else {
            const bool attended = Kind == mask_kind::attend
                                      ? m[broadcast_index(i, out, strides)] != 0
                                      : m[(i / per_sequence) * lk + i % lk] != 0;  // key_padding
            if (!attended) y[i] = minus_infinity;
        }
    }
    return y;
}

// Over the last axis: (x - mean) / sqrt(var + eps) · gamma + beta, var = mean((x - mean)²).
inline value apply(layer_norm_op op, const dims_t& out, const value& x, const value& gamma,
                   const value& beta) {
    const std::size_t n = extent(x.dims);
    value y(out);
    for (std::size_t row = 0; row < x.size(); row += n) {
        double mean = 0, var = 0;
        for (std::size_t j = 0; j < n; ++j) mean += x[row + j] / n;
        for (std::size_t j = 0; j < n; ++j) var += (x[row + j] - mean) * (x[row + j] - mean) / n;
        for (std::size_t j = 0; j < n; ++j)
            y[row + j] = (x[row + j] - mean) / std::sqrt(var + op.eps) * gamma[j] + beta[j];
    }
    return y;
}

// Over the last axis: x / sqrt(mean(x²) + eps) · gamma.
inline value apply(rms_norm_op op, const dims_t& out, const value& x, const value& gamma) {
    const std::size_t n = extent(x.dims);
    value y(out);
    for (std::size_t row = 0; row < x.size(); row += n) {
        double mean_square = 0;
        for (std::size_t j = 0; j < n; ++j) mean_square += x[row + j] * x[row + j] / n;
        for (std::size_t j = 0; j < n; ++j) y[row + j] = x[row + j] / std::sqrt(mean_square + op.eps) * gamma[j];
    }
    return y;
}

// The heads in y's first `columns` columns: each head's pair i turned by the angle position ·
// θ^(-2i/dims) (rounded as rotary_spec::angle), the position a row's index along the axis before
// the last; the dimensions past `dims` kept.
inline void turn_heads(value& y, const rotary_spec& s, std::size_t columns) {
    const std::size_t width = extent(y.dims), length = extent(y.dims, 1), pairs = s.dims() / 2;
    const bool half = s.pairing == rotary_pairing::half;
    for (std::size_t row = 0; row < y.size() / width; ++row)
        for (std::size_t head = row * width; head < row * width + columns; head += s.head_dim)
            for (std::size_t i = 0; i < pairs; ++i) {
                const double angle = s.angle(row % length, i), c = std::cos(angle), sn = std::sin(angle);
                const std::size_t a = head + (half ? i : 2 * i), b = a + (half ? pairs : 1);
                const double ya = y[a], yb = y[b];
                y[a] = ya * c - yb * sn;
                y[b] = yb * c + ya * sn;
            }
}

template <rotary_spec S>
value apply(rotary_op<S>, const dims_t& out, const value& x) {
    value y(out);
    y.data = x.data;
    turn_heads(y, S, extent(y.dims));
    return y;
}

// y = x / max(‖x‖₂, 1e-12) over the last axis.
inline value apply(l2_normalize_op op, const dims_t& out, const value& x) {
    const std::size_t n = extent(x.dims);
    value y(out);
    for (std::size_t row = 0; row < x.size(); row += n) {
        double squares = 0;
        for (std::size_t j = 0; j < n; ++j) squares += x[row + j] * x[row + j];
        const double norm = std::max(std::sqrt(squares), op.least_norm);
        for (std::size_t j = 0; j < n; ++j) y[row + j] = x[row + j] / norm;
    }
    return y;
}

// x [B, L, D] → [B, D]: row 0 of each sequence, or the mean of its rows (weighted by the mask, true
// for a real token; zeros where none is).
template <pooling Kind, class... Mask>
value apply(pool_op<Kind>, const dims_t& out, const value& x, const Mask&... mask) {
    const std::size_t length = x.dims[1], d = x.dims[2];
    value y(out);
    for (std::size_t b = 0; b < x.dims[0]; ++b) {
        double count = 0;
        for (std::size_t l = 0; l < (Kind == pooling::first ? 1 : length); ++l) {
            const double w = ((mask[b * length + l]) * ... * 1.0);
            count += w;
            for (std::size_t j = 0; j < d; ++j) y[b * d + j] += w * x[(b * length + l) * d + j];
        }
        for (std::size_t j = 0; j < d; ++j) y[b * d + j] = count > 0 ? y[b * d + j] / count : 0.0;
    }
    return y;
}

// [..., L, H·D] -> [..., H, L, D]: Y[o, h, l, d] = X[o, l, h·D + d]
inline value apply(split_heads_op, const dims_t& out, const value& x) {
    const std::size_t heads = extent(out, 2), len = extent(out, 1), d = extent(out);
    value y(out);
    for (std::size_t o = 0; o < y.size(); o += heads * len * d)
        for (std::size_t h = 0; h < heads; ++h)
            for (std::size_t l = 0; l < len; ++l)
                for (std::size_t c = 0; c < d; ++c)
                    y[o + (h * len + l) * d + c] = x[o + l * heads * d + h * d + c];
    return y;
}

// [..., H, L, D] -> [..., L, H·D]: Y[o, l, h·D + d] = X[o, h, l, d]
inline value apply(merge_heads_op, const dims_t& out, const value& x) {
    const std::size_t heads = extent(x.dims, 2), len = extent(x.dims, 1), d = extent(x.dims);
    value y(out);
    for (std::size_t o = 0; o < y.size(); o += heads * len * d)
        for (std::size_t h = 0; h < heads; ++h)
            for (std::size_t l = 0; l < len; ++l)
                for (std::size_t c = 0; c < d; ++c)
                    y[o + l * heads * d + h * d + c] = x[o + (h * len + l) * d + c];
    return y;
}

// [..., G, L, D] -> [..., H, L, D]: head h reads group h / (H / G)
inline value apply(expand_heads_op, const dims_t& out, const value& x) {
    const std::size_t heads = extent(out, 2), groups = extent(x.dims, 2);
    const std::size_t slice = extent(out, 1) * extent(out);
    value y(out);
    for (std::size_t o = 0; o < y.size() / (heads * slice); ++o)
        for (std::size_t h = 0; h < heads; ++h)
            std::copy_n(&x[(o * groups + h / (heads / groups)) * slice], slice, &y[(o * heads + h) * slice]);
    return y;
}

}  // namespace ctformer::reference
