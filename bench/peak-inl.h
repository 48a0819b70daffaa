// The machine's FP32 FMA peak on one core (and on several) for one Highway target, as benchmark
// cases: the library's FMA chains (ctformer/kernels/peak-inl.h), which the profile's "% of peak"
// measures too; and one core's read bandwidth, the limit of a decoding step. Per-target code (foreach_target, or once for the static target, as in peak.hpp);
// the comparison measures it for the target it dispatches to.

// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_BENCH_PEAK_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_BENCH_PEAK_INL_H_
#undef CTFORMER_BENCH_PEAK_INL_H_
#else
#define CTFORMER_BENCH_PEAK_INL_H_
#endif

#include <algorithm>

#include <benchmark/benchmark.h>
#include <hwy/aligned_allocator.h>
#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <ctformer/kernels/bf16_dot.hpp>
#include <ctformer/kernels/peak-inl.h>

#include "gflops.hpp"

HWY_BEFORE_NAMESPACE();
namespace bench::HWY_NAMESPACE {
namespace kt = ctformer::kernels::HWY_NAMESPACE;
namespace hn = hwy::HWY_NAMESPACE;

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

// The same for AVX512-BF16's vdpbf16ps (kernels/bf16_dot.hpp), the bf16 GEMM's unit where the CPU
// has it; "not on this CPU" in its label elsewhere.
inline void bf16_dot_peak(benchmark::State& state) {
    constexpr std::size_t steps = std::size_t{1} << 12;
    float start = 1.0f;
    for (auto _ : state) {
#ifdef CTFORMER_BF16_DOT
        if (ctformer::kernels::bf16_dot::available()) {
            benchmark::DoNotOptimize(start);
            benchmark::DoNotOptimize(ctformer::kernels::bf16_dot::dot_chains(steps, start));
        }
#endif
    }
    const bool ran = ctformer::kernels::bf16_dot::available();
    state.counters["GFLOP/s"] = gflops(ran ? ctformer::kernels::bf16_dot::dot_chain_flops(steps) : 0.0);
    state.SetLabel(ran ? "avx512bf16" : "not on this CPU");
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

// One core reading 1 GiB once per iteration, four vector sums, each line prefetched 4 KiB ahead as
// the GEMMs do: the bandwidth a decoding step can have.
inline void read_bandwidth(benchmark::State& state) {
    const std::size_t floats = std::size_t{1} << 28;
    const auto data = hwy::AllocateAligned<float>(floats);
    std::fill_n(data.get(), floats, 1.0f);
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d);
    for (auto _ : state) {
        auto s0 = hn::Zero(d), s1 = s0, s2 = s0, s3 = s0;
        for (std::size_t i = 0; i < floats; i += 4 * lanes) {
            for (std::size_t line = 0; line < 4 * lanes; line += 16) hwy::Prefetch(data.get() + i + line + 1024);
            s0 = hn::Add(s0, hn::Load(d, data.get() + i));
            s1 = hn::Add(s1, hn::Load(d, data.get() + i + lanes));
            s2 = hn::Add(s2, hn::Load(d, data.get() + i + 2 * lanes));
            s3 = hn::Add(s3, hn::Load(d, data.get() + i + 3 * lanes));
        }
        benchmark::DoNotOptimize(hn::GetLane(hn::Add(hn::Add(s0, s1), hn::Add(s2, s3))));
    }
    state.counters["GB/s"] = benchmark::Counter(double(floats * sizeof(float)) / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace bench::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_BENCH_PEAK_INL_H_ toggle
