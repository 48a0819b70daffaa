// Kernels of the operations that stand alone when no pass fused them into a bigger one (per-target
// code): a scale, an activation (activation-inl.h), a transpose of the last two axes, a mask applied
// to written-out scores, and the strided copy that makes a head view (split, merge or expand heads,
// a column range) a tensor of its own.

// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_KERNELS_ELEMENTWISE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_KERNELS_ELEMENTWISE_INL_H_
#undef CTFORMER_KERNELS_ELEMENTWISE_INL_H_
#else
#define CTFORMER_KERNELS_ELEMENTWISE_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <limits>

#include <hwy/highway.h>

#include "activation-inl.h"
#include "strided.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// out[i] = factor · in[i] for i < n.
inline void scale_values(std::size_t n, float factor, const float* in, float* out) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d);
    const auto f = hn::Set(d, factor);
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes) hn::StoreU(hn::Mul(hn::LoadU(d, in + i), f), d, out + i);
    for (; i < n; ++i) out[i] = factor * in[i];
}

// out [cols, rows] = inᵀ for one matrix of [rows, cols], in tiles that keep both sides in cache.
inline void transpose_matrix(std::size_t rows, std::size_t cols, strided_rows<const float> in, float* out) {
    constexpr std::size_t tile = 32;
    for (std::size_t r0 = 0; r0 < rows; r0 += tile)
        for (std::size_t c0 = 0; c0 < cols; c0 += tile)
            for (std::size_t r = r0; r < std::min(rows, r0 + tile); ++r)
                for (std::size_t c = c0; c < std::min(cols, c0 + tile); ++c) out[c * rows + r] = in.row(r)[c];
}

// `count` rows of `width` values, from strided rows to strided rows.
inline void copy_rows(strided_rows<const float> in, std::size_t count, std::size_t width, strided_rows<float> out) {
    for (std::size_t r = 0; r < count; ++r) std::copy_n(in.row(r), width, out.row(r));
}

// out = a + b, n values.
inline void add_values(std::size_t n, const float* a, const float* b, float* out) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d);
    // The whole vectors counted first: with `i + lanes <= n` as the bound, GCC 12 warned that the
    // scalar loop's iteration 2^62 invokes undefined behaviour (-Waggressive-loop-optimizations).
    const std::size_t whole = n - n % lanes;
    for (std::size_t i = 0; i < whole; i += lanes) hn::StoreU(hn::Add(hn::LoadU(d, a + i), hn::LoadU(d, b + i)), d, out + i);
    for (std::size_t i = whole; i < n; ++i) out[i] = a[i] + b[i];
}

// A written-out row of scores [Lk] masked: additive adds `bias` (a row of Lk); attend and key
// padding bar (-inf) the keys whose `mask` value is 0; causal bars keys from `visible` on.
inline void add_row(std::size_t n, const float* bias, float* scores) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d);
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes) hn::StoreU(hn::Add(hn::LoadU(d, scores + i), hn::LoadU(d, bias + i)), d, scores + i);
    for (; i < n; ++i) scores[i] += bias[i];
}

inline void bar_row(std::size_t n, const float* mask, float* scores) {
    for (std::size_t i = 0; i < n; ++i)
        if (mask[i] == 0.0f) scores[i] = -std::numeric_limits<float>::infinity();
}

inline void bar_from(std::size_t n, std::size_t visible, float* scores) {
    std::fill(scores + std::min(n, visible), scores + n, -std::numeric_limits<float>::infinity());
}

}  // namespace ctformer::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_KERNELS_ELEMENTWISE_INL_H_ toggle
