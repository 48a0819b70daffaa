// The workloads of the comparison (issue 6), the FLOP formulas every peer is measured by, and the
// registration of one case per thread count under names "who/what/workload/threads:N".
//
// FLOPs, dense (a causal run is credited with the full square, so skipping masked blocks shows as
// speed):   MHA      2·B·L·d·4d (Q, K, V and output projections) + 4·B·L²·d (scores and P·V)
//           encoder  MHA + 4·B·L·d·d_ff (the feed-forward network); LayerNorms, softmax, bias and
//                    activation are not counted.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gflops.hpp"

namespace bench {

struct workload {
    const char* name;
    int batch, length, d_model, heads, d_ff;
    bool causal;

    double mha_flops() const {
        const double tokens = double(batch) * length;
        return 2.0 * tokens * d_model * 4.0 * d_model + 4.0 * tokens * length * d_model;
    }
    double encoder_flops(int layers = 1) const {
        return layers * (mha_flops() + 4.0 * double(batch) * length * d_model * d_ff);
    }
};

inline constexpr workload S1{"S1", 2, 10, 512, 8, 2048, false};     // the seeds' example
inline constexpr workload S2{"S2", 8, 128, 512, 8, 2048, false};
inline constexpr workload S3{"S3", 1, 512, 768, 12, 3072, false};   // BERT-base
inline constexpr workload S4{"S4", 8, 128, 512, 8, 2048, true};     // S2, causal
inline constexpr workload S5{"S5", 1, 2048, 512, 8, 2048, false};   // long: attention-bound

// 1, 2 and every hardware thread.
inline std::vector<int> thread_counts() {
    std::vector<int> counts{1, 2};
    const int all = static_cast<int>(std::thread::hardware_concurrency());
    if (all > 2) counts.push_back(all);
    return counts;
}

// Registers body(state, threads) as who/what/workload/threads:N for each thread count, reporting
// GFLOP/s by the formula above.
inline void register_case(const std::string& who, const std::string& what, double flops, const workload& w,
                          std::function<void(benchmark::State&, int)> body) {
    for (int threads : thread_counts()) {
        const std::string name = who + "/" + what + "/" + w.name + "/threads:" + std::to_string(threads);
        benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
            body(state, threads);
            state.counters["GFLOP/s"] = gflops(flops);
        })->UseRealTime()->Unit(benchmark::kMillisecond);
    }
}

// Uniform values in [-bound, bound], the same for every peer given the same seed.
inline std::vector<float> random_values(std::size_t n, float bound, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(-bound, bound);
    std::vector<float> v(n);
    for (float& x : v) x = uniform(rng);
    return v;
}

}  // namespace bench
