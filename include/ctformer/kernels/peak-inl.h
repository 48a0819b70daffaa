// The FP32 FMA peak of one core on this target: independent FMA chains in its widest vectors, the
// most a core issues. The profile's "% of peak" (inspect/profile.hpp) and the benchmarks' peak/fma
// case measure this same loop.

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

// Enough independent chains to fill every FMA pipe while each waits out its latency (2 pipes × 4 to
// 5 cycles on the cores we meet), and few enough to stay in AVX2's 16 registers.
inline constexpr std::size_t kFmaChains = 12;

// `steps` rounds of one FMA on each chain; returns a lane of their sum. The chains start at distinct
// values: with one start for all, GCC merged them into a single chain, which ran at one FMA per
// latency, and that had been counted as the peak (right by chance where the pipes × latency are 8,
// twice the truth on AMD's 256-bit-wide AVX-512). The caller keeps the result and hides `start`
// from the optimiser, so that no call is folded away.
HWY_NOINLINE inline float fma_chains(std::size_t steps, float start) {
    const hn::ScalableTag<float> d;
    const auto x = hn::Set(d, 0.999f), y = hn::Set(d, 1e-7f);
    hn::Vec<decltype(d)> chain[kFmaChains];
#pragma GCC unroll 16
    for (std::size_t i = 0; i < kFmaChains; ++i) chain[i] = hn::Set(d, start + float(i));
    for (std::size_t s = 0; s < steps; ++s)
#pragma GCC unroll 16
        for (std::size_t i = 0; i < kFmaChains; ++i) chain[i] = hn::MulAdd(chain[i], x, y);
    auto sum = chain[0];
#pragma GCC unroll 16
    for (std::size_t i = 1; i < kFmaChains; ++i) sum = hn::Add(sum, chain[i]);
    return hn::GetLane(sum);
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
