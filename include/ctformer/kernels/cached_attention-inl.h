// Attention of a few new queries over a KV cache (decoding), for one (sequence, head). The cache
// holds the keys transposed, in blocks of kKeyBlock keys, each block Kᵀ [Dk, kKeyBlock] contiguous
// (each key a column: a query's scores are a sum of Dk rows, vector FMAs along the keys, nothing
// transposed per step, and a block is one sequential read), then V [capacity, Dv padded]; a query
// reads each cached key and value once, a matrix-vector product, memory-bound: it prefetches
// kPrefetchBytes ahead, as the GEMMs do with a few rows (prefetch.hpp). Queries t = 0..n-1 of a
// run are at positions past + t and see keys [0, past + t + 1), their own included; in a sliding
// window of W keys, only the last W of them (the others are neither read nor weighed).
// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_KERNELS_CACHED_ATTENTION_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_KERNELS_CACHED_ATTENTION_INL_H_
#undef CTFORMER_KERNELS_CACHED_ATTENTION_INL_H_
#else
#define CTFORMER_KERNELS_CACHED_ATTENTION_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <limits>

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "attention.hpp"
#include "exp-inl.h"
#include "prefetch.hpp"
#include "strided.hpp"
#include "tiles.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One (sequence, head)'s cache, carved out of floats(capacity) floats: the keys padded to whole
// blocks, the values' rows to whole vectors, so whole vectors never leave the block.
template <std::size_t Dk, std::size_t Dv>
struct cached_head {
    static_assert(kKeyBlock % (4 * HWY_LANES(float)) == 0);
    static constexpr std::size_t dv_padded = round_up(Dv, HWY_LANES(float));
    static std::size_t stride(std::size_t capacity) { return round_up(capacity, kKeyBlock); }
    static std::size_t floats(std::size_t capacity) { return stride(capacity) * (Dk + dv_padded); }
    // What a query over `visible` positions reads: their keys, and their values' rows as held.
    static std::size_t floats_read(std::size_t visible) { return visible * (Dk + dv_padded); }

    cached_head(float* block, std::size_t capacity)
        : keys_t(block), values(block + Dk * stride(capacity)) {}

    // Keys and values of positions [position, position + count).
    void append(strided_rows<const float> k, strided_rows<const float> v, std::size_t position, std::size_t count) const {
        for (std::size_t t = 0; t < count; ++t) {
            float* key = keys_at(position + t);
            for (std::size_t e = 0; e < Dk; ++e) key[e * kKeyBlock] = k.row(t)[e];
            std::copy_n(v.row(t), Dv, values + (position + t) * dv_padded);
        }
    }
    // Key j's column: its element e at [e * kKeyBlock].
    float* keys_at(std::size_t j) const { return keys_t + j / kKeyBlock * Dk * kKeyBlock + j % kKeyBlock; }

    float* keys_t;
    float* values;
};

// Prefetches the cache lines of [p, p + floats) kPrefetchBytes ahead, those before `end`: the cache
// is read once, in order, from memory.
HWY_INLINE void prefetch_ahead(const float* p, std::size_t floats, const float* end) {
    constexpr std::size_t ahead = kPrefetchBytes / sizeof(float), line = 64 / sizeof(float);
    for (std::size_t f = 0; f < floats; f += line)
        if (static_cast<std::size_t>(end - p) > ahead + f) hwy::Prefetch(p + ahead + f);
}

// scores[begin, visible) = scale · q·k_j for the cached keys from `begin` (a multiple of four vectors),
// four vectors of keys per pass (four independent FMA chains, within one block: kKeyBlock is a
// multiple of four vectors on every target); keys before `lowest` or past `visible` -inf. `scores`
// holds the cache's stride.
template <std::size_t Dk, std::size_t Dv>
void cached_scores(const float* q, const cached_head<Dk, Dv>& c, std::size_t begin, std::size_t lowest, std::size_t visible,
                   float scale, float* scores) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d), step = 4 * lanes;
    const auto barred = hn::Set(d, -std::numeric_limits<float>::infinity());
    const float* const end = c.keys_t + round_up(visible, kKeyBlock) * Dk;  // the blocks read
    for (std::size_t j = begin; j < visible; j += step) {
        auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
        const float* keys = c.keys_at(j);  // four vectors never cross a block
        for (std::size_t e = 0; e < Dk; ++e) {
            const float* k = keys + e * kKeyBlock;
            prefetch_ahead(k, step, end);
            const auto x = hn::Set(d, q[e]);
            a0 = hn::MulAdd(x, hn::LoadU(d, k), a0);
            a1 = hn::MulAdd(x, hn::LoadU(d, k + lanes), a1);
            a2 = hn::MulAdd(x, hn::LoadU(d, k + 2 * lanes), a2);
            a3 = hn::MulAdd(x, hn::LoadU(d, k + 3 * lanes), a3);
        }
        const auto limit = hn::Set(d, static_cast<float>(visible)), low = hn::Set(d, static_cast<float>(lowest));
        const hn::Vec<decltype(d)> sums[4] = {a0, a1, a2, a3};
        for (std::size_t u = 0; u < 4; ++u) {
            const std::size_t key = j + u * lanes;
            const auto index = hn::Iota(d, static_cast<float>(key));
            const auto in_reach = hn::And(hn::Ge(index, low), hn::Lt(index, limit));
            hn::StoreU(hn::IfThenElse(in_reach, hn::Mul(sums[u], hn::Set(d, scale)), barred), d, scores + key);
        }
    }
}

// scores[begin, visible) become exp(score - max), whole vectors from `begin` (the -inf outside the
// keys seen give 0); returns their sum.
inline float exponentiate(float* scores, std::size_t begin, std::size_t visible) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d), end = round_up(visible, lanes);
    auto most = hn::Set(d, -std::numeric_limits<float>::infinity());
    for (std::size_t j = begin; j < end; j += lanes) most = hn::Max(most, hn::LoadU(d, scores + j));
    const auto max = hn::Set(d, hn::GetLane(hn::MaxOfLanes(d, most)));
    auto sum = hn::Zero(d);
    for (std::size_t j = begin; j < end; j += lanes) {
        const auto p = exp_nonpositive(d, hn::Sub(hn::LoadU(d, scores + j), max));
        hn::StoreU(p, d, scores + j);
        sum = hn::Add(sum, p);
    }
    return hn::GetLane(hn::SumOfLanes(d, sum));
}

// out[0, Dv) = Σ_j p_j · v_j / sum over the cached values [lowest, visible), every vector of the
// padded row in its own accumulator.
template <std::size_t Dk, std::size_t Dv>
void weighted_values(const float* p, float sum, const cached_head<Dk, Dv>& c, std::size_t lowest, std::size_t visible,
                     float* out) {
    const hn::ScalableTag<float> d;
    constexpr std::size_t lanes = HWY_LANES(float), vectors = divide_up(Dv, lanes);  // x86: hn::Lanes(d)
    constexpr std::size_t width = cached_head<Dk, Dv>::dv_padded;
    hn::Vec<decltype(d)> acc[vectors];
    for (std::size_t u = 0; u < vectors; ++u) acc[u] = hn::Zero(d);
    for (std::size_t j = lowest; j < visible; ++j) {
        const auto weight = hn::Set(d, p[j]);
        const float* v = c.values + j * width;
        prefetch_ahead(v, width, c.values + visible * width);
        for (std::size_t u = 0; u < vectors; ++u) acc[u] = hn::MulAdd(weight, hn::LoadU(d, v + u * lanes), acc[u]);
    }
    HWY_ALIGN float row[width];
    const auto norm = hn::Set(d, 1.0f / sum);  // sum >= 1: the largest score's exp(0)
    for (std::size_t u = 0; u < vectors; ++u) hn::Store(hn::Mul(acc[u], norm), d, row + u * lanes);
    std::copy_n(row, Dv, out);
}

// out rows [0, n) for the n new queries at positions past.., over the cache (their keys appended
// already), each over its last `window` keys (0: all). `scores` holds the cache's stride of floats.
template <std::size_t Dk, std::size_t Dv>
void attend_cache(strided_rows<const float> q, std::size_t n, std::size_t past, const cached_head<Dk, Dv>& c,
                  float scale, strided_rows<float> out, float* scores, std::size_t window = 0) {
    const std::size_t step = 4 * hn::Lanes(hn::ScalableTag<float>());
    for (std::size_t t = 0; t < n; ++t) {
        const std::size_t visible = past + t + 1, lowest = first_visible_key(past + t, window);
        const std::size_t begin = lowest - lowest % step;
        cached_scores(q.row(t), c, begin, lowest, visible, scale, scores);
        weighted_values(scores, exponentiate(scores, begin, visible), c, lowest, visible, out.row(t));
    }
}

}  // namespace ctformer::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_KERNELS_CACHED_ATTENTION_INL_H_ toggle
