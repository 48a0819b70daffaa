// The machine's FP32 FMA peak on one core for the static target (peak-inl.h), registered as
// peak/fma/threads:1, and the GFLOP/s counter every benchmark reports against it.
#pragma once

#include <benchmark/benchmark.h>
#include <hwy/highway.h>

#include "gflops.hpp"
#include "peak-inl.h"

BENCHMARK(bench::HWY_NAMESPACE::fma_peak)->Name("peak/fma/threads:1");
BENCHMARK(bench::HWY_NAMESPACE::bf16_dot_peak)->Name("peak/bf16_dot/threads:1");
