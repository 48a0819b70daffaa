// Fused attention for one (sequence, head): scores, scale, mask, online softmax and the product with
// V in one pass over key blocks, never an [Lq, Lk] buffer (see attention.hpp for the contract).
// Flash-attention order: the queries go in tiles of kQueryTile whose running outputs stay in the
// scratch while the key blocks pass; each key block's Kᵀ is staged once per tile (V is read in
// place), and kQueryRows queries of the tile share each pass over it. Blocks every query of a pass
// is causally barred from are skipped. The scratch is bounded by one key block and one query tile,
// whatever the sequence's length.

// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_KERNELS_ATTENTION_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_KERNELS_ATTENTION_INL_H_
#undef CTFORMER_KERNELS_ATTENTION_INL_H_
#else
#define CTFORMER_KERNELS_ATTENTION_INL_H_
#endif

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <hwy/aligned_allocator.h>
#include <hwy/highway.h>

#include "attention.hpp"
#include "exp-inl.h"
#include "rows-inl.h"
#include "tiles.hpp"
#include "transpose-inl.h"

HWY_BEFORE_NAMESPACE();
namespace ctformer::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Queries per pass over a key block: their scores and outputs are 2 vectors wide, so 4 queries keep
// 8 accumulators (of 16 registers), and on AVX-512 8 queries keep 16 (of 32).
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
inline constexpr std::size_t kQueryRows = 8;
#else
inline constexpr std::size_t kQueryRows = 4;
#endif
static_assert(kQueryTile % kQueryRows == 0);
// kKeyBlock and kQueryTile (attention.hpp): a key block is staged (Kᵀ) once per tile; the sizes are
// the fastest measured (docs/performance.md).

// Keys per block: 64, or all the keys (rounded up to two vectors) when there are fewer.
inline constexpr std::size_t key_block(std::size_t lk) {
    return std::min(kKeyBlock, round_up(lk, 2 * HWY_LANES(float)));
}

// V is read where it lies when its rows are whole vectors; otherwise each block of it is staged,
// padded. Dv = 0 (probabilities only) has no values.
template <std::size_t Dv>
inline constexpr bool kStagesValues = Dv % HWY_LANES(float) != 0;

// One thread's memory for attention over one head of lq queries and lk keys, the lengths given at
// run time, carved out of a block of bytes(lq, lk) bytes (128-byte aligned): one staged key block
// (and value block), and the running state of one query tile. O(block) whatever the length; the
// plan reports bytes() at the longest lengths as the step's scratch, which holds every shorter run.
template <std::size_t Dk, std::size_t Dv>
struct attention_scratch {
    using D = hn::ScalableTag<float>;
    static std::size_t dv_padded() { return round_up(Dv, hn::Lanes(D())); }

    // Floats of each part, in order: Kᵀ of the block, V of the block (when staged), the scores of
    // one pass, the tile's unnormalised outputs, running maxima and sums.
    static std::array<std::size_t, 6> parts(std::size_t lq, std::size_t lk) {
        const std::size_t block = key_block(lk), tile = std::min(kQueryTile, lq);
        const std::size_t values = kStagesValues<Dv> ? block * dv_padded() : 0;
        return {Dk * block, values, kQueryRows * kKeyBlock, tile * dv_padded(), tile, tile};
    }
    static constexpr std::size_t kAlignFloats = 32;
    static std::size_t bytes(std::size_t lq, std::size_t lk) {
        std::size_t floats = 0;
        for (std::size_t n : parts(lq, lk)) floats += round_up(n, kAlignFloats);
        return floats * sizeof(float);
    }

    attention_scratch(std::byte* memory, std::size_t queries, std::size_t keys)
        : lq(queries), lk(keys), block(key_block(keys)) {
        float* at = reinterpret_cast<float*>(memory);
        float** part[] = {&keys_t, &values, &scores, &out, &m, &l};
        const std::array<std::size_t, 6> sizes = parts(lq, lk);
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            *part[i] = at;
            at += round_up(sizes[i], kAlignFloats);
        }
    }

    std::size_t lq, lk, block;  // the lengths of this run, and the keys per block
    float *keys_t, *values, *scores, *out, *m, *l;
};

// Kᵀ [Dk, block] of keys [first, first + block), zero past the real keys.
template <std::size_t Dk, std::size_t Dv>
void stage_keys(strided_rows<const float> k, std::size_t first, attention_scratch<Dk, Dv>& s) {
    const std::size_t count = std::min(s.block, s.lk - first);
    if (count < s.block) std::fill_n(s.keys_t, Dk * s.block, 0.0f);  // the padding keys
    transpose_block(k.from(first), count, Dk, s.keys_t, s.block);
}

// Kᵀ of keys [first, first + block), and their values: V [block, Dv padded] staged, zero past the
// real keys and columns, or V where it lies. Returns the values' rows.
template <std::size_t Dk, std::size_t Dv>
strided_rows<const float> stage_block(strided_rows<const float> k, strided_rows<const float> v, std::size_t first,
                                      attention_scratch<Dk, Dv>& s) {
    stage_keys(k, first, s);
    if constexpr (kStagesValues<Dv>) {
        const std::size_t dv = s.dv_padded(), count = std::min(s.block, s.lk - first);
        std::fill_n(s.values, s.block * dv, 0.0f);
        for (std::size_t j = 0; j < count; ++j) std::copy_n(v.row(first + j), Dv, &s.values[j * dv]);
        return {s.values, dv};
    } else {
        return {v.row(first), v.stride};
    }
}

// Two vectors of columns at a time, Rows rows: 2·Rows independent accumulator chains, and two loads
// of the shared operand per 2·Rows FMAs.
template <std::size_t Rows, class D>
struct tile {
    hn::Vec<D> v[Rows][2];
};

// The vector of p[0, valid), zeros after: a mask row's last vector, read without running past it.
template <class D>
HWY_INLINE hn::Vec<D> load_part(D d, const float* p, std::size_t valid) {
    if (valid >= hn::Lanes(d)) return hn::LoadU(d, p);
    HWY_ALIGN float part[HWY_LANES(float)] = {};
    std::copy_n(p, valid, part);
    return hn::Load(d, part);
}

// s0, s1, the scaled scores of query i for keys [key, key + 2 vectors), with the additive mask
// added and the attend mask's zeros barred (-inf). Keys past lk are barred after, as the causal limit.
template <class D, class V = hn::Vec<D>>
HWY_INLINE void apply_masks(D d, const attention_args& args, std::size_t i, std::size_t key, std::size_t lk, V& s0,
                            V& s1) {
    if (key >= lk) return;
    const std::size_t lanes = hn::Lanes(d), valid = lk - key;
    if (args.additive.data) {
        const float* b = args.additive.row(i) + key;
        s0 = hn::Add(s0, load_part(d, b, valid));
        if (valid > lanes) s1 = hn::Add(s1, load_part(d, b + lanes, valid - lanes));
    }
    if (args.attend.data) {
        const float* a = args.attend.row(i) + key;
        const V barred = hn::Set(d, -std::numeric_limits<float>::infinity());
        s0 = hn::IfThenElse(hn::Ne(load_part(d, a, valid), hn::Zero(d)), s0, barred);
        if (valid > lanes) s1 = hn::IfThenElse(hn::Ne(load_part(d, a + lanes, valid - lanes), hn::Zero(d)), s1, barred);
    }
}

// scores[r][0, columns) = scale · q_{row + r} · k_{first..} (the staged block) + the masks, masked
// keys -inf; columns is a multiple of two vectors, at most the block. The attend and additive masks,
// the keys past a row's causal limit or past lk and those before its sliding window are applied as
// the scores are stored, vector operations; key padding, a value per key, after.
template <std::size_t Rows, std::size_t Dk, std::size_t Dv, causality Causal>
void block_scores(strided_rows<const float> q, std::size_t row, std::size_t first, std::size_t columns,
                  const attention_args& args, attention_scratch<Dk, Dv>& s) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d);
    const auto scale = hn::Set(d, args.scale);
    constexpr float barred = -std::numeric_limits<float>::infinity();
    const auto masked = hn::Set(d, barred);
    const std::size_t block = s.block;
    std::size_t visible[Rows], lowest[Rows];
    for (std::size_t r = 0; r < Rows; ++r) {
        visible[r] = visible_keys<Causal>(row + r, s.lq, s.lk);
        lowest[r] = first_visible_key(row + r, args.window);
    }
    for (std::size_t c = 0; c < columns; c += 2 * lanes) {
        tile<Rows, decltype(d)> acc;
#pragma GCC unroll 8
        for (std::size_t r = 0; r < Rows; ++r) acc.v[r][0] = acc.v[r][1] = hn::Zero(d);
        for (std::size_t e = 0; e < Dk; ++e) {
            const float* keys = &s.keys_t[e * block + c];
            const auto k0 = hn::Load(d, keys), k1 = hn::Load(d, keys + lanes);
#pragma GCC unroll 8
            for (std::size_t r = 0; r < Rows; ++r) {
                const auto x = hn::Set(d, q.row(row + r)[e]);
                acc.v[r][0] = hn::MulAdd(x, k0, acc.v[r][0]);
                acc.v[r][1] = hn::MulAdd(x, k1, acc.v[r][1]);
            }
        }
        const std::size_t key = first + c;
#pragma GCC unroll 8
        for (std::size_t r = 0; r < Rows; ++r) {
            auto s0 = hn::Mul(acc.v[r][0], scale), s1 = hn::Mul(acc.v[r][1], scale);
            if (args.attend.data || args.additive.data) apply_masks(d, args, row + r, key, s.lk, s0, s1);
            if (visible[r] < key + 2 * lanes) {  // keys [visible, ...) of these two vectors are barred
                const auto limit = hn::Set(d, static_cast<float>(visible[r]));
                s0 = hn::IfThenElse(hn::Lt(hn::Iota(d, static_cast<float>(key)), limit), s0, masked);
                s1 = hn::IfThenElse(hn::Lt(hn::Iota(d, static_cast<float>(key + lanes)), limit), s1, masked);
            }
            if (lowest[r] > key) {  // keys [.., lowest) are before the window
                const auto low = hn::Set(d, static_cast<float>(lowest[r]));
                s0 = hn::IfThenElse(hn::Ge(hn::Iota(d, static_cast<float>(key)), low), s0, masked);
                s1 = hn::IfThenElse(hn::Ge(hn::Iota(d, static_cast<float>(key + lanes)), low), s1, masked);
            }
            hn::Store(s0, d, &s.scores[r * kKeyBlock + c]);
            hn::Store(s1, d, &s.scores[r * kKeyBlock + c + lanes]);
        }
    }
    if (!args.key_attend) return;
    for (std::size_t r = 0; r < Rows; ++r)
        for (std::size_t key = first; key < std::min(first + columns, visible[r]); ++key)
            if (args.key_attend[key] == 0.0f) s.scores[r * kKeyBlock + key - first] = barred;
}

// Turns a row's scores [0, columns) into p = exp(score - m_new), updates its running max m and sum
// l, and returns the factor by which its output so far must be rescaled. A block of -inf scores
// gives p = 0; a NaN among them (which Max may pass over) makes l NaN.
inline float online_softmax_step(float* scores, std::size_t columns, float& m, float& l) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d);
    auto max = hn::Load(d, scores);
    for (std::size_t c = lanes; c < columns; c += lanes) max = hn::Max(max, hn::Load(d, scores + c));
    const float block_max = hn::GetLane(hn::MaxOfLanes(d, max));
    if (block_max == -std::numeric_limits<float>::infinity()) {
        if (std::any_of(scores, scores + columns, [](float x) { return std::isnan(x); }))
            l = std::numeric_limits<float>::quiet_NaN();
        std::fill_n(scores, columns, 0.0f);
        return 1.0f;
    }
    const float m_new = std::max(m, block_max);
    // exp(0) = 1 exactly: once the running max has settled, most blocks need no exp call.
    const float correction = m == m_new                                      ? 1.0f
                             : m == -std::numeric_limits<float>::infinity() ? 0.0f
                                                                             : std::exp(m - m_new);
    auto sum = hn::Zero(d);
    for (std::size_t c = 0; c < columns; c += lanes) {
        const auto p = exp_nonpositive(d, hn::Sub(hn::Load(d, scores + c), hn::Set(d, m_new)));  // exp(-inf) = 0
        hn::Store(p, d, scores + c);
        sum = hn::Add(sum, p);
    }
    l = l * correction + hn::GetLane(hn::SumOfLanes(d, sum));
    m = m_new;
    return correction;
}

// o_r = o_r · correction_r + Σ_{j < keys} p_r[j] · v_j for the Rows rows (o's rows dv apart),
// `Vectors` (1 or 2) vectors of columns from column c: each value vector is loaded once for all rows.
template <std::size_t Rows, std::size_t Vectors>
void accumulate_values(const float* p, std::size_t keys, strided_rows<const float> values, std::size_t dv,
                       const float* correction, float* o, std::size_t c) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d);
    tile<Rows, decltype(d)> acc;
#pragma GCC unroll 8
    for (std::size_t r = 0; r < Rows; ++r)
#pragma GCC unroll 2
        for (std::size_t v = 0; v < Vectors; ++v)
            acc.v[r][v] = hn::Mul(hn::Load(d, o + r * dv + c + v * lanes), hn::Set(d, correction[r]));
    for (std::size_t j = 0; j < keys; ++j) {
        hn::Vec<decltype(d)> x[Vectors];
#pragma GCC unroll 2
        for (std::size_t v = 0; v < Vectors; ++v) x[v] = hn::LoadU(d, values.row(j) + c + v * lanes);
#pragma GCC unroll 8
        for (std::size_t r = 0; r < Rows; ++r) {
            const auto weight = hn::Set(d, p[r * kKeyBlock + j]);
#pragma GCC unroll 2
            for (std::size_t v = 0; v < Vectors; ++v) acc.v[r][v] = hn::MulAdd(weight, x[v], acc.v[r][v]);
        }
    }
#pragma GCC unroll 8
    for (std::size_t r = 0; r < Rows; ++r)
#pragma GCC unroll 2
        for (std::size_t v = 0; v < Vectors; ++v) hn::Store(acc.v[r][v], d, o + r * dv + c + v * lanes);
}

// Rows queries from `row` (the tile's query t onwards) over the staged key block at `first`: their
// scores, the online softmax step, and the weighted values added to their running outputs. Only
// the keys some row may see are computed (none when the block is causally barred from all of them,
// or all before their sliding window; a part of it on the diagonal or at the end): the rest would
// add p = 0.
template <std::size_t Rows, std::size_t Dk, std::size_t Dv, causality Causal>
void query_block(strided_rows<const float> q, std::size_t row, std::size_t t, std::size_t first,
                 strided_rows<const float> values, const attention_args& args, attention_scratch<Dk, Dv>& s) {
    const std::size_t visible = visible_keys<Causal>(row + Rows - 1, s.lq, s.lk);  // the most any row sees
    if (first >= visible || first + s.block <= first_visible_key(row, args.window)) return;
    const std::size_t dv = s.dv_padded(), lanes = hn::Lanes(hn::ScalableTag<float>());
    const std::size_t keys = std::min(s.block, visible - first), columns = round_up(keys, 2 * lanes);
    float correction[Rows];
    block_scores<Rows, Dk, Dv, Causal>(q, row, first, columns, args, s);
    for (std::size_t r = 0; r < Rows; ++r)
        correction[r] = online_softmax_step(&s.scores[r * kKeyBlock], columns, s.m[t + r], s.l[t + r]);
    float* o = &s.out[t * dv];
    const std::size_t pairs_end = dv - dv % (2 * lanes);
    for (std::size_t c = 0; c < pairs_end; c += 2 * lanes)
        accumulate_values<Rows, 2>(s.scores, keys, values, dv, correction, o, c);
    if (pairs_end < dv) accumulate_values<Rows, 1>(s.scores, keys, values, dv, correction, o, pairs_end);
}

// What a row of query i whose every score is -inf holds: zeros when the masks (its causal limit, lk,
// key padding, the attend mask's zeros, the additive mask's -inf) bar every key; NaN when some key's
// score overflowed to -inf, as PyTorch's softmax gives, never a finite answer that is wrong.
template <causality Causal>
float empty_row_value(const attention_args& args, std::size_t i, std::size_t lq, std::size_t lk) {
    constexpr float barred = -std::numeric_limits<float>::infinity();
    for (std::size_t key = first_visible_key(i, args.window); key < visible_keys<Causal>(i, lq, lk); ++key) {
        const bool masked = (args.key_attend && args.key_attend[key] == 0.0f) ||
                            (args.attend.data && args.attend.row(i)[key] == 0.0f) ||
                            (args.additive.data && args.additive.row(i)[key] == barred);
        if (!masked) return std::numeric_limits<float>::quiet_NaN();
    }
    return 0.0f;
}

// out[0, n) = o / l, a row of the running output over its sum of weights (l > 0, or NaN: a NaN
// stays). o is padded to whole vectors.
inline void normalize_row(const float* o, float l, std::size_t n, float* out) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d);
    const auto sum = hn::Set(d, l);
    const std::size_t whole = n - n % lanes;
    for (std::size_t c = 0; c < whole; c += lanes) hn::StoreU(hn::Div(hn::Load(d, o + c), sum), d, out + c);
    for (std::size_t c = whole; c < n; ++c) out[c] = o[c] / l;
}

// Query rows [row_begin, row_end) of the attention output, of s.lq queries over s.lk keys. Rows go
// in tiles of kQueryTile and blocks of kQueryRows from row_begin: with row_begin a multiple of
// kQueryRows, a row's result does not depend on how the rows are split among threads.
template <std::size_t Dk, std::size_t Dv, causality Causal = causality::none>
void attend_rows(strided_rows<const float> q, strided_rows<const float> k, strided_rows<const float> v,
                 std::size_t row_begin, std::size_t row_end, strided_rows<float> out, const attention_args& args,
                 attention_scratch<Dk, Dv>& s) {
    const std::size_t dv = s.dv_padded();
    for (std::size_t tile = row_begin; tile < row_end; tile += kQueryTile) {
        const std::size_t tile_end = std::min(row_end, tile + kQueryTile), rows = tile_end - tile;
        std::fill_n(s.m, rows, -std::numeric_limits<float>::infinity());
        std::fill_n(s.l, rows, 0.0f);
        std::fill_n(s.out, rows * dv, 0.0f);
        const std::size_t keys_end = visible_keys<Causal>(tile_end - 1, s.lq, s.lk);  // the most any row sees
        const std::size_t keys_begin = first_visible_key(tile, args.window);  // the least
        for (std::size_t first = keys_begin - keys_begin % s.block; first < keys_end; first += s.block) {
            const strided_rows<const float> values = stage_block(k, v, first, s);
            for_tiles<kQueryRows>(tile, tile_end, [&]<std::size_t Rows>(std::size_t row) {
                query_block<Rows, Dk, Dv, Causal>(q, row, row - tile, first, values, args, s);
            });
        }
        for (std::size_t t = 0; t < rows; ++t) {
            if (s.l[t] == 0.0f)  // no weight: every score -inf
                std::fill_n(out.row(tile + t), Dv, empty_row_value<Causal>(args, tile + t, s.lq, s.lk));
            else
                normalize_row(&s.out[t * dv], s.l[t], Dv, out.row(tile + t));
        }
    }
}

// out [lq, Dv] = softmax(mask(scale · q·kᵀ)) · v for q [lq, Dk], k [lk, Dk], v [lk, Dv], contiguous,
// the lengths the scratch's.
template <std::size_t Dk, std::size_t Dv, causality Causal = causality::none>
void attention(const float* q, const float* k, const float* v, float* out, const attention_args& args,
               attention_scratch<Dk, Dv>& scratch) {
    attend_rows<Dk, Dv, Causal>({q, Dk}, {k, Dk}, {v, Dv}, 0, scratch.lq, {out, Dv}, args, scratch);
}

// The need_weights path: probability rows [row_begin, row_end) of softmax(mask(scale · q·kᵀ)), written
// to out [lq, lk]: the scores of each staged key block go straight to out (-inf, without a product,
// for blocks no row of a pass may see: past their causal limits or before their sliding windows),
// then each row's softmax.
template <std::size_t Dk, causality Causal = causality::none>
void probability_rows(strided_rows<const float> q, strided_rows<const float> k, std::size_t row_begin,
                      std::size_t row_end, strided_rows<float> out, const attention_args& args,
                      attention_scratch<Dk, 0>& s) {
    for (std::size_t tile = row_begin; tile < row_end; tile += kQueryTile) {
        const std::size_t tile_end = std::min(row_end, tile + kQueryTile);
        for (std::size_t first = 0; first < s.lk; first += s.block) {
            const std::size_t count = std::min(s.block, s.lk - first);
            // whether rows [from, to) may see a key of this block
            const auto seen = [&](std::size_t from, std::size_t to) {
                return first < visible_keys<Causal>(to - 1, s.lq, s.lk) && first + count > first_visible_key(from, args.window);
            };
            if (seen(tile, tile_end)) stage_keys(k, first, s);
            for_tiles<kQueryRows>(tile, tile_end, [&]<std::size_t Rows>(std::size_t row) {
                if (seen(row, row + Rows)) {
                    block_scores<Rows, Dk, 0, Causal>(q, row, first, s.block, args, s);
                    for (std::size_t r = 0; r < Rows; ++r)
                        std::copy_n(&s.scores[r * kKeyBlock], count, out.row(row + r) + first);
                } else {
                    for (std::size_t r = 0; r < Rows; ++r)
                        std::fill_n(out.row(row + r) + first, count, -std::numeric_limits<float>::infinity());
                }
            });
        }
        for (std::size_t row = tile; row < tile_end; ++row)
            if (!softmax_row(s.lk, out.row(row), out.row(row)))
                std::fill_n(out.row(row), s.lk, empty_row_value<Causal>(args, row, s.lq, s.lk));
    }
}

}  // namespace ctformer::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_KERNELS_ATTENTION_INL_H_ toggle
