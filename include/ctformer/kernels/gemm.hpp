// What the GEMM kernel computes (the parts without SIMD; gemm-inl.h has the loops):
//
//   C[i, j] = act(Σ_k A[i, k] · W[j, k] + bias[j]) + residual[i, j]
//
// W is [N, K], PyTorch's linear layout, packed once per target into panels (gemm-inl.h); each term
// after the sum is optional (dsl/ops/kinds.hpp: the epilogue).
#pragma once

#include <cstddef>

#include <hwy/aligned_allocator.h>

#include "../dsl/ops/kinds.hpp"

namespace ctformer::kernels {

// Run-time operands of the epilogue. The residual is [rows, N], row-major; with residual_rows > 0 it
// has only that many rows, repeated (a [L, N] table added to every sequence of [B·L, N]); with
// residual_row_of, row r adds the table's row residual_row_of[r] (a packed batch's positions).
struct epilogue_args {
    const float* bias = nullptr;
    const float* residual = nullptr;
    std::size_t residual_rows = 0;
    const std::size_t* residual_row_of = nullptr;
};

// W [N, K] packed for one target: panel p holds columns p·width .. p·width + width - 1, as K rows of
// `width` floats (width: the target's micro-tile, pack_weight in gemm-inl.h); the bias padded to
// whole panels.
struct packed_weight {
    std::size_t n = 0, k = 0, panels = 0, width = 0;
    hwy::AlignedFreeUniquePtr<float[]> panel_data;
    hwy::AlignedFreeUniquePtr<float[]> bias;
};

}  // namespace ctformer::kernels
