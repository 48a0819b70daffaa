// Kernel throughput, single thread, against the machine's FP32 FMA peak measured in the same run:
// the GEMM at the projection shapes of issue 3 (1024 rows) and at S1's 20 rows, LLaMA's gated
// gate/up GEMM and its Q/K/V GEMM with rotary positions, and the fused attention core (one head,
// d_k = 64).
// Built for the compiler's static target:
//   cmake -S . -B build-bench -DCTFORMER_BUILD_BENCH=ON -DCTFORMER_BUILD_TESTS=OFF
//   cmake --build build-bench --target kernel_bench && build-bench/bench/kernel_bench
#include <benchmark/benchmark.h>
#include <hwy/highway.h>

#include <random>
#include <vector>

#include <ctformer/kernels/attention-inl.h>
#include <ctformer/kernels/gemm-inl.h>
#include <ctformer/kernels/rows-inl.h>

namespace kt = ctformer::kernels::HWY_NAMESPACE;

#include "peak.hpp"

template <std::size_t N, std::size_t K, std::size_t m = 1024, auto format = ctformer::kernels::precision::fp32,
          ctformer::activation act = ctformer::activation::none>
static void gemm(benchmark::State& state) {
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> a(m * K), w(N * K), bias(N), c(m * N);
    for (auto* t : {&a, &w, &bias})
        for (float& x : *t) x = uniform(rng);
    const auto packed = kt::pack_weight(N, K, w.data(), bias.data(), format);
    for (auto _ : state) {
        kt::gemm(m, a.data(), packed, c.data(), {.act = act});
        benchmark::DoNotOptimize(c.data());
    }
    state.counters["GFLOP/s"] = gflops(2.0 * m * N * K);
}
BENCHMARK(gemm<512, 512>)->Name("ctformer/gemm/M1024_N512_K512/threads:1");
BENCHMARK(gemm<2048, 512>)->Name("ctformer/gemm/M1024_N2048_K512/threads:1");
BENCHMARK(gemm<512, 2048>)->Name("ctformer/gemm/M1024_N512_K2048/threads:1");
// S3's (BERT-base, 512 tokens): the Q/K/V projection, FFN1 and FFN2.
BENCHMARK(gemm<2304, 768, 512>)->Name("ctformer/gemm/M512_N2304_K768/threads:1");
BENCHMARK(gemm<3072, 768, 512>)->Name("ctformer/gemm/M512_N3072_K768/threads:1");
// FFN1 with BERT's gelu, the costliest epilogue, applied to a panel's rows of C after their last K
// block (finish_panel).
BENCHMARK(gemm<3072, 768, 512, ctformer::kernels::precision::fp32, ctformer::activation::gelu>)
    ->Name("ctformer/gemm_gelu/M512_N3072_K768/threads:1");
BENCHMARK(gemm<3072, 768, 1, ctformer::kernels::precision::fp32, ctformer::activation::gelu>)
    ->Name("ctformer/gemm_gelu/M1_N3072_K768/threads:1");
BENCHMARK(gemm<768, 3072, 512>)->Name("ctformer/gemm/M512_N768_K3072/threads:1");
// S1's 20 tokens: few rows per weight, whose 4 MB come from L3 on every call.
BENCHMARK(gemm<2048, 512, 20>)->Name("ctformer/gemm/M20_N2048_K512/threads:1");
BENCHMARK(gemm<2048, 512, 1024, ctformer::kernels::precision::bf16>)->Name("ctformer/gemm_bf16/M1024_N2048_K512/threads:1");
// Decoding's GEMV: GPT-2's FFN1 for one token, W (9.4 MB fp32) from memory on every call.
BENCHMARK(gemm<3072, 768, 1>)->Name("ctformer/gemm/M1_N3072_K768/threads:1");
BENCHMARK(gemm<3072, 768, 1, ctformer::kernels::precision::bf16>)->Name("ctformer/gemm_bf16/M1_N3072_K768/threads:1");

// LLaMA's gate and up projections at TinyLlama's widths (d_model 2048, d_ff 5632): one gated GEMM,
// silu(gate) · up in its epilogue (kernels/gemm.hpp), against the two GEMMs (silu in the gate's
// epilogue) and the product apart. Prefill's 512 tokens in fp32, and decoding's one token with bf16
// weights (46 MB from memory a call: the counter "GB/s" is W's bytes read).
template <std::size_t F, std::size_t K, std::size_t m, bool Fused, auto format = ctformer::kernels::precision::fp32>
static void gate_up(benchmark::State& state) {
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> a(m * K), w(2 * F * K), out(m * F), gate(m * F), up(m * F);
    for (auto* t : {&a, &w})
        for (float& x : *t) x = uniform(rng);
    const auto gated = kt::pack_gated_weight(F, K, w.data(), nullptr, format);
    const auto gate_w = kt::pack_weight(F, K, w.data(), nullptr, format);
    const auto up_w = kt::pack_weight(F, K, w.data() + F * K, nullptr, format);
    std::vector<float> sums(m * gated.n);
    for (auto _ : state) {
        if constexpr (Fused) {
            kt::gemm(m, a.data(), gated, sums.data(), {.act = ctformer::activation::silu, .gated_out = out.data()});
        } else {
            kt::gemm(m, a.data(), gate_w, gate.data(), {.act = ctformer::activation::silu});
            kt::gemm(m, a.data(), up_w, up.data());
            for (std::size_t i = 0; i < m * F; ++i) out[i] = gate[i] * up[i];
        }
        benchmark::DoNotOptimize(out.data());
    }
    state.counters["GFLOP/s"] = gflops(4.0 * m * F * K);
    if (m == 1) state.counters["GB/s"] = benchmark::Counter(2.0 * F * K * ctformer::kernels::element_bytes(format) / 1e9,
                                                           benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(gate_up<5632, 2048, 512, true>)->Name("ctformer/gated_gemm/M512_F5632_K2048/threads:1");
BENCHMARK(gate_up<5632, 2048, 512, false>)->Name("unfused/gated_gemm/M512_F5632_K2048/threads:1");
BENCHMARK(gate_up<5632, 2048, 1, true, ctformer::kernels::precision::bf16>)
    ->Name("ctformer/gated_gemm_bf16/M1_F5632_K2048/threads:1");
BENCHMARK(gate_up<5632, 2048, 1, false, ctformer::kernels::precision::bf16>)
    ->Name("unfused/gated_gemm_bf16/M1_F5632_K2048/threads:1");

// TinyLlama's Q/K/V projection for 512 tokens (d_model 2048; 32 query heads and 4 key/value heads
// of 64): rotary positions on the q and k columns in the epilogue (rotate_heads), against the same
// GEMM without them.
template <bool Rotated>
static void qkv(benchmark::State& state) {
    constexpr std::size_t m = 512, n = 2560, k = 2048, pairs = 32;
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> a(m * k), w(n * k), c(m * n), angles(m * 2 * pairs);
    for (auto* t : {&a, &w, &angles})
        for (float& x : *t) x = uniform(rng);
    const auto packed = kt::pack_weight(n, k, w.data());
    ctformer::kernels::epilogue_args args;
    if (Rotated) args.rotary = {.angles = angles.data(), .columns = 2304, .head_dim = 64, .pairs = pairs, .position = {.length = m}};
    for (auto _ : state) {
        kt::gemm(m, a.data(), packed, c.data(), args);
        benchmark::DoNotOptimize(c.data());
    }
    state.counters["GFLOP/s"] = gflops(2.0 * m * n * k);
}
BENCHMARK(qkv<true>)->Name("ctformer/gemm_rotary/M512_N2560_K2048/threads:1");
BENCHMARK(qkv<false>)->Name("ctformer/gemm/M512_N2560_K2048/threads:1");

template <std::size_t L, ctformer::causality Causal>
static void attention(benchmark::State& state) {
    constexpr std::size_t dk = 64;
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> q(L * dk), k(L * dk), v(L * dk), out(L * dk);
    for (auto* t : {&q, &k, &v})
        for (float& x : *t) x = uniform(rng);
    using scratch_type = kt::attention_scratch<dk, dk>;
    const auto memory = hwy::AllocateAligned<std::byte>(scratch_type::bytes(L, L));
    scratch_type scratch(memory.get(), L, L);
    const ctformer::kernels::attention_args args{0.125f, nullptr};
    for (auto _ : state) {
        kt::attention<dk, dk, Causal>(q.data(), k.data(), v.data(), out.data(), args, scratch);
        benchmark::DoNotOptimize(out.data());
    }
    // Q·Kᵀ and P·V: 4·L²·d_k FLOPs (counted in full, also for causal)
    state.counters["GFLOP/s"] = gflops(4.0 * L * L * dk);
}
// The same attention unfused, the way separate kernels would run it: scores = Q·Kᵀ (a GEMM against
// K packed per call), scaled, softmax rows, then P·V (a GEMM against Vᵀ packed per call), with an
// [L, L] buffer in between.
template <std::size_t L>
static void unfused_attention(benchmark::State& state) {
    constexpr std::size_t dk = 64;
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> q(L * dk), k(L * dk), v(L * dk), v_t(dk * L), scores(L * L), out(L * dk);
    for (auto* t : {&q, &k, &v})
        for (float& x : *t) x = uniform(rng);
    for (auto _ : state) {
        kt::gemm(L, q.data(), kt::pack_weight(L, dk, k.data()), scores.data());
        for (float& s : scores) s *= 0.125f;
        kt::softmax(L, L, scores.data(), scores.data());
        for (std::size_t j = 0; j < L; ++j)
            for (std::size_t c = 0; c < dk; ++c) v_t[c * L + j] = v[j * dk + c];
        kt::gemm(L, scores.data(), kt::pack_weight(dk, L, v_t.data()), out.data());
        benchmark::DoNotOptimize(out.data());
    }
    state.counters["GFLOP/s"] = gflops(4.0 * L * L * dk);
}
BENCHMARK(unfused_attention<10>)->Name("unfused/attention/L10_dk64/threads:1");
BENCHMARK(unfused_attention<128>)->Name("unfused/attention/L128_dk64/threads:1");
BENCHMARK(unfused_attention<512>)->Name("unfused/attention/L512_dk64/threads:1");

using ctformer::causality;
BENCHMARK(attention<10, causality::none>)->Name("ctformer/attention/L10_dk64/threads:1");
BENCHMARK(attention<128, causality::none>)->Name("ctformer/attention/L128_dk64/threads:1");
BENCHMARK(attention<512, causality::none>)->Name("ctformer/attention/L512_dk64/threads:1");
BENCHMARK(attention<512, causality::top_left>)->Name("ctformer/attention/L512_dk64_causal/threads:1");

BENCHMARK_MAIN();
