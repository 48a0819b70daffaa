// What the GEMM kernel computes (the parts without SIMD; gemm-inl.h has the loops):
//
//   C[i, j] = act(Σ_k A[i, k] · W[j, k] + bias[j]) + residual[i, j]
//
// W is [N, K], PyTorch's linear layout, packed once per target into panels (gemm-inl.h); each term
// after the sum is optional (core/kinds.hpp: the epilogue). A gated GEMM (LLaMA's SwiGLU) packs
// W = [W_gate | W_up] of 2F rows so that each gate panel sits beside the up panel of the same
// columns, and writes out[i, j] = act(C[i, gate j]) · C[i, up j] (+ residual) once both have their sums.
#pragma once

#include <cstddef>
#include <cstdint>

#include <hwy/aligned_allocator.h>

#include "../core/kinds.hpp"
#include "bfloat16.hpp"
#include "rotary.hpp"

namespace ctformer::kernels {

// The epilogue after the bias, chosen at run time: act, then the residual where one is given, then
// rotary positions (rotary_args). The
// bias is the packed weight's (zeros for a GEMM without one). The residual is [rows, N], row-major;
// with residual_rows > 0 it has only that many rows, repeated (a [L, N] table added to every
// sequence of [B·L, N]); with residual_row_of, row r adds the table's row residual_row_of[r] (a
// packed batch's positions).
struct epilogue_args {
    activation act = activation::none;
    float* gated_out = nullptr;  // a gated GEMM's output [rows, F]; C is then its scratch
    const float* residual = nullptr;
    std::size_t residual_rows = 0;
    const std::size_t* residual_row_of = nullptr;
    rotary_args rotary = {};  // after everything else
};

// A GEMM's compute precision. bf16 rounds W and A (the GEMM's inputs) to the nearest bfloat16 (8
// bits of fp32's exponent, 7 of its mantissa): half the bytes of W to read (decoding), and where the
// CPU has them, bf16 dot products at twice fp32's rate. Their products are exact in fp32 and every
// sum stays fp32: only the inputs' rounding differs from fp32.
enum class precision { fp32, bf16 };

inline const char* precision_name(precision f) { return f == precision::bf16 ? "bf16" : "fp32"; }

// Bytes per element of W stored as f.
constexpr std::size_t element_bytes(precision f) { return f == precision::bf16 ? 2 : 4; }

// Which micro-kernel a packed weight runs on, chosen once as it is packed, by what the CPU has:
// fp32 FMAs; bf16 widened to fp32 (exact) for fp32 FMAs; AVX512-BF16's dot products (bf16_dot.hpp).
enum class gemm_unit { fp32, bf16_widened, bf16_dot };

inline const char* unit_name(gemm_unit u) {
    return u == gemm_unit::fp32 ? "fp32" : u == gemm_unit::bf16_widened ? "bf16 widened" : "bf16 avx512bf16";
}

// W [N, K] packed for one target: panel p holds columns p·width .. p·width + width - 1 (width: the
// target's micro-tile, pack_weight in gemm-inl.h), K-major. fp32: K rows of `width` floats. bf16:
// ⌈K/2⌉ rows of `width` 32-bit pairs, the pair of column j holding W[j, k] in its low half and
// W[j, k + 1] in its high one (zero past K), the order AVX512-BF16's vdpbf16ps takes. The bias, fp32,
// is padded to whole panels. Gated (gated = F > 0): panels 2q and 2q + 1 hold the gate's and the up
// projection's columns q·width .. q·width + width - 1 (zeros past F), and n is C's padded width.
struct packed_weight {
    std::size_t n = 0, k = 0, panels = 0, width = 0, gated = 0;
    precision format = precision::fp32;
    gemm_unit unit = gemm_unit::fp32;
    hwy::AlignedFreeUniquePtr<float[]> panel_data;          // fp32
    hwy::AlignedFreeUniquePtr<std::uint32_t[]> pair_data;  // bf16
    hwy::AlignedFreeUniquePtr<float[]> bias;

    // Rows of `width` elements in a panel: K steps, or ⌈K/2⌉ pairs of them.
    std::size_t rows() const { return format == precision::bf16 ? (k + 1) / 2 : k; }
};

}  // namespace ctformer::kernels
