// The FP32 FMA peak of one core on this target: eight independent FMA chains in its widest vectors,
// the most a core issues. The profile's "% of peak" (inspect/profile.hpp) and the benchmarks'
// peak/fma case measure this same loop.

// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_KERNELS_PEAK_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_KERNELS_PEAK_INL_H_
#undef CTFORMER_KERNELS_PEAK_INL_H_
#else
#define CTFORMER_KERNELS_PEAK_INL_H_
#endif

#include <algorithm>
#include <chrono>
#include <cstddef>

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace ctformer::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

inline constexpr std::size_t kFmaChains = 8;

// `steps` rounds of one FMA on each chain, which start at `start`; returns a lane of their sum. The
// caller keeps the result and hides `start` from the optimiser, so that no call is folded away.
HWY_NOINLINE inline float fma_chains(std::size_t steps, float start) {
    const hn::ScalableTag<float> d;
    const auto x = hn::Set(d, 0.999f), y = hn::Set(d, 1e-7f);
    auto a0 = hn::Set(d, start), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    for (std::size_t s = 0; s < steps; ++s) {
        a0 = hn::MulAdd(a0, x, y), a1 = hn::MulAdd(a1, x, y), a2 = hn::MulAdd(a2, x, y);
        a3 = hn::MulAdd(a3, x, y), a4 = hn::MulAdd(a4, x, y), a5 = hn::MulAdd(a5, x, y);
        a6 = hn::MulAdd(a6, x, y), a7 = hn::MulAdd(a7, x, y);
    }
    return hn::GetLane(hn::Add(hn::Add(hn::Add(a0, a1), hn::Add(a2, a3)), hn::Add(hn::Add(a4, a5), hn::Add(a6, a7))));
}

// The floating-point operations of fma_chains(steps).
inline double fma_chain_flops(std::size_t steps) {
    return 2.0 * double(kFmaChains) * double(steps) * double(hn::Lanes(hn::ScalableTag<float>()));
}

// GFLOP/s of one core, the best of five runs of about a millisecond each.
inline double fma_peak_gflops() {
    constexpr std::size_t steps = std::size_t{1} << 16;
    double best = 0;
    volatile float sink = 1.0f;
    for (int run = 0; run < 5; ++run) {
        const auto start = std::chrono::steady_clock::now();
        sink = fma_chains(steps, sink);
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        best = std::max(best, fma_chain_flops(steps) / took.count() / 1e9);
    }
    return best;
}

}  // namespace ctformer::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_KERNELS_PEAK_INL_H_ toggle
