// What the GEMM kernel fuses after the product (the parts without SIMD; gemm-inl.h has the loops).
//
//   C[i, j] = act(Σ_k A[i, k] · W[j, k] + bias[j]) + residual[i, j]
//
// W is [N, K], PyTorch's linear layout; each term after the sum is optional.
#pragma once

#include <cstddef>

namespace ctformer::kernels {

enum class activation { none, relu, gelu };

template <bool Bias, activation Act, bool Residual>
struct epilogue {
    static constexpr bool bias = Bias;
    static constexpr activation act = Act;
    static constexpr bool residual = Residual;
};

using plain = epilogue<false, activation::none, false>;

// Run-time operands of the epilogue. The residual is [rows, N], row-major; with residual_rows > 0 it
// has only that many rows, repeated (a [L, N] table added to every sequence of [B·L, N]).
struct epilogue_args {
    const float* bias = nullptr;
    const float* residual = nullptr;
    std::size_t residual_rows = 0;
};

}  // namespace ctformer::kernels
