// What the fused attention kernel computes (the parts without SIMD; attention-inl.h has the loops):
//
//   out[i] = Σ_j softmax_j(scale · q_i·k_j, masked) · v_j
//
// for one (sequence, head): q [Lq, Dk], k [Lk, Dk], v [Lk, Dv]. A key j is masked for query i when
// the causal alignment hides it or puts it before i's sliding window (keys i - window < j <= i),
// key_attend[j] is false or attend[i, j] is; additive[i, j] is added to the scaled score first. A
// query with every key masked gives zeros.
#pragma once

#include <cstddef>

#include "../core/kinds.hpp"
#include "strided.hpp"

namespace ctformer::kernels {

// The kernel's blocking, the same on every target: keys per block, and queries per tile (their
// running outputs stay in the scratch while the key blocks pass).
inline constexpr std::size_t kKeyBlock = 64;    // a multiple of every target's lane count
inline constexpr std::size_t kQueryTile = 256;  // a multiple of every target's queries per pass

struct attention_args {
    float scale = 1.0f;
    const float* key_attend = nullptr;  // [Lk], non-zero = attend; nullptr: every key
    // Masks of [Lq, Lk] for this (sequence, head): query i's row of Lk values at row(i) (a row stride
    // of 0 gives every query the same row). attend: non-zero = attend; additive: added to the
    // scaled score. A null data pointer: none.
    strided_rows<const float> attend{nullptr, 0};
    strided_rows<const float> additive{nullptr, 0};
    std::size_t window = 0;  // a causal mask's sliding window: each query's last `window` keys (0: all)
};

// How many keys query i may see at most, before key_attend (causality: core/kinds.hpp).
template <causality Causal>
constexpr std::size_t visible_keys(std::size_t i, std::size_t lq, std::size_t lk) {
    if constexpr (Causal == causality::none) {
        return lk;
    } else if constexpr (Causal == causality::top_left) {
        return i + 1 < lk ? i + 1 : lk;
    } else {
        const std::size_t end = i + 1 + lk;  // i + 1 + (lk - lq), kept non-negative
        return end <= lq ? 0 : (end - lq < lk ? end - lq : lk);
    }
}

// The first key query i may see in a sliding window of `window` keys, i + 1 - window (a window is
// top-left causal: dsl/ops/mask.hpp's sliding_window); 0 without one. Past visible_keys where the
// window ends before the keys do (queries past the last key).
constexpr std::size_t first_visible_key(std::size_t i, std::size_t window) {
    return window && i + 1 > window ? i + 1 - window : 0;
}

}  // namespace ctformer::kernels
