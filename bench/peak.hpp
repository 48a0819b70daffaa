// The machine's FP32 FMA peak on one core, measured in the benchmark binary itself, and the GFLOP/s
// counter every benchmark reports against it.
#pragma once

#include <benchmark/benchmark.h>
#include <hwy/highway.h>

namespace hn = hwy::HWY_NAMESPACE;

// A rate counter of `flops` per iteration, in GFLOP/s.
static benchmark::Counter gflops(double flops) {
    return benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}

// Independent FMA chains in the widest vectors: what one core can do at best.
template <class V>
HWY_INLINE void fma_steps(V& a0, V& a1, V& a2, V& a3, V& a4, V& a5, V& a6, V& a7, V x, V y, int steps) {
    for (int s = 0; s < steps; ++s) {
        a0 = hn::MulAdd(a0, x, y), a1 = hn::MulAdd(a1, x, y), a2 = hn::MulAdd(a2, x, y);
        a3 = hn::MulAdd(a3, x, y), a4 = hn::MulAdd(a4, x, y), a5 = hn::MulAdd(a5, x, y);
        a6 = hn::MulAdd(a6, x, y), a7 = hn::MulAdd(a7, x, y);
    }
}

static void fma_peak(benchmark::State& state) {
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
}
BENCHMARK(fma_peak)->Name("peak/fma/threads:1");
