// Row-wise kernels over the last axis of width N (per-target code, like gemm-inl.h):
//   residual_layer_norm: out = (s - mean) / sqrt(var + eps) · gamma + beta, s = x + residual, over
//                        the sum kept in out; right for values up to fp32's largest, NaN for inf;
//   rms_norm:            out = x / sqrt(mean(x²) + eps) · gamma, an infinity giving NaN in its place
//                        and zeros beside it, as PyTorch does;
//   softmax:             out = exp(x - max) / Σ exp(x - max); a row of -inf (all masked) gives zeros;
//   l2_normalize:        out = x / max(‖x‖₂, least), in units of the row's largest magnitude when
//                        that is large (no square overflows);
//   weighted_mean:       out = Σ w[l]·x[l] / Σ w[l] over rows l (pooling a sequence), zeros for Σ w = 0.
// Vectors cover the row; the last partial vector of columns is done one lane at a time.

// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_KERNELS_ROWS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_KERNELS_ROWS_INL_H_
#undef CTFORMER_KERNELS_ROWS_INL_H_
#else
#define CTFORMER_KERNELS_ROWS_INL_H_
#endif

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include <hwy/highway.h>

#include "exp-inl.h"

HWY_BEFORE_NAMESPACE();
namespace ctformer::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Σ f(i) over a row of n, where vector(i) gives the vector at column i and scalar(i) one lane.
template <class Vector, class Scalar>
HWY_INLINE float row_sum(std::size_t n, Vector vector, Scalar scalar) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d);
    const std::size_t vector_end = n - n % lanes;
    auto sum = hn::Zero(d);
    for (std::size_t i = 0; i < vector_end; i += lanes) sum = hn::Add(sum, vector(i));
    float total = hn::GetLane(hn::SumOfLanes(d, sum));
    for (std::size_t i = vector_end; i < n; ++i) total += scalar(i);
    return total;
}

// Rows whose values reach this are normalised in units of their largest magnitude, so that no
// square overflows fp32 (N·big² stays below 3.4e38 for N up to 2²⁰ at big = 1e16).
inline constexpr float kLargestUnscaled = 1e16f;

// out[r] = LayerNorm(x[r] + residual[r]) for rows r; residual may be nullptr. The mean is taken
// first and the variance of the centred values after, in units of the row's largest magnitude when
// that is large; a row holding an infinity or a NaN gives NaN, as PyTorch does.
template <std::size_t N>
void residual_layer_norm(std::size_t rows, const float* x, const float* residual, const float* gamma,
                         const float* beta, float eps, float* out) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d), vector_end = N - N % lanes;
    for (std::size_t r = 0; r < rows; ++r) {
        const float* xr = x + r * N;
        const float* rr = residual ? residual + r * N : nullptr;
        float* o = out + r * N;
        auto largest = hn::Zero(d);
        for (std::size_t i = 0; i < vector_end; i += lanes) {
            auto s = hn::LoadU(d, xr + i);
            if (rr) s = hn::Add(s, hn::LoadU(d, rr + i));
            largest = hn::Max(largest, hn::Abs(s));
            hn::StoreU(s, d, o + i);
        }
        float big = hn::GetLane(hn::MaxOfLanes(d, largest));
        for (std::size_t i = vector_end; i < N; ++i) {
            o[i] = xr[i] + (rr ? rr[i] : 0.0f);
            big = std::max(big, std::abs(o[i]));
        }
        const float unit = big > kLargestUnscaled ? 1.0f / big : 1.0f;
        const auto u = hn::Set(d, unit);
        const float mean = row_sum(N, [&](std::size_t j) { return hn::Mul(hn::LoadU(d, o + j), u); },
                                      [&](std::size_t j) { return o[j] * unit; }) / N;
        if (!std::isfinite(mean)) {  // an infinity or a NaN in the row (a sum keeps either)
            std::fill_n(o, N, std::numeric_limits<float>::quiet_NaN());
            continue;
        }
        const auto m = hn::Set(d, mean);
        const float var = row_sum(N,
                              [&](std::size_t j) {
                                  const auto c = hn::Sub(hn::Mul(hn::LoadU(d, o + j), u), m);
                                  return hn::Mul(c, c);
                              },
                              [&](std::size_t j) { return (o[j] * unit - mean) * (o[j] * unit - mean); }) / N;
        const float spread = var + eps * unit * unit;
        const float inv = spread > 0.0f ? 1.0f / std::sqrt(spread) : 0.0f;  // 0: a constant row of huge values
        const auto inv_v = hn::Set(d, inv);
        for (std::size_t i = 0; i < vector_end; i += lanes) {
            const auto normed = hn::Mul(hn::Sub(hn::Mul(hn::LoadU(d, o + i), u), m), inv_v);
            hn::StoreU(hn::MulAdd(normed, hn::LoadU(d, gamma + i), hn::LoadU(d, beta + i)), d, o + i);
        }
        for (std::size_t i = vector_end; i < N; ++i) o[i] = (o[i] * unit - mean) * inv * gamma[i] + beta[i];
    }
}

// out[r] = x[r] / √(mean(x[r]²) + eps) · gamma for rows r, the squares taken in units of the row's
// largest magnitude when that is large. An infinity makes the mean square infinite, so the row is
// x · 0: NaN in the infinity's place, zeros elsewhere; a NaN makes it NaN (both as PyTorch).
template <std::size_t N>
void rms_norm(std::size_t rows, const float* x, const float* gamma, float eps, float* out) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d), vector_end = N - N % lanes;
    for (std::size_t r = 0; r < rows; ++r) {
        const float* xr = x + r * N;
        float* o = out + r * N;
        auto largest = hn::Zero(d);
        for (std::size_t i = 0; i < vector_end; i += lanes) largest = hn::Max(largest, hn::Abs(hn::LoadU(d, xr + i)));
        float big = hn::GetLane(hn::MaxOfLanes(d, largest));
        for (std::size_t i = vector_end; i < N; ++i) big = std::max(big, std::abs(xr[i]));
        const float unit = std::isfinite(big) && big > kLargestUnscaled ? 1.0f / big : 1.0f;
        const auto u = hn::Set(d, unit);
        const float mean_square = row_sum(N,
                                          [&](std::size_t j) {
                                              const auto s = hn::Mul(hn::LoadU(d, xr + j), u);
                                              return hn::Mul(s, s);
                                          },
                                          [&](std::size_t j) { return xr[j] * unit * (xr[j] * unit); }) / N;
        const float scale = unit / std::sqrt(mean_square + eps * unit * unit);
        const auto scale_v = hn::Set(d, scale);
        for (std::size_t i = 0; i < vector_end; i += lanes)
            hn::StoreU(hn::Mul(hn::Mul(hn::LoadU(d, xr + i), scale_v), hn::LoadU(d, gamma + i)), d, o + i);
        for (std::size_t i = vector_end; i < N; ++i) o[i] = xr[i] * scale * gamma[i];
    }
}

// out = softmax(x) over a row of n columns; false, with zeros, for a row of -inf (NaN where one
// of them is NaN, as for any row that holds one).
inline bool softmax_row(std::size_t n, const float* x, float* out) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d), vector_end = n - n % lanes;
    float max = -std::numeric_limits<float>::infinity();
    for (std::size_t i = 0; i < n; ++i) max = x[i] > max ? x[i] : max;
    if (max == -std::numeric_limits<float>::infinity()) {
        const bool nan = std::any_of(x, x + n, [](float v) { return std::isnan(v); });
        std::fill_n(out, n, nan ? std::numeric_limits<float>::quiet_NaN() : 0.0f);
        return nan;
    }
    const auto m = hn::Set(d, max);
    for (std::size_t i = 0; i < vector_end; i += lanes) hn::StoreU(exp_nonpositive(d, hn::Sub(hn::LoadU(d, x + i), m)), d, out + i);
    for (std::size_t i = vector_end; i < n; ++i) out[i] = std::exp(x[i] - max);
    const float inv = 1.0f / row_sum(n, [&](std::size_t j) { return hn::LoadU(d, out + j); },
                                     [&](std::size_t j) { return out[j]; });
    const auto inv_v = hn::Set(d, inv);
    for (std::size_t i = 0; i < vector_end; i += lanes) hn::StoreU(hn::Mul(hn::LoadU(d, out + i), inv_v), d, out + i);
    for (std::size_t i = vector_end; i < n; ++i) out[i] *= inv;
    return true;
}

// out[r] = softmax(x[r]) over n columns, for rows r (the row length is a sequence's: run time).
inline void softmax(std::size_t rows, std::size_t n, const float* x, float* out) {
    for (std::size_t r = 0; r < rows; ++r) softmax_row(n, x + r * n, out + r * n);
}

// out = factor · x, a row of N.
template <std::size_t N>
HWY_INLINE void scale_row(const float* x, float factor, float* out) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d), vector_end = N - N % lanes;
    for (std::size_t i = 0; i < vector_end; i += lanes) hn::StoreU(hn::Mul(hn::LoadU(d, x + i), hn::Set(d, factor)), d, out + i);
    for (std::size_t i = vector_end; i < N; ++i) out[i] = x[i] * factor;
}

// out[r] = x[r] / max(‖x[r]‖₂, least) for rows r.
template <std::size_t N>
void l2_normalize(std::size_t rows, const float* x, float least, float* out) {
    const hn::ScalableTag<float> d;
    for (std::size_t r = 0; r < rows; ++r) {
        const float* xr = x + r * N;
        float big = 0;  // the squares are summed in units of the largest magnitude when it is large
        for (std::size_t i = 0; i < N; ++i) big = std::max(big, std::abs(xr[i]));
        const float unit = big >= kLargestUnscaled ? big : 1.0f, inv_unit = 1.0f / unit;
        const float squares = row_sum(
            N, [&](std::size_t i) { const auto v = hn::Mul(hn::LoadU(d, xr + i), hn::Set(d, inv_unit)); return hn::Mul(v, v); },
            [&](std::size_t i) { return (xr[i] * inv_unit) * (xr[i] * inv_unit); });
        const float norm = std::sqrt(squares);  // in units: ‖x‖₂ itself may pass fp32's largest
        scale_row<N>(xr, norm * unit >= least ? inv_unit / norm : 1.0f / least, out + r * N);
    }
}

// out = Σ w[l]·x[l] / Σ w[l] over `count` rows of N (w null: every weight 1); zeros when Σ w = 0.
template <std::size_t N>
void weighted_mean(std::size_t count, const float* x, const float* w, float* out) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d), vector_end = N - N % lanes;
    std::fill_n(out, N, 0.0f);
    float total = 0;
    for (std::size_t l = 0; l < count; ++l) {
        const float weight = w ? w[l] : 1.0f;
        if (weight == 0) continue;
        total += weight;
        const float* xl = x + l * N;
        for (std::size_t i = 0; i < vector_end; i += lanes)
            hn::StoreU(hn::MulAdd(hn::LoadU(d, xl + i), hn::Set(d, weight), hn::LoadU(d, out + i)), d, out + i);
        for (std::size_t i = vector_end; i < N; ++i) out[i] += weight * xl[i];
    }
    scale_row<N>(out, total > 0 ? 1.0f / total : 0.0f, out);
}

}  // namespace ctformer::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_KERNELS_ROWS_INL_H_ toggle
