// How far ahead the kernels that stream from memory (decoding: the GEMMs' W with a few rows of A,
// attention over a KV cache) prefetch: the same distance in bytes, so in time, whatever a step's
// width (AVX2's fp32 GEMM step is 96 bytes of W, AVX-512's 256, bf16's half). Measured on one Zen 5
// core, GPT-2 small decoding, ms per step (noise ±10%): AVX2 fp32 batch 8 52-53 at 1.5 KB ahead,
// 43-51 at 9 KB; bf16 batch 1 12.2-14.4 at 0.8 KB, 9.0-9.3 at 4.6 KB; AVX-512 alike at 4 and 8 KB,
// worse at 16. The attention over the cache, batch 8, 12 layers, alternating runs of one binary:
// AVX2 10.0-11.0 ms a step without prefetches, 8.1-8.3 with them; AVX-512 8.1-9.2, 6.9-7.7.
#pragma once

#include <cstddef>

namespace ctformer::kernels {

inline constexpr std::size_t kPrefetchBytes = 8192;
inline constexpr std::size_t kLineBytes = 64;  // a cache line, what one prefetch brings

}  // namespace ctformer::kernels
