// exp(x) for x ≤ 0, as softmax takes it (x = score - max), in half the vector operations of Highway's
// Exp (14 against about 27). On AVX-512 every vector operation competes with the FMAs around it for
// the same two ports: the online softmax step was a fifth of the fused attention's time.
//   x = n·ln2 + r with n = round(x / ln2), |r| ≤ ln2 / 2; exp(r) by its Taylor polynomial of
//   degree 6 (truncation error < 1.3e-7 relative); 2ⁿ built in the exponent bits.
// Results below exp(-87) (≈ 1.6e-38, near the smallest normal float) are 0, and so is exp(-inf); a
// NaN gives NaN (an overflowed score must not pass for a masked one).
// Relative error < 2.5e-7 elsewhere (tests/kernels/exp_test.cc).

// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_KERNELS_EXP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_KERNELS_EXP_INL_H_
#undef CTFORMER_KERNELS_EXP_INL_H_
#else
#define CTFORMER_KERNELS_EXP_INL_H_
#endif

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace ctformer::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class D, class V = hn::Vec<D>>
HWY_INLINE V exp_nonpositive(D d, V x) {
    const hn::RebindToSigned<D> di;
    // Adding 1.5·2²³ rounds x / ln2 to the integer n in the low mantissa bits, offset by the
    // exponent bias 127; shifting those 8 bits into the exponent field gives 2ⁿ (n ≥ -126 here).
    const V shifter = hn::Set(d, 12582912.0f + 127.0f);
    const V t = hn::MulAdd(x, hn::Set(d, 1.44269504088896341f), shifter);
    const V n = hn::Sub(t, shifter);
    // r = x - n·ln2 with ln2 in two parts, the first short enough that n times it is exact even
    // where MulAdd is not fused.
    const V r = hn::MulAdd(n, hn::Set(d, -1.428606765330187045e-6f), hn::MulAdd(n, hn::Set(d, -0.693145751953125f), x));
    V p = hn::Set(d, 1.0f / 720);
    p = hn::MulAdd(p, r, hn::Set(d, 1.0f / 120));
    p = hn::MulAdd(p, r, hn::Set(d, 1.0f / 24));
    p = hn::MulAdd(p, r, hn::Set(d, 1.0f / 6));
    p = hn::MulAdd(p, r, hn::Set(d, 0.5f));
    p = hn::MulAdd(p, r, hn::Set(d, 1.0f));
    p = hn::MulAdd(p, r, hn::Set(d, 1.0f));
    const V two_to_n = hn::BitCast(d, hn::ShiftLeft<23>(hn::BitCast(di, t)));
    return hn::IfThenZeroElse(hn::Lt(x, hn::Set(d, -87.0f)), hn::Mul(p, two_to_n));  // a NaN stays NaN
}

}  // namespace ctformer::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_KERNELS_EXP_INL_H_ toggle
