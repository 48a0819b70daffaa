// What the rotary kernels take (the parts without SIMD; rotary-inl.h has the loops): where each row
// of a run sits in its sequence, and what a GEMM epilogue's rotary positions read.
#pragma once

#include <cstddef>

namespace ctformer::kernels {

// Row r's position: its index along the axis before the last (r % length), from the run's first
// position on (a decoding run's), or in a packed batch (of: each token's place in its sequence,
// length the token count), its token's.
struct row_positions {
    std::size_t first = 0, length = 1;
    const std::size_t* of = nullptr;

    std::size_t operator()(std::size_t r) const {
        const std::size_t token = r % length;
        return first + (of ? of[token] : token);
    }
};

// Rotary positions on C's first `columns` columns, heads of head_dim with `pairs` pairs each
// (rotate_half, or interleaved): row r takes its cosines and sines from row position(r) of `angles`
// [positions, 2·pairs].
struct rotary_args {
    const float* angles = nullptr;
    std::size_t columns = 0, head_dim = 0, pairs = 0;
    bool half = true;
    row_positions position;
};

}  // namespace ctformer::kernels
