// Kernel throughput, single thread, against the machine's FP32 FMA peak measured in the same run:
// the GEMM at the projection shapes of issue 3, and the fused attention core (one head, d_k = 64).
// Built for the compiler's static target:
//   cmake -S . -B build-bench -DCTFORMER_BUILD_BENCH=ON -DCTFORMER_BUILD_TESTS=OFF
//   cmake --build build-bench --target kernel_bench && build-bench/bench/kernel_bench
#include <benchmark/benchmark.h>
#include <hwy/highway.h>

#include <random>
#include <vector>

#include <ctformer/kernels/attention-inl.h>
#include <ctformer/kernels/gemm-inl.h>

namespace hn = hwy::HWY_NAMESPACE;
namespace kt = ctformer::kernels::HWY_NAMESPACE;

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

template <std::size_t N, std::size_t K>
static void gemm(benchmark::State& state) {
    const std::size_t m = 1024;
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> a(m * K), w(N * K), bias(N), c(m * N);
    for (auto* t : {&a, &w, &bias})
        for (float& x : *t) x = uniform(rng);
    const auto packed = kt::pack_weight<N, K>(w.data(), bias.data());
    using epilogue = ctformer::kernels::epilogue<true, ctformer::kernels::activation::none, false>;
    for (auto _ : state) {
        kt::gemm<N, K, epilogue>(m, a.data(), packed, c.data(), {bias.data(), nullptr});
        benchmark::DoNotOptimize(c.data());
    }
    state.counters["GFLOP/s"] = gflops(2.0 * m * N * K);
}
BENCHMARK(gemm<512, 512>)->Name("ctformer/gemm/M1024_N512_K512/threads:1");
BENCHMARK(gemm<2048, 512>)->Name("ctformer/gemm/M1024_N2048_K512/threads:1");
BENCHMARK(gemm<512, 2048>)->Name("ctformer/gemm/M1024_N512_K2048/threads:1");

template <std::size_t L, ctformer::kernels::causal Causal>
static void attention(benchmark::State& state) {
    constexpr std::size_t dk = 64;
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> q(L * dk), k(L * dk), v(L * dk), out(L * dk);
    for (auto* t : {&q, &k, &v})
        for (float& x : *t) x = uniform(rng);
    kt::attention_scratch<L, dk, dk> scratch;
    const ctformer::kernels::attention_args args{0.125f, nullptr};
    for (auto _ : state) {
        kt::attention<L, L, dk, dk, Causal>(q.data(), k.data(), v.data(), out.data(), args, scratch);
        benchmark::DoNotOptimize(out.data());
    }
    // Q·Kᵀ and P·V: 4·L²·d_k FLOPs (counted in full, also for causal)
    state.counters["GFLOP/s"] = gflops(4.0 * L * L * dk);
}
using ctformer::kernels::causal;
BENCHMARK(attention<10, causal::none>)->Name("ctformer/attention/L10_dk64/threads:1");
BENCHMARK(attention<128, causal::none>)->Name("ctformer/attention/L128_dk64/threads:1");
BENCHMARK(attention<512, causal::none>)->Name("ctformer/attention/L512_dk64/threads:1");
BENCHMARK(attention<512, causal::top_left>)->Name("ctformer/attention/L512_dk64_causal/threads:1");

BENCHMARK_MAIN();
