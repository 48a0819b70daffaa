// How far ahead the kernels that stream from memory (decoding: the GEMMs' W with a few rows of A,
// attention over a KV cache) prefetch: the same distance in bytes, so in time, whatever a step's
// width (AVX2's fp32 GEMM step is 96 bytes of W, AVX-512's 256, bf16's half). 8 KB: shorter
// distances were slower, and so was 16 KB (docs/performance.md).
#pragma once

#include <cstddef>

namespace ctformer::kernels {

inline constexpr std::size_t kPrefetchBytes = 8192;
inline constexpr std::size_t kLineBytes = 64;  // a cache line, what one prefetch brings

}  // namespace ctformer::kernels
