// The machine's FP32 FMA peak on one core (and on several) for one Highway target, as benchmark
// cases: the library's FMA chains (ctformer/kernels/peak-inl.h), which the profile's "% of peak"
// measures too. Per-target code (foreach_target, or once for the static target, as in peak.hpp);
// the comparison measures it for the target it dispatches to.

// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_BENCH_PEAK_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_BENCH_PEAK_INL_H_
#undef CTFORMER_BENCH_PEAK_INL_H_
#else
#define CTFORMER_BENCH_PEAK_INL_H_
#endif

#include <benchmark/benchmark.h>
#include <hwy/highway.h>

#include <ctformer/kernels/peak-inl.h>

#include "gflops.hpp"

HWY_BEFORE_NAMESPACE();
namespace bench::HWY_NAMESPACE {
namespace kt = ctformer::kernels::HWY_NAMESPACE;

inline void fma_peak(benchmark::State& state) {
    constexpr std::size_t steps = std::size_t{1} << 12;
    float start = 1.0f;
    for (auto _ : state) {
        benchmark::DoNotOptimize(start);
        benchmark::DoNotOptimize(kt::fma_chains(steps, start));
    }
    state.counters["GFLOP/s"] = gflops(kt::fma_chain_flops(steps));
    state.SetLabel(hwy::TargetName(HWY_TARGET));
}

// The peak of `threads` cores, each running the chains at once (long enough that the fork is noise):
// below `threads` times one core's where the cores share their FMA units (SMT siblings of a VM).
inline void fma_peak_of(benchmark::State& state, int threads) {
    constexpr std::size_t steps = std::size_t{1} << 16;
    for (auto _ : state) {
#pragma omp parallel num_threads(threads)
        {
            float start = 1.0f;
            benchmark::DoNotOptimize(start);
            benchmark::DoNotOptimize(kt::fma_chains(steps, start));
        }
    }
    state.counters["GFLOP/s"] = gflops(threads * kt::fma_chain_flops(steps));
    state.SetLabel(hwy::TargetName(HWY_TARGET));
}

}  // namespace bench::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_BENCH_PEAK_INL_H_ toggle
