// The bf16 GEMM's micro-tile on AVX512-BF16 (Zen 4 and 5, Sapphire Rapids, Cooper Lake): vdpbf16ps
// adds, in each of 16 fp32 lanes, the two products of a lane's pair of bf16 values (one K step's
// and the next's), twice the work of an fp32 FMA in one instruction. Highway 1.0.3 has no op for it,
// so this is plain intrinsics in a function compiled for the instruction set (the target attribute:
// no flags needed), called by gemm-inl.h on its 512-bit targets where available() says the CPU has
// it. The contract is gemm-inl.h's micro-tile over a K block: W's panel as packed (gemm.hpp, the
// bf16 pairs), A as packed pairs, Rows × 16·Vectors sums in and out.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "prefetch.hpp"
#include "tiles.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define CTFORMER_BF16_DOT 1
#define CTFORMER_BF16_DOT_TARGET __attribute__((target("avx512f,avx512bf16")))
#endif

namespace ctformer::kernels::bf16_dot {

inline constexpr std::size_t kLanes = 16;  // fp32 sums in a 512-bit vector

// Whether this CPU runs vdpbf16ps, and its OS keeps the 512-bit registers (libgcc checks both).
inline bool available() {
#ifdef CTFORMER_BF16_DOT
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16");
#else
    return false;
#endif
}

#ifdef CTFORMER_BF16_DOT
// The packed A's pairs, read as the floats whose bits they are were written (gemm-inl.h packs them
// with the fp32 packing's transposes): a type that may alias them.
using packed_pair = std::uint32_t __attribute__((may_alias));

// sums[r][·] (Rows × 16·Vectors fp32, 64-byte aligned) += Σ over `pairs` pair steps of A's row r
// pair · W's pairs: `a` holds Rows pairs a step (row r's values of steps 2s and 2s + 1), `w` a panel
// row of `width` pairs a step, read from its vector 0; the `ahead_bytes` from `ahead` are prefetched
// evenly over the steps, a line at a time (decoding's stream of W). vdpbf16ps's products are exact
// in fp32; each sum rounds to nearest, subnormals flushed to zero.
template <std::size_t Rows, std::size_t Vectors>
CTFORMER_BF16_DOT_TARGET void tile(const packed_pair* a, const std::uint32_t* w, std::size_t width, std::size_t pairs,
                                   float* sums, const char* ahead, std::size_t ahead_bytes) {
    __m512 acc[Rows][Vectors];
#pragma GCC unroll 16
    for (std::size_t r = 0; r < Rows; ++r)
#pragma GCC unroll 16
        for (std::size_t v = 0; v < Vectors; ++v) acc[r][v] = _mm512_load_ps(sums + (r * Vectors + v) * kLanes);
    const std::size_t per_step = pairs ? divide_up(ahead_bytes, pairs) : 0;
    std::size_t issued = 0;
    for (std::size_t s = 0; s < pairs; ++s, a += Rows, w += width) {
        for (const std::size_t due = std::min(ahead_bytes, per_step * (s + 1)); issued < due; issued += kLineBytes)
            _mm_prefetch(ahead + issued, _MM_HINT_T0);
        __m512bh b[Vectors];
#pragma GCC unroll 16
        for (std::size_t v = 0; v < Vectors; ++v) b[v] = (__m512bh)_mm512_load_si512(w + v * kLanes);
#pragma GCC unroll 16
        for (std::size_t r = 0; r < Rows; ++r) {
            const __m512bh x = (__m512bh)_mm512_set1_epi32(static_cast<int>(a[r]));
#pragma GCC unroll 16
            for (std::size_t v = 0; v < Vectors; ++v) acc[r][v] = _mm512_dpbf16_ps(acc[r][v], x, b[v]);
        }
    }
#pragma GCC unroll 16
    for (std::size_t r = 0; r < Rows; ++r)
#pragma GCC unroll 16
        for (std::size_t v = 0; v < Vectors; ++v) _mm512_store_ps(sums + (r * Vectors + v) * kLanes, acc[r][v]);
}

// x[0, n) rounded to bf16 (to the nearest, ties to even, as kernels::bfloat16_bits; subnormals
// flushed to zero) as ⌈n/2⌉ pairs, x[2i] in pair i's low half and x[2i + 1] in its high one (zero
// past n): row-major A as gemm-inl.h packs it. `pairs` holds their bits (the float buffer the GEMM
// packs A in). vcvtne2ps2bf16 converts 32 values an instruction, where one at a time the packing
// had taken a third of a GEMM's time.
CTFORMER_BF16_DOT_TARGET inline void to_pairs(const float* x, std::size_t n, float* pairs) {
    std::size_t i = 0;
    for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
        const __m512bh both = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(x + i + kLanes), _mm512_loadu_ps(x + i));
        _mm512_storeu_si512(pairs + i / 2, (__m512i)both);
    }
    if (i == n) return;
    const std::size_t left = n - i;  // under 32: masked loads (no lane past n is read) and store
    const auto low = static_cast<__mmask16>((1u << std::min<std::size_t>(left, kLanes)) - 1);
    const auto high = static_cast<__mmask16>((1u << (left > kLanes ? left - kLanes : 0)) - 1);
    const __m512bh both = _mm512_cvtne2ps_pbh(_mm512_maskz_loadu_ps(high, x + i + kLanes), _mm512_maskz_loadu_ps(low, x + i));
    _mm512_mask_storeu_epi32(pairs + i / 2, static_cast<__mmask16>((1u << divide_up(left, 2)) - 1), (__m512i)both);
}
#endif

// The peak of one core's vdpbf16ps, measured as kernels/peak-inl.h measures fp32's FMA: `steps`
// rounds of one instruction on each of kChains independent chains (distinct starts, so that they
// stay apart); returns a lane of their sum, to keep. 16 chains: with the FMA's 12 a Zen 5 core
// measured 10% less than with 16 or 24 (its latency is longer).
inline constexpr std::size_t kChains = 16;

#ifdef CTFORMER_BF16_DOT
CTFORMER_BF16_DOT_TARGET inline float dot_chains(std::size_t steps, float start) {
    const __m512bh x = (__m512bh)_mm512_set1_epi32(0x3a833a83), y = (__m512bh)_mm512_set1_epi32(0x3f803f80);  // 1e-3, 1
    __m512 chain[kChains];
#pragma GCC unroll 16
    for (std::size_t i = 0; i < kChains; ++i) chain[i] = _mm512_set1_ps(start + float(i));
    for (std::size_t s = 0; s < steps; ++s)
#pragma GCC unroll 16
        for (std::size_t i = 0; i < kChains; ++i) chain[i] = _mm512_dpbf16_ps(chain[i], x, y);
    __m512 sum = chain[0];
#pragma GCC unroll 16
    for (std::size_t i = 1; i < kChains; ++i) sum = _mm512_add_ps(sum, chain[i]);
    return _mm512_cvtss_f32(sum);
}
#endif

// The floating-point operations of dot_chains(steps): two products and two sums a lane.
inline double dot_chain_flops(std::size_t steps) { return 4.0 * double(kChains) * double(steps) * double(kLanes); }

// GFLOP/s of one core's vdpbf16ps, the best of five runs of about a millisecond each; 0 without it.
inline double dot_peak_gflops() {
    double best = 0;
#ifdef CTFORMER_BF16_DOT
    if (!available()) return 0;
    constexpr std::size_t steps = std::size_t{1} << 15;
    volatile float sink = 1.0f;
    for (int run = 0; run < 5; ++run) {
        const auto start = std::chrono::steady_clock::now();
        sink = dot_chains(steps, sink);
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        best = std::max(best, dot_chain_flops(steps) / took.count() / 1e9);
    }
#endif
    return best;
}

}  // namespace ctformer::kernels::bf16_dot
