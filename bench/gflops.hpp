// The GFLOP/s counter every benchmark reports.
#pragma once

#include <benchmark/benchmark.h>

// A rate counter of `flops` per iteration, in GFLOP/s.
inline benchmark::Counter gflops(double flops) {
    return benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}
