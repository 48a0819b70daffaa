// Fused attention for one (sequence, head): scores, scale, mask, online softmax and the product with
// V in one pass over key blocks, never an [Lq, Lk] buffer (see attention.hpp for the contract).
// kQueryRows queries share each pass over a key block; blocks every query of the pass is causally
// barred from are skipped. K is transposed and V padded into per-call scratch, O(Lk · D).

// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_KERNELS_ATTENTION_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_KERNELS_ATTENTION_INL_H_
#undef CTFORMER_KERNELS_ATTENTION_INL_H_
#else
#define CTFORMER_KERNELS_ATTENTION_INL_H_
#endif

#include <algorithm>
#include <limits>

#include <hwy/aligned_allocator.h>
#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include "attention.hpp"
#include "rows-inl.h"

HWY_BEFORE_NAMESPACE();
namespace ctformer::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

inline constexpr std::size_t kQueryRows = 4;
inline constexpr std::size_t kKeyBlock = 64;  // a multiple of every target's lane count

inline constexpr std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

// One thread's memory for attention over one head; Dv = 0 (probabilities only) stages no values.
template <std::size_t Lk, std::size_t Dk, std::size_t Dv>
struct attention_scratch {
    using D = hn::ScalableTag<float>;
    static std::size_t keys_padded() { return round_up(Lk, kKeyBlock); }
    static std::size_t dv_padded() { return round_up(Dv, hn::Lanes(D())); }
    static hwy::AlignedFreeUniquePtr<float[]> floats(std::size_t n) { return hwy::AllocateAligned<float>(n ? n : 1); }

    hwy::AlignedFreeUniquePtr<float[]> keys_t = floats(Dk * keys_padded());  // Kᵀ
    hwy::AlignedFreeUniquePtr<float[]> values = floats(keys_padded() * dv_padded());
    hwy::AlignedFreeUniquePtr<float[]> scores = floats(kQueryRows * kKeyBlock);
    hwy::AlignedFreeUniquePtr<float[]> out = floats(kQueryRows * dv_padded());
};

// Kᵀ [Dk, Lk padded], zero past the real keys.
template <std::size_t Lk, std::size_t Dk, std::size_t Dv>
void stage_keys(strided_rows<const float> k, attention_scratch<Lk, Dk, Dv>& s) {
    const std::size_t lk = s.keys_padded();
    std::fill_n(s.keys_t.get(), Dk * lk, 0.0f);
    for (std::size_t j = 0; j < Lk; ++j)
        for (std::size_t c = 0; c < Dk; ++c) s.keys_t[c * lk + j] = k.row(j)[c];
}

// Kᵀ, and V [Lk padded, Dv padded], zero past the real keys and columns.
template <std::size_t Lk, std::size_t Dk, std::size_t Dv>
void stage_keys_values(strided_rows<const float> k, strided_rows<const float> v, attention_scratch<Lk, Dk, Dv>& s) {
    stage_keys(k, s);
    const std::size_t dv = s.dv_padded();
    std::fill_n(s.values.get(), s.keys_padded() * dv, 0.0f);
    for (std::size_t j = 0; j < Lk; ++j) std::copy_n(v.row(j), Dv, &s.values[j * dv]);
}

// Keys per block: 64, or all the keys (rounded up to two vectors) when there are fewer.
template <std::size_t Lk>
inline constexpr std::size_t kBlock = std::min(kKeyBlock, round_up(Lk, 2 * HWY_LANES(float)));

// Two vectors of columns at a time, Rows rows: 2·Rows independent accumulator chains, and two loads
// of the shared operand per 2·Rows FMAs.
template <std::size_t Rows, class D>
struct tile {
    hn::Vec<D> v[Rows][2];
};

// scores[r][0, block) = scale · q_{row + r} · k_{first..}, masked keys -inf.
template <std::size_t Rows, std::size_t Lq, std::size_t Lk, std::size_t Dk, std::size_t Dv, causal Causal>
void block_scores(strided_rows<const float> q, std::size_t row, std::size_t first, const attention_args& args,
                  attention_scratch<Lk, Dk, Dv>& s) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d), lk = s.keys_padded();
    const auto scale = hn::Set(d, args.scale);
    for (std::size_t c = 0; c < kBlock<Lk>; c += 2 * lanes) {
        tile<Rows, decltype(d)> acc;
#pragma GCC unroll 8
        for (std::size_t r = 0; r < Rows; ++r) acc.v[r][0] = acc.v[r][1] = hn::Zero(d);
        for (std::size_t e = 0; e < Dk; ++e) {
            const float* keys = &s.keys_t[e * lk + first + c];
            const auto k0 = hn::Load(d, keys), k1 = hn::Load(d, keys + lanes);
#pragma GCC unroll 8
            for (std::size_t r = 0; r < Rows; ++r) {
                const auto x = hn::Set(d, q.row(row + r)[e]);
                acc.v[r][0] = hn::MulAdd(x, k0, acc.v[r][0]);
                acc.v[r][1] = hn::MulAdd(x, k1, acc.v[r][1]);
            }
        }
#pragma GCC unroll 8
        for (std::size_t r = 0; r < Rows; ++r) {
            hn::Store(hn::Mul(acc.v[r][0], scale), d, &s.scores[r * kKeyBlock + c]);
            hn::Store(hn::Mul(acc.v[r][1], scale), d, &s.scores[r * kKeyBlock + c + lanes]);
        }
    }
    constexpr float masked = -std::numeric_limits<float>::infinity();
    for (std::size_t r = 0; r < Rows; ++r) {
        const std::size_t visible = visible_keys<Causal>(row + r, Lq, Lk);
        if (!args.key_attend && visible >= first + kBlock<Lk>) continue;  // every key of the block is seen
        for (std::size_t j = 0; j < kBlock<Lk>; ++j) {
            const std::size_t key = first + j;
            const bool attended = key < visible && (!args.key_attend || args.key_attend[key]);
            if (!attended) s.scores[r * kKeyBlock + j] = masked;
        }
    }
}

// Turns row r's scores into p = exp(score - m_new), updates its running max m and sum l, and returns
// the factor by which its output so far must be rescaled. A block with every key masked gives p = 0.
template <std::size_t Lk>
float online_softmax_step(float* scores, float& m, float& l) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d);
    auto max = hn::Load(d, scores);
    for (std::size_t c = lanes; c < kBlock<Lk>; c += lanes) max = hn::Max(max, hn::Load(d, scores + c));
    const float block_max = hn::GetLane(hn::MaxOfLanes(d, max));
    if (block_max == -std::numeric_limits<float>::infinity()) {
        std::fill_n(scores, kBlock<Lk>, 0.0f);
        return 1.0f;
    }
    const float m_new = std::max(m, block_max);
    const float correction = m == -std::numeric_limits<float>::infinity() ? 0.0f : std::exp(m - m_new);
    auto sum = hn::Zero(d);
    for (std::size_t c = 0; c < kBlock<Lk>; c += lanes) {
        const auto p = hn::Exp(d, hn::Sub(hn::Load(d, scores + c), hn::Set(d, m_new)));  // exp(-inf) = 0
        hn::Store(p, d, scores + c);
        sum = hn::Add(sum, p);
    }
    l = l * correction + hn::GetLane(hn::SumOfLanes(d, sum));
    m = m_new;
    return correction;
}

// o_r = o_r · correction_r + Σ_j p_r[j] · v_j for the Rows rows, `Vectors` (1 or 2) vectors of columns
// from column c: each value vector is loaded once for all the rows.
template <std::size_t Rows, std::size_t Vectors, std::size_t Lk>
void accumulate_values(const float* p, const float* values, std::size_t stride, const float* correction, float* o,
                       std::size_t c) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d);
    tile<Rows, decltype(d)> acc;
#pragma GCC unroll 8
    for (std::size_t r = 0; r < Rows; ++r)
#pragma GCC unroll 2
        for (std::size_t v = 0; v < Vectors; ++v)
            acc.v[r][v] = hn::Mul(hn::Load(d, o + r * stride + c + v * lanes), hn::Set(d, correction[r]));
    for (std::size_t j = 0; j < kBlock<Lk>; ++j) {
        hn::Vec<decltype(d)> x[Vectors];
#pragma GCC unroll 2
        for (std::size_t v = 0; v < Vectors; ++v) x[v] = hn::Load(d, values + j * stride + c + v * lanes);
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
        for (std::size_t v = 0; v < Vectors; ++v) hn::Store(acc.v[r][v], d, o + r * stride + c + v * lanes);
}

template <std::size_t Rows, std::size_t Lq, std::size_t Lk, std::size_t Dk, std::size_t Dv, causal Causal>
void query_block(strided_rows<const float> q, std::size_t row, strided_rows<float> out, const attention_args& args,
                 attention_scratch<Lk, Dk, Dv>& s) {
    const std::size_t dv = s.dv_padded(), lanes = hn::Lanes(hn::ScalableTag<float>());
    float m[Rows], l[Rows], correction[Rows];
    std::fill_n(m, Rows, -std::numeric_limits<float>::infinity());
    std::fill_n(l, Rows, 0.0f);
    std::fill_n(s.out.get(), Rows * dv, 0.0f);
    const std::size_t last_visible = visible_keys<Causal>(row + Rows - 1, Lq, Lk);  // the most any row sees
    for (std::size_t first = 0; first < last_visible; first += kBlock<Lk>) {
        block_scores<Rows, Lq, Lk, Dk, Dv, Causal>(q, row, first, args, s);
        for (std::size_t r = 0; r < Rows; ++r) correction[r] = online_softmax_step<Lk>(&s.scores[r * kKeyBlock], m[r], l[r]);
        const float* values = &s.values[first * dv];
        const std::size_t pairs_end = dv - dv % (2 * lanes);
        for (std::size_t c = 0; c < pairs_end; c += 2 * lanes)
            accumulate_values<Rows, 2, Lk>(s.scores.get(), values, dv, correction, s.out.get(), c);
        if (pairs_end < dv) accumulate_values<Rows, 1, Lk>(s.scores.get(), values, dv, correction, s.out.get(), pairs_end);
    }
    for (std::size_t r = 0; r < Rows; ++r)
        for (std::size_t c = 0; c < Dv; ++c)
            out.row(row + r)[c] = l[r] > 0 ? s.out[r * dv + c] / l[r] : 0.0f;  // 0: every key masked
}

// Query rows [row_begin, row_end) of the attention output, K and V staged in the scratch. Rows go in
// blocks of kQueryRows from row_begin: with row_begin a multiple of kQueryRows, a row's result does
// not depend on how the rows are split among threads.
template <std::size_t Lq, std::size_t Lk, std::size_t Dk, std::size_t Dv, causal Causal = causal::none>
void attend_rows(strided_rows<const float> q, std::size_t row_begin, std::size_t row_end, strided_rows<float> out,
                 const attention_args& args, attention_scratch<Lk, Dk, Dv>& scratch) {
    std::size_t row = row_begin;
    for (; row + kQueryRows <= row_end; row += kQueryRows)
        query_block<kQueryRows, Lq, Lk, Dk, Dv, Causal>(q, row, out, args, scratch);
    switch (row_end - row) {  // the last rows
        case 3: query_block<3, Lq, Lk, Dk, Dv, Causal>(q, row, out, args, scratch); break;
        case 2: query_block<2, Lq, Lk, Dk, Dv, Causal>(q, row, out, args, scratch); break;
        case 1: query_block<1, Lq, Lk, Dk, Dv, Causal>(q, row, out, args, scratch); break;
        default: break;
    }
}

// out [Lq, Dv] = softmax(mask(scale · q·kᵀ)) · v for q [Lq, Dk], k [Lk, Dk], v [Lk, Dv], contiguous.
template <std::size_t Lq, std::size_t Lk, std::size_t Dk, std::size_t Dv, causal Causal = causal::none>
void attention(const float* q, const float* k, const float* v, float* out, const attention_args& args,
               attention_scratch<Lk, Dk, Dv>& scratch) {
    stage_keys_values({k, Dk}, {v, Dv}, scratch);
    attend_rows<Lq, Lk, Dk, Dv, Causal>({q, Dk}, 0, Lq, {out, Dv}, args, scratch);
}

// The need_weights path: probability rows [row_begin, row_end) of softmax(mask(scale · q·kᵀ)), written
// to out [Lq, Lk], K staged by stage_keys. Blocks no row of a pass may see are -inf without a product.
template <std::size_t Rows, std::size_t Lq, std::size_t Lk, std::size_t Dk, causal Causal>
void probability_block(strided_rows<const float> q, std::size_t row, strided_rows<float> out,
                       const attention_args& args, attention_scratch<Lk, Dk, 0>& s) {
    const std::size_t last_visible = visible_keys<Causal>(row + Rows - 1, Lq, Lk);
    for (std::size_t first = 0; first < Lk; first += kBlock<Lk>) {
        const std::size_t count = std::min(kBlock<Lk>, Lk - first);
        if (first >= last_visible) {
            for (std::size_t r = 0; r < Rows; ++r)
                std::fill_n(out.row(row + r) + first, count, -std::numeric_limits<float>::infinity());
            continue;
        }
        block_scores<Rows, Lq, Lk, Dk, 0, Causal>(q, row, first, args, s);
        for (std::size_t r = 0; r < Rows; ++r) std::copy_n(&s.scores[r * kKeyBlock], count, out.row(row + r) + first);
    }
    for (std::size_t r = 0; r < Rows; ++r) softmax<Lk>(1, out.row(row + r), out.row(row + r));
}

template <std::size_t Lq, std::size_t Lk, std::size_t Dk, causal Causal = causal::none>
void probability_rows(strided_rows<const float> q, std::size_t row_begin, std::size_t row_end,
                      strided_rows<float> out, const attention_args& args, attention_scratch<Lk, Dk, 0>& scratch) {
    std::size_t row = row_begin;
    for (; row + kQueryRows <= row_end; row += kQueryRows)
        probability_block<kQueryRows, Lq, Lk, Dk, Causal>(q, row, out, args, scratch);
    switch (row_end - row) {  // the last rows
        case 3: probability_block<3, Lq, Lk, Dk, Causal>(q, row, out, args, scratch); break;
        case 2: probability_block<2, Lq, Lk, Dk, Causal>(q, row, out, args, scratch); break;
        case 1: probability_block<1, Lq, Lk, Dk, Causal>(q, row, out, args, scratch); break;
        default: break;
    }
}

}  // namespace ctformer::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_KERNELS_ATTENTION_INL_H_ toggle
