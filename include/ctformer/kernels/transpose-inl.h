// Transposing a block of a matrix in registers, for the kernels that stage an operand in the order
// their inner loop reads it: the attention's Kᵀ of a key block, the GEMM's rows of A step-major.
// In 4 × 4 blocks, 8 loads and stores move 16 values, where one element at a time staging had been
// a noticeable share of the attention and of a GEMM (docs/performance.md).

// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_KERNELS_TRANSPOSE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_KERNELS_TRANSPOSE_INL_H_
#undef CTFORMER_KERNELS_TRANSPOSE_INL_H_
#else
#define CTFORMER_KERNELS_TRANSPOSE_INL_H_
#endif

#include <algorithm>
#include <cstddef>

#include <hwy/highway.h>

#include "strided.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
// to[c · stride + j] = from.row(j)[c] for j, c in [0, 4): two rounds of interleaves.
HWY_INLINE void transpose_4x4(strided_rows<const float> from, float* to, std::size_t stride) {
    const hn::CappedTag<float, 4> d;
    const hn::RepartitionToWide<decltype(d)> dw;
    const auto r0 = hn::LoadU(d, from.row(0)), r1 = hn::LoadU(d, from.row(1));
    const auto r2 = hn::LoadU(d, from.row(2)), r3 = hn::LoadU(d, from.row(3));
    const auto low01 = hn::BitCast(dw, hn::InterleaveLower(d, r0, r1)), low23 = hn::BitCast(dw, hn::InterleaveLower(d, r2, r3));
    const auto high01 = hn::BitCast(dw, hn::InterleaveUpper(d, r0, r1)), high23 = hn::BitCast(dw, hn::InterleaveUpper(d, r2, r3));
    hn::StoreU(hn::BitCast(d, hn::InterleaveLower(dw, low01, low23)), d, to);
    hn::StoreU(hn::BitCast(d, hn::InterleaveUpper(dw, low01, low23)), d, to + stride);
    hn::StoreU(hn::BitCast(d, hn::InterleaveLower(dw, high01, high23)), d, to + 2 * stride);
    hn::StoreU(hn::BitCast(d, hn::InterleaveUpper(dw, high01, high23)), d, to + 3 * stride);
}
#endif

// to[c · stride + j] = from.row(j)[c] for j in [0, rows), c in [0, columns). With at least 4 rows,
// the columns up to a multiple of 4 go in 4 × 4 blocks (the last rows by a block that overlaps the
// one before, writing the same values again); the rest one at a time.
inline void transpose_block(strided_rows<const float> from, std::size_t rows, std::size_t columns, float* to,
                            std::size_t stride) {
    std::size_t blocked = 0;  // columns done in blocks, for every row
#if HWY_TARGET != HWY_SCALAR
    if (rows >= 4) {
        blocked = columns / 4 * 4;
        for (std::size_t c = 0; c < blocked; c += 4)
            for (std::size_t j = 0;; j = std::min(j + 4, rows - 4)) {
                transpose_4x4({from.row(j) + c, from.stride}, to + c * stride + j, stride);
                if (j + 4 == rows) break;
            }
    }
#endif
    for (std::size_t j = 0; j < rows; ++j)
        for (std::size_t c = blocked; c < columns; ++c) to[c * stride + j] = from.row(j)[c];
}

}  // namespace ctformer::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_KERNELS_TRANSPOSE_INL_H_ toggle
