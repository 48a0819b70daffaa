// A batched matmul's one instance, out [M, N] = a [M, K] · b [K, N], all three strided rows (a head
// of attention weights times a head of V, read in place). M, K and N are run-time: any of them may be
// a sequence length. Four rows of a share each load of b: 8
// accumulator chains over two vectors of columns; the last columns one vector, then one lane, at a time.
// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_KERNELS_MATMUL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_KERNELS_MATMUL_INL_H_
#undef CTFORMER_KERNELS_MATMUL_INL_H_
#else
#define CTFORMER_KERNELS_MATMUL_INL_H_
#endif

#include <cstddef>

#include <hwy/highway.h>

#include "strided.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Rows [row, row + Rows) × Vectors vectors of columns from column c.
template <std::size_t Rows, std::size_t Vectors>
void matmul_tile(std::size_t K, strided_rows<const float> a, strided_rows<const float> b, strided_rows<float> out,
                 std::size_t row, std::size_t c) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d);
    hn::Vec<decltype(d)> acc[Rows][Vectors];
#pragma GCC unroll 8
    for (std::size_t r = 0; r < Rows; ++r)
#pragma GCC unroll 2
        for (std::size_t v = 0; v < Vectors; ++v) acc[r][v] = hn::Zero(d);
    for (std::size_t k = 0; k < K; ++k) {
        hn::Vec<decltype(d)> x[Vectors];
#pragma GCC unroll 2
        for (std::size_t v = 0; v < Vectors; ++v) x[v] = hn::LoadU(d, b.row(k) + c + v * lanes);
#pragma GCC unroll 8
        for (std::size_t r = 0; r < Rows; ++r) {
            const auto w = hn::Set(d, a.row(row + r)[k]);
#pragma GCC unroll 2
            for (std::size_t v = 0; v < Vectors; ++v) acc[r][v] = hn::MulAdd(w, x[v], acc[r][v]);
        }
    }
#pragma GCC unroll 8
    for (std::size_t r = 0; r < Rows; ++r)
#pragma GCC unroll 2
        for (std::size_t v = 0; v < Vectors; ++v) hn::StoreU(acc[r][v], d, out.row(row + r) + c + v * lanes);
}

template <std::size_t Rows>
void matmul_rows(std::size_t K, std::size_t N, strided_rows<const float> a, strided_rows<const float> b,
                 strided_rows<float> out, std::size_t row) {
    const std::size_t lanes = hn::Lanes(hn::ScalableTag<float>());
    const std::size_t pairs_end = N - N % (2 * lanes), vectors_end = N - N % lanes;
    for (std::size_t c = 0; c < pairs_end; c += 2 * lanes) matmul_tile<Rows, 2>(K, a, b, out, row, c);
    for (std::size_t c = pairs_end; c < vectors_end; c += lanes) matmul_tile<Rows, 1>(K, a, b, out, row, c);
    for (std::size_t c = vectors_end; c < N; ++c)
        for (std::size_t r = 0; r < Rows; ++r) {
            float sum = 0.0f;
            for (std::size_t k = 0; k < K; ++k) sum += a.row(row + r)[k] * b.row(k)[c];
            out.row(row + r)[c] = sum;
        }
}

inline void matmul(std::size_t M, std::size_t K, std::size_t N, strided_rows<const float> a,
                   strided_rows<const float> b, strided_rows<float> out) {
    std::size_t row = 0;
    for (; row + 4 <= M; row += 4) matmul_rows<4>(K, N, a, b, out, row);
    switch (M - row) {  // the last rows
        case 3: matmul_rows<3>(K, N, a, b, out, row); break;
        case 2: matmul_rows<2>(K, N, a, b, out, row); break;
        case 1: matmul_rows<1>(K, N, a, b, out, row); break;
        default: break;
    }
}

}  // namespace ctformer::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_KERNELS_MATMUL_INL_H_ toggle
