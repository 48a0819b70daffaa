// Rotary position embedding on one row of heads (per-target code): each head's pair i, (i, i + pairs)
// (Hugging Face's rotate_half) or (2i, 2i + 1) (GPT-J's), turned by the angle whose cosine and sine
// are cos[i] and sin[i]:  a' = a·cos − b·sin,  b' = b·cos + a·sin.  The row's angles are its
// position's (dsl/ops/rotary.hpp); the dimensions past 2·pairs are copied.

// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_KERNELS_ROTARY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_KERNELS_ROTARY_INL_H_
#undef CTFORMER_KERNELS_ROTARY_INL_H_
#else
#define CTFORMER_KERNELS_ROTARY_INL_H_
#endif

#include <algorithm>
#include <cstddef>

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace ctformer::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Pairs (a[i], b[i]) for i < n turned into (out_a[i], out_b[i]); the last ones a lane at a time.
HWY_INLINE void turn_pairs(std::size_t n, const float* cos, const float* sin, const float* a, const float* b,
                           float* out_a, float* out_b) {
    const auto turn = [&](auto d, std::size_t i) HWY_ATTR {
        const auto c = hn::LoadU(d, cos + i), s = hn::LoadU(d, sin + i);
        const auto x = hn::LoadU(d, a + i), y = hn::LoadU(d, b + i);
        hn::StoreU(hn::NegMulAdd(y, s, hn::Mul(x, c)), d, out_a + i);
        hn::StoreU(hn::MulAdd(x, s, hn::Mul(y, c)), d, out_b + i);
    };
    const hn::ScalableTag<float> d;
    std::size_t i = 0;
    for (; i + hn::Lanes(d) <= n; i += hn::Lanes(d)) turn(d, i);
    for (; i < n; ++i) turn(hn::CappedTag<float, 1>(), i);
}

// `heads` heads of head_dim values, from x to out (which may be x).
inline void rotate_row(std::size_t heads, std::size_t head_dim, std::size_t pairs, bool half, const float* cos,
                       const float* sin, const float* x, float* out) {
    for (std::size_t h = 0; h < heads; ++h, x += head_dim, out += head_dim) {
        if (out != x) std::copy(x + 2 * pairs, x + head_dim, out + 2 * pairs);
        if (half) {
            turn_pairs(pairs, cos, sin, x, x + pairs, out, out + pairs);
            continue;
        }
        for (std::size_t i = 0; i < pairs; ++i) {
            const float a = x[2 * i], b = x[2 * i + 1];
            out[2 * i] = a * cos[i] - b * sin[i];
            out[2 * i + 1] = b * cos[i] + a * sin[i];
        }
    }
}

}  // namespace ctformer::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_KERNELS_ROTARY_INL_H_ toggle
