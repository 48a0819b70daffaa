// The machine's FP32 FMA peak on one core for one Highway target: independent FMA chains in that
// target's widest vectors. Per-target code (foreach_target, or once for the static target, as in
// peak.hpp); the comparison measures it for the target it dispatches to.

// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_BENCH_PEAK_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_BENCH_PEAK_INL_H_
#undef CTFORMER_BENCH_PEAK_INL_H_
#else
#define CTFORMER_BENCH_PEAK_INL_H_
#endif

#include <benchmark/benchmark.h>
#include <hwy/highway.h>

#include "gflops.hpp"

HWY_BEFORE_NAMESPACE();
namespace bench::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class V>
HWY_INLINE void fma_steps(V& a0, V& a1, V& a2, V& a3, V& a4, V& a5, V& a6, V& a7, V x, V y, int steps) {
    for (int s = 0; s < steps; ++s) {
        a0 = hn::MulAdd(a0, x, y), a1 = hn::MulAdd(a1, x, y), a2 = hn::MulAdd(a2, x, y);
        a3 = hn::MulAdd(a3, x, y), a4 = hn::MulAdd(a4, x, y), a5 = hn::MulAdd(a5, x, y);
        a6 = hn::MulAdd(a6, x, y), a7 = hn::MulAdd(a7, x, y);
    }
}

inline void fma_peak(benchmark::State& state) {
    const hn::ScalableTag<float> d;
    constexpr int chains = 8, steps = 1 << 12;
    const auto x = hn::Set(d, 0.999f), y = hn::Set(d, 1e-7f);
    auto a0 = hn::Set(d, 1.0f), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    for (auto _ : state) {
        fma_steps(a0, a1, a2, a3, a4, a5, a6, a7, x, y, steps);
        benchmark::ClobberMemory();
    }
    const auto sum = hn::Add(hn::Add(hn::Add(a0, a1), hn::Add(a2, a3)), hn::Add(hn::Add(a4, a5), hn::Add(a6, a7)));
    float sink = hn::GetLane(sum);
    benchmark::DoNotOptimize(sink);
    const double flops = 2.0 * chains * steps * hn::Lanes(d);
    state.counters["GFLOP/s"] = gflops(flops);
    state.SetLabel(hwy::TargetName(HWY_TARGET));
}

}  // namespace bench::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_BENCH_PEAK_INL_H_ toggle
