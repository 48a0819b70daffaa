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

// How a GEMM's W is stored once packed. bf16 keeps the 8 high bits of fp32's exponent and 7 of its
// mantissa: half the bytes, for steps bound by reading W (decoding); the kernel widens it to fp32
// (exactly) and accumulates in fp32, so only W's rounding differs from fp32.
enum class weight_format { fp32, bf16 };

inline const char* format_name(weight_format f) { return f == weight_format::bf16 ? "bf16" : "fp32"; }

// Bytes per element of W stored as f.
constexpr std::size_t element_bytes(weight_format f) { return f == weight_format::bf16 ? 2 : 4; }

// W [N, K] packed for one target: panel p holds columns p·width .. p·width + width - 1 (width: the
// target's micro-tile, pack_weight in gemm-inl.h), K-major. fp32: K rows of `width` floats. bf16:
// ⌈K/2⌉ rows of `width` 32-bit pairs, the pair of column j holding W[j, k] in its low half and
// W[j, k + 1] in its high one (zero past K), the order AVX512-BF16 and AMX take. The bias, fp32,
// is padded to whole panels. Gated (gated = F > 0): panels 2q and 2q + 1 hold the gate's and the up
// projection's columns q·width .. q·width + width - 1 (zeros past F), and n is C's padded width.
struct packed_weight {
    std::size_t n = 0, k = 0, panels = 0, width = 0, gated = 0;
    weight_format format = weight_format::fp32;
    hwy::AlignedFreeUniquePtr<float[]> panel_data;          // fp32
    hwy::AlignedFreeUniquePtr<std::uint32_t[]> pair_data;  // bf16
    hwy::AlignedFreeUniquePtr<float[]> bias;

    // Rows of `width` elements in a panel: K steps, or ⌈K/2⌉ pairs of them.
    std::size_t rows() const { return format == weight_format::bf16 ? (k + 1) / 2 : k; }
};

}  // namespace ctformer::kernels
