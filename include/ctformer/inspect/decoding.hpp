// decoding_table(program, cache layout, position, extents, target, gemms): the plan of one decoding step as it runs at the cache's
// position: each step's kernel, shape, MFLOP and the bytes it moves (its operands and output once,
// its packed weights, and for cached attention the keys and values it reads), a repeat's body step
// summed over its iterations; then the work and bytes per new token. Decoding is bound by those
// bytes: weights, then the cache, read once per step. Compiled once, in the ctformer library
// (src/inspect/decoding.cpp).
#pragma once

#include <string>

#include "../plan/program.hpp"
#include "../plan/cache_layout.hpp"
#include "profile.hpp"

namespace ctformer {

// One decoding step's work: its FLOPs, the bytes it moves, and of them the cached keys and values.
struct decoding_work {
    double flops = 0, bytes = 0, cached = 0;
};

// Step k's in a run of `at` (at.position the first new token's), every iteration of its repeat.
decoding_work decoding_work_of(const plan::program& p, const plan::cache_layout& cache, std::size_t k,
                               const plan::extent_values& at, kernels::precision format);

// The whole step's, its GEMMs' W in `format`.
decoding_work decoding_work_of(const plan::program& p, const plan::cache_layout& cache,
                               const plan::extent_values& at, kernels::precision format);

// Where the time of a decoding step of `at` went (at.position its first new token's): profile_table,
// with the bytes each step moved, the cached keys and values it read among them.
std::string decoding_profile(const plan::program& p, const plan::cache_layout& cache,
                             const std::vector<plan::step_record>& records, const plan::extent_values& at,
                             double peak_gflops, int threads, std::string_view target, const gemm_units& gemms);

// At `position`, the cache's positions filled.
std::string decoding_table(const plan::program& p, const plan::cache_layout& cache, std::size_t position,
                           plan::extent_values at, std::string_view target, const gemm_units& gemms);

}  // namespace ctformer
