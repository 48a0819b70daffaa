// The activations, a vector at a time (per-target code), for the GEMM epilogue and the elementwise
// kernel alike:
//   relu       max(x, 0)
//   gelu       x·Φ(x) = x·(1 - ½·erfc(x/√2)) for x ≥ 0, x·½·erfc(-x/√2) below: erfc in
//              Numerical Recipes' form t·exp(-z² + P(t)), t = 1/(1 + z/2), P of degree 9 (relative
//              error under 1.2e-7 for every z ≥ 0), so no cancellation where Φ is small
//   gelu_tanh  PyTorch's approximate='tanh': ½·x·(1 + tanh(u)), u = √(2/π)·(x + 0.044715·x³), which is
//              x·σ(2u), the logistic σ(z) taken as 1/(1 + e^-z) or e^z/(1 + e^z) by z's sign
//   tanh       sign(x)·(1 - e)/(1 + e), e = e^-2|x|; for |x| < 1/4, where 1 - e cancels, its Taylor
//              series to x⁹ (the next term is under 3e-9 of tanh x there)
//   silu       x·σ(x), σ as gelu_tanh's
// All four use the softmax's exp of a non-positive argument (exp-inl.h). Errors against std::erf
// and std::tanh in double: tests/kernels/activation_test.cc.

// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_KERNELS_ACTIVATION_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_KERNELS_ACTIVATION_INL_H_
#undef CTFORMER_KERNELS_ACTIVATION_INL_H_
#else
#define CTFORMER_KERNELS_ACTIVATION_INL_H_
#endif

#include <cstddef>
#include <utility>

#include <hwy/highway.h>

#include "../core/kinds.hpp"
#include "exp-inl.h"

HWY_BEFORE_NAMESPACE();
namespace ctformer::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ½·erfc(z) for z ≥ 0.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V half_erfc(D d, V z) {
    const V t = hn::Div(hn::Set(d, 1.0f), hn::MulAdd(z, hn::Set(d, 0.5f), hn::Set(d, 1.0f)));
    V p = hn::Set(d, 0.17087277f);
    for (const float c : {-0.82215223f, 1.48851587f, -1.13520398f, 0.27886807f, -0.18628806f, 0.09678418f,
                          0.37409196f, 1.00002368f, -1.26551223f})
        p = hn::MulAdd(p, t, hn::Set(d, c));
    const V exponent = hn::Min(hn::Sub(p, hn::Mul(z, z)), hn::Zero(d));  // ≤ 0 (it is 0 at z = 0, up to rounding)
    return hn::Mul(hn::Mul(hn::Set(d, 0.5f), t), exp_nonpositive(d, exponent));
}

template <class D, class V = hn::Vec<D>>
HWY_INLINE V gelu(D d, V x) {
    const V tail = half_erfc(d, hn::Mul(hn::Abs(x), hn::Set(d, 0.70710678118654752f)));  // Φ(-|x|)
    const V phi = hn::IfThenElse(hn::Lt(x, hn::Zero(d)), tail, hn::Sub(hn::Set(d, 1.0f), tail));
    return hn::Mul(x, phi);
}

// The logistic σ(z) = 1/(1 + e^-z) for z ≥ 0, e^z/(1 + e^z) below: no overflow, no cancellation.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V logistic(D d, V z) {
    const V e = exp_nonpositive(d, hn::Neg(hn::Abs(z)));  // e^-|z|
    const V one = hn::Set(d, 1.0f);
    return hn::Div(hn::IfThenElse(hn::Lt(z, hn::Zero(d)), e, one), hn::Add(one, e));
}

template <class D, class V = hn::Vec<D>>
HWY_INLINE V gelu_tanh(D d, V x) {
    const V x3 = hn::Mul(hn::Mul(x, x), x);
    const V z = hn::Mul(hn::Set(d, 1.5957691216057308f), hn::MulAdd(x3, hn::Set(d, 0.044715f), x));  // 2u
    return hn::Mul(x, logistic(d, z));
}

template <class D, class V = hn::Vec<D>>
HWY_INLINE V silu(D d, V x) {
    return hn::Mul(x, logistic(d, x));
}

template <class D, class V = hn::Vec<D>>
HWY_INLINE V tanh(D d, V x) {
    const V e = exp_nonpositive(d, hn::Mul(hn::Abs(x), hn::Set(d, -2.0f)));  // e^-2|x|
    const V one = hn::Set(d, 1.0f);
    const V magnitude = hn::Div(hn::Sub(one, e), hn::Add(one, e));
    const V x2 = hn::Mul(x, x);
    V series = hn::Set(d, 62.0f / 2835);
    for (const float c : {-17.0f / 315, 2.0f / 15, -1.0f / 3}) series = hn::MulAdd(series, x2, hn::Set(d, c));
    series = hn::MulAdd(hn::Mul(series, x2), x, x);
    const V far = hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::Neg(magnitude), magnitude);
    return hn::IfThenElse(hn::Lt(hn::Abs(x), hn::Set(d, 0.25f)), series, far);
}

template <activation Act, class D, class V = hn::Vec<D>>
HWY_INLINE V activate(D d, V x) {
    if constexpr (Act == activation::relu) return hn::Max(x, hn::Zero(d));
    else if constexpr (Act == activation::gelu) return gelu(d, x);
    else if constexpr (Act == activation::gelu_tanh) return gelu_tanh(d, x);
    else if constexpr (Act == activation::tanh) return tanh(d, x);
    else if constexpr (Act == activation::silu) return silu(d, x);
    else return x;
}

// f.template operator()<Act>() for Act = act, an activation known at run time.
template <class F>
void with_activation(activation act, F&& f) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        ((act == activations[I].second ? f.template operator()<activations[I].second>() : void()), ...);
    }(std::make_index_sequence<activations.size()>{});
}

// out[i] = act(in[i]) for i < n; the last values one lane at a time.
template <activation Act>
void activate_values(std::size_t n, const float* in, float* out) {
    const hn::ScalableTag<float> d;
    const hn::CappedTag<float, 1> one;
    const std::size_t lanes = hn::Lanes(d);
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes) hn::StoreU(activate<Act>(d, hn::LoadU(d, in + i)), d, out + i);
    for (; i < n; ++i) hn::StoreU(activate<Act>(one, hn::LoadU(one, in + i)), one, out + i);
}

}  // namespace ctformer::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_KERNELS_ACTIVATION_INL_H_ toggle
