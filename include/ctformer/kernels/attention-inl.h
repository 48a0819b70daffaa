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

HWY_BEFORE_NAMESPACE();
namespace ctformer::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

inline constexpr std::size_t kQueryRows = 4;
inline constexpr std::size_t kKeyBlock = 64;  // a multiple of every target's lane count

inline constexpr std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

template <std::size_t Lk, std::size_t Dk, std::size_t Dv>
struct attention_scratch {
    using D = hn::ScalableTag<float>;
    static std::size_t keys_padded() { return round_up(Lk, kKeyBlock); }
    static std::size_t dv_padded() { return round_up(Dv, hn::Lanes(D())); }

    hwy::AlignedFreeUniquePtr<float[]> keys_t = hwy::AllocateAligned<float>(Dk * keys_padded());  // Kᵀ
    hwy::AlignedFreeUniquePtr<float[]> values = hwy::AllocateAligned<float>(keys_padded() * dv_padded());
    hwy::AlignedFreeUniquePtr<float[]> scores = hwy::AllocateAligned<float>(kQueryRows * kKeyBlock);
    hwy::AlignedFreeUniquePtr<float[]> out = hwy::AllocateAligned<float>(kQueryRows * dv_padded());
};

// Kᵀ [Dk, Lk padded] and V [Lk padded, Dv padded], zero-filled past the real keys and columns.
template <std::size_t Lk, std::size_t Dk, std::size_t Dv>
void stage_keys_values(strided_rows<const float> k, strided_rows<const float> v, attention_scratch<Lk, Dk, Dv>& s) {
    const std::size_t lk = s.keys_padded(), dv = s.dv_padded();
    std::fill_n(s.keys_t.get(), Dk * lk, 0.0f);
    std::fill_n(s.values.get(), lk * dv, 0.0f);
    for (std::size_t j = 0; j < Lk; ++j) {
        for (std::size_t c = 0; c < Dk; ++c) s.keys_t[c * lk + j] = k.row(j)[c];
        std::copy_n(v.row(j), Dv, &s.values[j * dv]);
    }
}

// scores[r][0, kKeyBlock) = scale · q_{row + r} · k_{first..}, masked keys -inf.
template <std::size_t Rows, std::size_t Lq, std::size_t Lk, std::size_t Dk, std::size_t Dv, causal Causal>
void block_scores(strided_rows<const float> q, std::size_t row, std::size_t first, const attention_args& args,
                  attention_scratch<Lk, Dk, Dv>& s) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d), lk = s.keys_padded();
    const auto scale = hn::Set(d, args.scale);
    for (std::size_t c = 0; c < kKeyBlock; c += lanes) {
        hn::Vec<decltype(d)> acc[Rows];
#pragma GCC unroll 8
        for (std::size_t r = 0; r < Rows; ++r) acc[r] = hn::Zero(d);
        for (std::size_t e = 0; e < Dk; ++e) {
            const auto kt = hn::Load(d, &s.keys_t[e * lk + first + c]);
#pragma GCC unroll 8
            for (std::size_t r = 0; r < Rows; ++r)
                acc[r] = hn::MulAdd(hn::Set(d, q.row(row + r)[e]), kt, acc[r]);
        }
#pragma GCC unroll 8
        for (std::size_t r = 0; r < Rows; ++r)
            hn::Store(hn::Mul(acc[r], scale), d, &s.scores[r * kKeyBlock + c]);
    }
    constexpr float masked = -std::numeric_limits<float>::infinity();
    for (std::size_t r = 0; r < Rows; ++r) {
        const std::size_t visible = visible_keys<Causal>(row + r, Lq, Lk);
        for (std::size_t j = 0; j < kKeyBlock; ++j) {
            const std::size_t key = first + j;
            const bool attended = key < visible && (!args.key_attend || args.key_attend[key]);
            if (!attended) s.scores[r * kKeyBlock + j] = masked;
        }
    }
}

inline constexpr std::size_t kOutputVectors = 8;  // output columns (in vectors) per pass over a key block

// o[0, Vectors·lanes) = o · correction + Σ_j p[j] · values[j·stride ...]
template <std::size_t Vectors>
void accumulate_values(const float* p, const float* values, std::size_t stride, float correction, float* o) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d);
    hn::Vec<decltype(d)> acc[Vectors];
#pragma GCC unroll 8
    for (std::size_t v = 0; v < Vectors; ++v)
        acc[v] = hn::Mul(hn::Load(d, o + v * lanes), hn::Set(d, correction));
    for (std::size_t j = 0; j < kKeyBlock; ++j) {
        if (p[j] == 0.0f) continue;  // a masked key
        const auto weight = hn::Set(d, p[j]);
#pragma GCC unroll 8
        for (std::size_t v = 0; v < Vectors; ++v)
            acc[v] = hn::MulAdd(weight, hn::Load(d, values + j * stride + v * lanes), acc[v]);
    }
#pragma GCC unroll 8
    for (std::size_t v = 0; v < Vectors; ++v) hn::Store(acc[v], d, o + v * lanes);
}

// Folds one key block into the running max m, sum l and output o of query row r.
template <std::size_t Lk, std::size_t Dk, std::size_t Dv>
void online_softmax_step(std::size_t r, std::size_t first, float& m, float& l,
                         attention_scratch<Lk, Dk, Dv>& s) {
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d), dv = s.dv_padded();
    float* scores = &s.scores[r * kKeyBlock];
    const float block_max = *std::max_element(scores, scores + kKeyBlock);
    if (block_max == -std::numeric_limits<float>::infinity()) return;  // every key here is masked
    const float m_new = std::max(m, block_max);
    const float correction = m == -std::numeric_limits<float>::infinity() ? 0.0f : std::exp(m - m_new);
    auto sum = hn::Zero(d);
    for (std::size_t c = 0; c < kKeyBlock; c += lanes) {
        const auto p = hn::Exp(d, hn::Sub(hn::Load(d, scores + c), hn::Set(d, m_new)));  // exp(-inf) = 0
        hn::Store(p, d, scores + c);
        sum = hn::Add(sum, p);
    }
    l = l * correction + hn::GetLane(hn::SumOfLanes(d, sum));
    m = m_new;

    // o = o · correction + Σ_j p_j · v_j, kOutputVectors independent accumulator chains at a time
    float* o = &s.out[r * dv];
    const float* values = &s.values[first * dv];
    const std::size_t chunk = kOutputVectors * lanes, chunked_end = dv - dv % chunk;
    for (std::size_t c = 0; c < chunked_end; c += chunk)
        accumulate_values<kOutputVectors>(scores, values + c, dv, correction, o + c);
    for (std::size_t c = chunked_end; c < dv; c += lanes)
        accumulate_values<1>(scores, values + c, dv, correction, o + c);
}

template <std::size_t Rows, std::size_t Lq, std::size_t Lk, std::size_t Dk, std::size_t Dv, causal Causal>
void query_block(strided_rows<const float> q, std::size_t row, strided_rows<float> out, const attention_args& args,
                 attention_scratch<Lk, Dk, Dv>& s) {
    float m[Rows], l[Rows];
    std::fill_n(m, Rows, -std::numeric_limits<float>::infinity());
    std::fill_n(l, Rows, 0.0f);
    std::fill_n(s.out.get(), Rows * s.dv_padded(), 0.0f);
    const std::size_t last_visible = visible_keys<Causal>(row + Rows - 1, Lq, Lk);  // the most any row sees
    for (std::size_t first = 0; first < last_visible; first += kKeyBlock) {
        block_scores<Rows, Lq, Lk, Dk, Dv, Causal>(q, row, first, args, s);
        for (std::size_t r = 0; r < Rows; ++r) online_softmax_step(r, first, m[r], l[r], s);
    }
    for (std::size_t r = 0; r < Rows; ++r)
        for (std::size_t c = 0; c < Dv; ++c)
            out.row(row + r)[c] = l[r] > 0 ? s.out[r * s.dv_padded() + c] / l[r] : 0.0f;  // 0: all masked
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

}  // namespace ctformer::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_KERNELS_ATTENTION_INL_H_ toggle
