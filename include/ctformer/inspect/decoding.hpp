// decoding_table(program, cache layout, position, extents, target, format): the plan of one decoding step as it runs at the cache's
// position: each step's kernel, shape, MFLOP and the bytes it moves (its operands and output once,
// its packed weights, and for cached attention the keys and values it reads), a repeat's body step
// summed over its iterations; then the work and bytes per new token. Decoding is bound by those
// bytes: weights, then the cache, read once per step.
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
inline decoding_work decoding_work_of(const plan::program& p, const plan::cache_layout& cache, std::size_t k,
                                      const plan::extent_values& at, kernels::weight_format format) {
    const plan::step& s = p.steps[k];
    const double iterations = s.repeat < 0 ? 1 : p.repeats[s.repeat].count;
    double cached = 0;
    for (std::size_t t = 0; t < cache.tokens(at); ++t) cached += cache.bytes_read(k, at.position + t) * double(at.batch);
    return {s.flops(at) * iterations, p.bytes_moved(k, at, format) * iterations + cached, cached};
}

// The whole step's, its GEMMs' W in `format`.
inline decoding_work decoding_work_of(const plan::program& p, const plan::cache_layout& cache,
                                      const plan::extent_values& at, kernels::weight_format format) {
    decoding_work total;
    for (std::size_t k = 0; k < p.steps.size(); ++k) {
        const decoding_work w = decoding_work_of(p, cache, k, at, format);
        total = {total.flops + w.flops, total.bytes + w.bytes, total.cached + w.cached};
    }
    return total;
}

// Where the time of a decoding step of `at` went (at.position its first new token's): profile_table,
// with the bytes each step moved, the cached keys and values it read among them.
inline std::string decoding_profile(const plan::program& p, const plan::cache_layout& cache,
                                    const std::vector<plan::step_record>& records, const plan::extent_values& at,
                                    double peak_gflops, int threads, std::string_view target,
                                    kernels::weight_format format) {
    std::vector<double> bytes(p.steps.size());
    for (std::size_t k = 0; k < p.steps.size(); ++k) bytes[k] = decoding_work_of(p, cache, k, at, format).bytes;
    return profile_table(p, records, at, peak_gflops, threads, target, format, bytes);
}

// At `position`, the cache's positions filled.
inline std::string decoding_table(const plan::program& p, const plan::cache_layout& cache, std::size_t position,
                                  plan::extent_values at, std::string_view target, kernels::weight_format format) {
    using detail::format_row;
    at.position = position;
    const double tokens = double(cache.tokens(at) * at.batch);
    std::string text = format_row("== decoding step (%s, %s GEMM weights): %s at position %zu of %zu ==\n",
                                  std::string(target).c_str(), kernels::format_name(format), p.extents_text(at).c_str(),
                                  at.position, cache.capacity());
    text += format_row("%-3s %-32s %-16s %10s %10s  %s\n", "#", "kernel", "shape", "MFLOP", "MB moved", "details");
    for (std::size_t k = 0; k < p.steps.size(); ++k) {
        const plan::step& s = p.steps[k];
        const decoding_work w = decoding_work_of(p, cache, k, at, format);
        const std::string detail = s.repeat < 0 ? s.detail : "×" + std::to_string(p.repeats[s.repeat].count) + " " + s.detail;
        text += format_row("%-3zu %-32s %-16s %10.3f %10.3f  %s\n", k, ((s.repeat >= 0 ? "  " : "") + s.kernel).c_str(),
                           p.slots[s.writes].shape_text().c_str(), w.flops / 1e6, w.bytes / 1e6, detail.c_str());
    }
    const decoding_work total = decoding_work_of(p, cache, at, format);
    return text + format_row("per token: %.3f MFLOP, %.3f MB moved (%.3f MB of them cached keys and values); "
                             "the cache holds %.2f MiB\n",
                             total.flops / 1e6 / tokens, total.bytes / 1e6 / tokens, total.cached / 1e6 / tokens,
                             double(cache.bytes()) / 1048576.0);
}

}  // namespace ctformer
