// profile_table(program, records, extents, peak, threads): where a run's time went, step by step, as
// oneDNN's verbose mode and PyTorch's profiler show it. Each step of the plan (a repeat's body step
// summed over its iterations) with its measured time, GFLOP/s, the bytes it moves at the least (every
// slot it reads and its output once, its packed weights included) and their rate, and its share of
// the FMA peak of the cores it ran on (the run's threads, or one for a small step:
// program::threads_of): a step far below the peak at a high GB/s is bound by memory, not by FMAs.
// A GEMM's share is of its unit's peak (gemm_units: bf16's dot products), and its kernel is named
// with its precision and unit where they are not fp32's.
// The records are what run_options::profile collected in one run. A decoding step's table
// (decoding.hpp) gives each step's bytes, the cached keys and values it read among them. Compiled
// once, in the ctformer library (src/inspect/profile.cpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "../plan/program.hpp"

namespace ctformer {

// What a model's GEMMs compute in and run on, and that unit's peak of the run's cores (0: the FMA's).
struct gemm_units {
    kernels::precision precision = kernels::precision::fp32;
    kernels::gemm_unit unit = kernels::gemm_unit::fp32;
    double peak_gflops = 0;
};

std::string profile_table(const plan::program& p, const std::vector<plan::step_record>& records,
                          const plan::extent_values& at, double peak_gflops, int threads, std::string_view target,
                          const gemm_units& gemms = {}, const std::vector<double>& step_bytes = {});

}  // namespace ctformer
