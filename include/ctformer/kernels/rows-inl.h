// Row-wise kernels over the last axis of width N (per-target code, like gemm-inl.h):
//   residual_layer_norm: out = (s - mean) / sqrt(var + eps) · gamma + beta, s = x + residual, one pass
//                        over the sum kept in out;
//   softmax:             out = exp(x - max) / Σ exp(x - max); a row of -inf (all masked) gives zeros.
// Vectors cover the row; the last partial vector of columns is done one lane at a time.

// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_KERNELS_ROWS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_KERNELS_ROWS_INL_H_
#undef CTFORMER_KERNELS_ROWS_INL_H_
#else
#define CTFORMER_KERNELS_ROWS_INL_H_
#endif

#include <cmath>
#include <cstddef>
#include <limits>

#include <hwy/highway.h>

#include "exp-inl.h"

HWY_BEFORE_NAMESPACE();
namespace ctformer::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Σ f(i) over a row, where vector(i) gives the vector at column i and scalar(i) one lane.
template <std::size_t N, class Vector, class Scalar>
float row_sum(Vector vector, Scalar scalar) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d);
    const std::size_t vector_end = N - N % lanes;
    auto sum = hn::Zero(d);
    for (std::size_t i = 0; i < vector_end; i += lanes) sum = hn::Add(sum, vector(i));
    float total = hn::GetLane(hn::SumOfLanes(d, sum));
    for (std::size_t i = vector_end; i < N; ++i) total += scalar(i);
    return total;
}

// out[r] = LayerNorm(x[r] + residual[r]) for rows r; residual may be nullptr.
template <std::size_t N>
void residual_layer_norm(std::size_t rows, const float* x, const float* residual, const float* gamma,
                         const float* beta, float eps, float* out) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d), vector_end = N - N % lanes;
    for (std::size_t r = 0; r < rows; ++r) {
        const float* xr = x + r * N;
        const float* rr = residual ? residual + r * N : nullptr;
        float* o = out + r * N;
        for (std::size_t i = 0; i < vector_end; i += lanes) {
            auto s = hn::LoadU(d, xr + i);
            if (rr) s = hn::Add(s, hn::LoadU(d, rr + i));
            hn::StoreU(s, d, o + i);
        }
        for (std::size_t i = vector_end; i < N; ++i) o[i] = xr[i] + (rr ? rr[i] : 0.0f);

        const float mean = row_sum<N>([&](std::size_t j) { return hn::LoadU(d, o + j); },
                                      [&](std::size_t j) { return o[j]; }) / N;
        const auto m = hn::Set(d, mean);
        const float var = row_sum<N>(
                              [&](std::size_t j) {
                                  const auto c = hn::Sub(hn::LoadU(d, o + j), m);
                                  return hn::Mul(c, c);
                              },
                              [&](std::size_t j) { return (o[j] - mean) * (o[j] - mean); }) / N;
        const float inv = 1.0f / std::sqrt(var + eps);
        const auto inv_v = hn::Set(d, inv);
        for (std::size_t i = 0; i < vector_end; i += lanes) {
            const auto normed = hn::Mul(hn::Sub(hn::LoadU(d, o + i), m), inv_v);
            hn::StoreU(hn::MulAdd(normed, hn::LoadU(d, gamma + i), hn::LoadU(d, beta + i)), d, o + i);
        }
        for (std::size_t i = vector_end; i < N; ++i) o[i] = (o[i] - mean) * inv * gamma[i] + beta[i];
    }
}

// out[r] = softmax(x[r]) over N columns, for rows r.
template <std::size_t N>
void softmax(std::size_t rows, const float* x, float* out) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d), vector_end = N - N % lanes;
    for (std::size_t r = 0; r < rows; ++r) {
        const float* xr = x + r * N;
        float* o = out + r * N;
        float max = -std::numeric_limits<float>::infinity();
        for (std::size_t i = 0; i < N; ++i) max = xr[i] > max ? xr[i] : max;
        if (max == -std::numeric_limits<float>::infinity()) {  // every entry masked
            for (std::size_t i = 0; i < N; ++i) o[i] = 0.0f;
            continue;
        }
        const auto m = hn::Set(d, max);
        for (std::size_t i = 0; i < vector_end; i += lanes)
            hn::StoreU(exp_nonpositive(d, hn::Sub(hn::LoadU(d, xr + i), m)), d, o + i);
        for (std::size_t i = vector_end; i < N; ++i) o[i] = std::exp(xr[i] - max);
        const float inv = 1.0f / row_sum<N>([&](std::size_t j) { return hn::LoadU(d, o + j); },
                                            [&](std::size_t j) { return o[j]; });
        const auto inv_v = hn::Set(d, inv);
        for (std::size_t i = 0; i < vector_end; i += lanes)
            hn::StoreU(hn::Mul(hn::LoadU(d, o + i), inv_v), d, o + i);
        for (std::size_t i = vector_end; i < N; ++i) o[i] *= inv;
    }
}

}  // namespace ctformer::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_KERNELS_ROWS_INL_H_ toggle
