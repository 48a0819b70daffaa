// GEMM for linear layers, C[m, N] = A[m, K] · Wᵀ with W [N, K], and a fused epilogue (gemm.hpp).
// Per-target code: include once per Highway target (foreach_target), or once for the static
// target. W is packed, once, into panels of kPanelVectors vectors of columns, K-major, in fp32 or
// bf16, so the micro-kernel reads it contiguously; a kRows × kPanelVectors tile of accumulators
// lives in registers; A is packed too, per block of rows and K steps (BLIS's order: gemm_panels).
// N need not divide the panel width: the last panel is zero-padded and stored partially. N and K
// are the packed weight's: one kernel per tile height and format, not per shape (as fast as
// compile-time N and K, and each model compiles fewer copies), nor per epilogue, which is applied
// to a panel's rows of C after their last K block (finish_panel). Rows (m, e.g. batch · sequence)
// are a run-time count.

// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_KERNELS_GEMM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_KERNELS_GEMM_INL_H_
#undef CTFORMER_KERNELS_GEMM_INL_H_
#else
#define CTFORMER_KERNELS_GEMM_INL_H_
#endif

#include <cmath>
#include <cstring>

#include <hwy/aligned_allocator.h>
#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "../core/exceptions.hpp"
#include "../core/huge_pages.hpp"
#include "activation-inl.h"
#include "bf16_dot.hpp"
#include "gemm.hpp"
#include "prefetch.hpp"
#include "rotary-inl.h"
#include "tiles.hpp"
#include "transpose-inl.h"

HWY_BEFORE_NAMESPACE();
namespace ctformer::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The tile of accumulators fills the vector registers: 16 on AVX2 and narrower (4 × 3 accumulators,
// 3 of W, one broadcast of A), 32 on AVX-512 (6 × 4, 4, 1): the fastest tiles measured
// (docs/performance.md).
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
inline constexpr std::size_t kRows = 6;          // rows of A per micro-tile
inline constexpr std::size_t kPanelVectors = 4;  // vectors of columns per micro-tile
#else
inline constexpr std::size_t kRows = 4;
inline constexpr std::size_t kPanelVectors = 3;
#endif

// With at most kStreamRows rows of A (decoding, a batch of single tokens) a step is a few FMAs per
// cache line of W, which streams from memory, and the hardware prefetcher alone left the stream
// short of the bandwidth: W's panel is prefetched kPrefetchBytes ahead of the loads (prefetch.hpp).
// With more rows the prefetches only take load slots (docs/performance.md).
inline constexpr std::size_t kStreamRows = 8;

// With more rows than a tile holds (up to kStreamRows), one tile of all of them reads each chunk of
// a panel in slices of kSliceVectors vectors, and each slice prefetches its share of the stream, in
// order: a second tile of the leftover rows read W from L1 while nothing streamed, and slices that
// each prefetched their own columns made a strided stream, both slower (docs/performance.md). The
// slice's tile holds kStreamRows × kSliceVectors accumulators.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
inline constexpr std::size_t kSliceVectors = 2;
#else
inline constexpr std::size_t kSliceVectors = 1;
#endif
static_assert(kPanelVectors % kSliceVectors == 0);

using float_tag = hn::ScalableTag<float>;
using V = hn::Vec<float_tag>;

inline std::size_t panel_width() { return kPanelVectors * hn::Lanes(float_tag()); }

// AVX512-BF16's micro-tile (bf16_dot.hpp) takes this target's panels where they are 512 bits wide.
#undef CTFORMER_GEMM_BF16_DOT  // the previous target's
#if defined(CTFORMER_BF16_DOT) && HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
#define CTFORMER_GEMM_BF16_DOT 1
#endif

// The micro-kernel a weight packed in `format` runs on here (gemm.hpp).
inline gemm_unit unit_for(precision format) {
    if (format == precision::fp32) return gemm_unit::fp32;
#ifdef CTFORMER_GEMM_BF16_DOT
    if (bf16_dot::available()) return gemm_unit::bf16_dot;
#endif
    return gemm_unit::bf16_widened;
}

using kernels::packed_weight;

// `panels` panels of W [rows, K] packed for this target in `format` (gemm.hpp), K-major: column j of
// panel p is W's row row_of(p, j), zeros where that is `rows` or more; C is n wide.
template <class RowOf>
packed_weight pack_panels(std::size_t rows_of_w, std::size_t n, std::size_t panels, std::size_t k, const float* w,
                          const float* bias, precision format, RowOf row_of) {
    const std::size_t width = panel_width();
    packed_weight packed;
    packed.n = n;
    packed.k = k;
    packed.panels = panels;
    packed.width = width;
    packed.format = format;
    packed.unit = unit_for(format);
    const auto at = [&](std::size_t p, std::size_t kk, std::size_t j) {
        const std::size_t row = row_of(p, j);
        return row < rows_of_w && kk < k ? w[row * k + kk] : 0.0f;
    };
    const std::size_t rows = packed.rows();
    if (format == precision::bf16) packed.pair_data = hwy::AllocateAligned<std::uint32_t>(panels * rows * width);
    else packed.panel_data = hwy::AllocateAligned<float>(panels * rows * width);
    packed.bias = hwy::AllocateAligned<float>(panels * width);
    if ((!packed.panel_data && !packed.pair_data) || !packed.bias)
        throw out_of_memory("a packed weight", panels * width * (rows * 4 + 4));
    if (packed.panel_data) advise_huge_pages(packed.panel_data.get(), panels * rows * width * sizeof(float));
    else advise_huge_pages(packed.pair_data.get(), panels * rows * width * sizeof(std::uint32_t));
    for (std::size_t p = 0; p < panels; ++p)
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t j = 0; j < width; ++j) {
                const std::size_t i = (p * rows + r) * width + j;
                if (format == precision::fp32) packed.panel_data[i] = at(p, r, j);
                else packed.pair_data[i] = bfloat16_bits(at(p, 2 * r, j)) | std::uint32_t{bfloat16_bits(at(p, 2 * r + 1, j))} << 16;
            }
    for (std::size_t j = 0; j < panels * width; ++j) {
        const std::size_t row = row_of(j / width, j % width);
        packed.bias[j] = bias && row < rows_of_w ? bias[row] : 0.0f;
    }
    return packed;
}

// W [N, K] packed: panels of panel_width() columns, in order.
inline packed_weight pack_weight(std::size_t n, std::size_t k, const float* w, const float* bias = nullptr,
                                 precision format = precision::fp32) {
    const std::size_t width = panel_width();
    return pack_panels(n, n, divide_up(n, width), k, w, bias, format,
                       [&](std::size_t p, std::size_t j) { return p * width + j; });
}

// W = [W_gate | W_up] [2F, K] packed for a gated GEMM: each gate panel beside its up panel.
inline packed_weight pack_gated_weight(std::size_t f, std::size_t k, const float* w, const float* bias = nullptr,
                                       precision format = precision::fp32) {
    const std::size_t width = panel_width(), panels = 2 * divide_up(f, width);
    packed_weight packed = pack_panels(2 * f, panels * width, panels, k, w, bias, format, [&](std::size_t p, std::size_t j) {
        const std::size_t column = p / 2 * width + j;
        return column < f ? p % 2 * f + column : 2 * f;
    });
    packed.gated = f;
    return packed;
}

// v, kept in a register. With 16 vector registers (AVX2 and narrower x86 targets) and the tile using
// all of them, GCC otherwise folds W's loads into the FMAs: one load per FMA, as many as the load
// ports take, where 3 loads feed 12 FMAs.
HWY_INLINE V in_register(V v) {
#if HWY_ARCH_X86 && HWY_TARGET > HWY_AVX3 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
    asm("" : "+x"(v.raw));
#endif
    return v;
}

// A's rows [row_begin, row_end) × steps [k_begin, k_end), copied into `sliver` tile by tile (the
// even_tiles of at most `height` rows that the micro-kernel takes, or with `pad`, zeros up to
// `height`), each tile step-major: the micro-kernel then reads A contiguously. Returns the floats
// written.
inline std::size_t pack_rows(const float* a, std::size_t k, std::size_t row_begin, std::size_t row_end,
                             std::size_t k_begin, std::size_t k_end, float* sliver, std::size_t height = kRows,
                             bool pad = false) {
    const even_tiles tiles(row_end - row_begin, height);
    const std::size_t steps = k_end - k_begin;
    float* const first = sliver;
    for (std::size_t t = 0, row = row_begin; t < tiles.count; row += tiles.rows(t++)) {
        const std::size_t rows = tiles.rows(t), width = pad ? height : rows;
        transpose_block({a + row * k + k_begin, k}, rows, steps, sliver, width);
        for (std::size_t kk = 0; pad && kk < steps; ++kk) std::fill(sliver + kk * width + rows, sliver + (kk + 1) * width, 0.0f);
        sliver += steps * width;
    }
    return std::size_t(sliver - first);
}

// x[0, n) rounded to bf16 in place, as bfloat16_bits rounds (a NaN stays a NaN), a vector at a time.
inline void round_to_bfloat16(float* x, std::size_t n) {
    const auto round = [x](auto d, std::size_t i) HWY_ATTR {
        const hn::RebindToUnsigned<decltype(d)> du;
        const auto v = hn::LoadU(d, x + i);
        const auto bits = hn::BitCast(du, v), high = hn::Set(du, 0xffff0000u);
        const auto nearest = hn::Add(bits, hn::Add(hn::Set(du, 0x7fffu), hn::And(hn::ShiftRight<16>(bits), hn::Set(du, 1u))));
        const auto nan = hn::Or(hn::And(bits, high), hn::Set(du, 0x00400000u));
        hn::StoreU(hn::BitCast(d, hn::And(hn::IfThenElse(hn::RebindMask(du, hn::IsNaN(v)), nan, nearest), high)), d, x + i);
    };
    const std::size_t lanes = hn::Lanes(float_tag());
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes) round(float_tag(), i);
    for (; i < n; ++i) round(hn::CappedTag<float, 1>(), i);
}

// Panel p of W as the micro-kernel reads it, step k (of parity Odd) at a time: Vectors vectors of
// fp32 from vector `first` of the panel; and A as it packs it for the micro-kernel, a_steps(steps)
// values of a_type per row for `steps` K steps.
struct fp32_panel {
    // k steps per iteration of the micro-kernel's loop. With 2, GCC moved accumulators between
    // registers from one step to the next and, on AVX2, spilled them.
    static constexpr std::size_t kSteps = 1;
    const float* data;
    std::size_t width;
    fp32_panel(const packed_weight& w, std::size_t p) : data(&w.panel_data[p * w.rows() * w.width]), width(w.width) {}

    using a_type = float;
    static std::size_t a_steps(std::size_t steps) { return steps; }
    static void pack(const float* a, std::size_t k, std::size_t row_begin, std::size_t row_end, std::size_t k_begin,
                     std::size_t k_end, float* sliver, std::size_t height = kRows, bool pad = false) {
        pack_rows(a, k, row_begin, row_end, k_begin, k_end, sliver, height, pad);
    }

    const char* at(std::size_t k) const { return reinterpret_cast<const char*>(data + k * width); }
    template <bool Odd, std::size_t Vectors>
    HWY_INLINE void load(std::size_t k, std::size_t first, V (&b)[Vectors]) const {
#pragma GCC unroll 16
        for (std::size_t v = 0; v < Vectors; ++v)
            b[v] = in_register(hn::Load(float_tag(), data + k * width + (first + v) * hn::Lanes(float_tag())));
    }
};

// bf16 pairs: step k's values are the low (k even) or high (k odd) halves of row k/2, widened to
// fp32 by shifts: exact. Shifts, not a mask for the high halves: on AVX2 the mask's register was
// one more than the 16 the tile leaves, and GCC rebuilt it every step and spilled accumulators
// (docs/performance.md). A is packed rounded to bf16, as the dot products round it.
struct bf16_panel {
    static constexpr std::size_t kSteps = 2;  // a pair's two halves
    using uint_tag = hn::RebindToUnsigned<float_tag>;
    const std::uint32_t* data;
    std::size_t width;
    bf16_panel(const packed_weight& w, std::size_t p) : data(&w.pair_data[p * w.rows() * w.width]), width(w.width) {}

    using a_type = float;
    static std::size_t a_steps(std::size_t steps) { return steps; }
    static void pack(const float* a, std::size_t k, std::size_t row_begin, std::size_t row_end, std::size_t k_begin,
                     std::size_t k_end, float* sliver, std::size_t height = kRows, bool pad = false) {
        round_to_bfloat16(sliver, pack_rows(a, k, row_begin, row_end, k_begin, k_end, sliver, height, pad));
    }

    const char* at(std::size_t k) const { return reinterpret_cast<const char*>(data + k / 2 * width); }
    template <bool Odd, std::size_t Vectors>
    HWY_INLINE void load(std::size_t k, std::size_t first, V (&b)[Vectors]) const {
        const uint_tag du;
#pragma GCC unroll 16
        for (std::size_t v = 0; v < Vectors; ++v) {
            const auto pair = hn::Load(du, data + k / 2 * width + (first + v) * hn::Lanes(du));
            b[v] = hn::BitCast(float_tag(), hn::ShiftLeft<16>(Odd ? hn::ShiftRight<16>(pair) : pair));
        }
    }
};

// acc[r] += a[r] · b, for the tile's rows (a: one step of a packed sliver of A).
template <std::size_t Rows, std::size_t Vectors>
HWY_INLINE void multiply_add(const float* a, const V (&b)[Vectors], V (&acc)[Rows][Vectors]) {
#pragma GCC unroll 16
    for (std::size_t r = 0; r < Rows; ++r) {
        const V x = hn::Set(float_tag(), a[r]);
#pragma GCC unroll 16
        for (std::size_t v = 0; v < Vectors; ++v) acc[r][v] = hn::MulAdd(x, b[v], acc[r][v]);
    }
}

// Bytes of W a tile prefetches while it computes, spread evenly over its K steps, a cache line at a
// time: its share of the stream ahead of its loads (decoding), or of the slice of W that the next
// panel's tiles read (gemm_panels).
struct prefetch_range {
    const char* from = nullptr;
    std::size_t bytes = 0;
};

// Issues the prefetches of `range` due after `done` of a tile's `steps` K steps, from `issued` on.
HWY_INLINE void prefetch_due(prefetch_range range, std::size_t done, std::size_t steps, std::size_t& issued) {
    const std::size_t due = std::min(range.bytes, divide_up(range.bytes, steps) * done);
    for (; issued < due; issued += kLineBytes) hwy::Prefetch(range.from + issued);
}

#ifdef CTFORMER_GEMM_BF16_DOT
inline float* pairs_buffer();  // after kSliverFloats

// bf16 pairs for AVX512-BF16's dot products (bf16_dot.hpp), which run a tile's whole K block
// (multiply_block); A is packed as pairs too: row r's values of steps 2s and 2s + 1 at [s · rows + r] of its tile.
struct bf16_dot_panel {
    static_assert(HWY_LANES(float) == bf16_dot::kLanes);
    using a_type = bf16_dot::packed_pair;
    static std::size_t a_steps(std::size_t steps) { return divide_up(steps, 2); }
    // Each row's steps converted to pairs (bf16_dot::to_pairs), then tile by tile pair-major as
    // pack_rows packs fp32 steps (the pairs' bits moved as floats).
    static void pack(const float* a, std::size_t k, std::size_t row_begin, std::size_t row_end, std::size_t k_begin,
                     std::size_t k_end, float* sliver, std::size_t height = kRows, bool pad = false) {
        const std::size_t rows = row_end - row_begin, pairs = a_steps(k_end - k_begin);
        float* const converted = pairs_buffer();
        for (std::size_t r = 0; r < rows; ++r) bf16_dot::to_pairs(a + (row_begin + r) * k + k_begin, k_end - k_begin, converted + r * pairs);
        pack_rows(converted, pairs, 0, rows, 0, pairs, sliver, height, pad);
    }

    const std::uint32_t* data;
    std::size_t width;
    bf16_dot_panel(const packed_weight& w, std::size_t p) : data(&w.pair_data[p * w.rows() * w.width]), width(w.width) {}
    const char* at(std::size_t k) const { return reinterpret_cast<const char*>(data + k / 2 * width); }
};
#endif

// Step k (of parity Odd) of the tile: W's vectors from `first` times a's Rows values.
template <bool Odd, std::size_t Rows, std::size_t Vectors, class Panel>
HWY_INLINE void k_step(const Panel& panel, std::size_t k, std::size_t first, const float* a, V (&acc)[Rows][Vectors]) {
    V b[Vectors];
    panel.template load<Odd, Vectors>(k, first, b);
    multiply_add<Rows, Vectors>(a, b, acc);
}

// acc += the tile's K block [k_begin, k_end) of A's packed rows `a` times the panel's Vectors vectors
// from `first`, a step at a time; `ahead` is prefetched meanwhile.
template <std::size_t Rows, std::size_t Vectors, class Panel>
HWY_INLINE void multiply_block(const Panel& panel, const float* a, std::size_t k_begin, std::size_t k_end,
                               std::size_t first, prefetch_range ahead, V (&acc)[Rows][Vectors]) {
    std::size_t k = k_begin, issued = 0;
    for (; k + Panel::kSteps <= k_end; k += Panel::kSteps, a += Panel::kSteps * Rows) {
        prefetch_due(ahead, k + Panel::kSteps - k_begin, k_end - k_begin, issued);
        k_step<false>(panel, k, first, a, acc);
        if constexpr (Panel::kSteps == 2) k_step<true>(panel, k + 1, first, a + Rows, acc);
    }
    if (k < k_end) k_step<false>(panel, k, first, a, acc);
}

#ifdef CTFORMER_GEMM_BF16_DOT
// The same with AVX512-BF16's dot products, a pair of steps at a time (k_begin even), in bf16_dot's
// tile, which takes the sums through memory: a call per tile and K block.
template <std::size_t Rows, std::size_t Vectors>
HWY_INLINE void multiply_block(const bf16_dot_panel& panel, const bf16_dot::packed_pair* a, std::size_t k_begin,
                               std::size_t k_end, std::size_t first, prefetch_range ahead, V (&acc)[Rows][Vectors]) {
    const float_tag d;
    constexpr std::size_t lanes = bf16_dot::kLanes;
    HWY_ALIGN float sums[Rows * Vectors * lanes];
    for (std::size_t r = 0; r < Rows; ++r)
        for (std::size_t v = 0; v < Vectors; ++v) hn::Store(acc[r][v], d, sums + (r * Vectors + v) * lanes);
    bf16_dot::tile<Rows, Vectors>(a, panel.data + k_begin / 2 * panel.width + first * lanes, panel.width,
                                  bf16_dot_panel::a_steps(k_end - k_begin), sums, ahead.from, ahead.bytes);
    for (std::size_t r = 0; r < Rows; ++r)
        for (std::size_t v = 0; v < Vectors; ++v) acc[r][v] = hn::Load(d, sums + (r * Vectors + v) * lanes);
}
#endif

// The tile's accumulators for a row of C's `count` columns from `column`: the bias (zeros without
// one) before the first K block, else the sum so far, which the previous block left in C.
template <std::size_t Vectors>
HWY_INLINE void start_row(const packed_weight& w, std::size_t column, const float* out, std::size_t count,
                          bool first_block, V (&acc)[Vectors]) {
    const float_tag d;
    const std::size_t lanes = hn::Lanes(d);
    HWY_ALIGN float tile[Vectors * HWY_LANES(float)];
    const bool partial = count < Vectors * lanes;
    if (!first_block && partial) std::memcpy(tile, out, count * sizeof(float));
    for (std::size_t v = 0; v < Vectors; ++v)
        acc[v] = first_block ? hn::Load(d, &w.bias[column + v * lanes])
                 : partial   ? hn::Load(d, tile + v * lanes)
                             : hn::LoadU(d, out + v * lanes);
}

// Stores a row's accumulators, `count` of its values, into C.
template <std::size_t Vectors>
HWY_INLINE void store_row(const V (&acc)[Vectors], float* out, std::size_t count) {
    const float_tag d;
    const std::size_t lanes = hn::Lanes(d);
    if (count == Vectors * lanes) {
        for (std::size_t v = 0; v < Vectors; ++v) hn::StoreU(acc[v], d, out + v * lanes);
        return;
    }
    HWY_ALIGN float tile[Vectors * HWY_LANES(float)];
    for (std::size_t v = 0; v < Vectors; ++v) hn::Store(acc[v], d, tile + v * lanes);
    std::memcpy(out, tile, count * sizeof(float));
}

// Where row i of the epilogue's residual is.
inline const float* residual_row(const epilogue_args& args, std::size_t i, std::size_t n) {
    const std::size_t row = args.residual_row_of ? args.residual_row_of[i] : args.residual_rows ? i % args.residual_rows : i;
    return args.residual + row * n;
}

// out[j] = Act(x[j]) · up[j] + residual[j] for j < count, up and residual optional; the last values
// a lane at a time.
template <activation Act>
HWY_INLINE void finish_row(const float* x, const float* up, const float* residual, float* out, std::size_t count) {
    const auto finish = [&](auto d, std::size_t j) HWY_ATTR {
        auto v = activate<Act>(d, hn::LoadU(d, x + j));
        if (up) v = hn::Mul(v, hn::LoadU(d, up + j));
        if (residual) v = hn::Add(v, hn::LoadU(d, residual + j));
        hn::StoreU(v, d, out + j);
    };
    const std::size_t lanes = hn::Lanes(float_tag());
    std::size_t j = 0;
    for (; j + lanes <= count; j += lanes) finish(float_tag(), j);
    for (; j < count; ++j) finish(hn::CappedTag<float, 1>(), j);
}

// The epilogue on panel p's columns of C's rows [row_begin, row_end), in cache after their last K
// block: Act, then the residual (if any), in place. Gated, on the pair of panels that p (odd)
// completes: Act(gate) · up (+ residual) into args.gated_out.
template <activation Act>
void finish_values(float* c, const packed_weight& w, std::size_t p, std::size_t row_begin, std::size_t row_end,
                   const epilogue_args& args) {
    const std::size_t n = w.gated ? w.gated : w.n, column = (w.gated ? p / 2 : p) * w.width;
    const std::size_t count = std::min(w.width, n - column);
    for (std::size_t r = row_begin; r < row_end; ++r) {
        const float* residual = args.residual ? residual_row(args, r, n) + column : nullptr;
        float* sums = c + r * w.n + (w.gated ? p - 1 : p) * w.width;
        if (w.gated) finish_row<Act>(sums, sums + w.width, residual, args.gated_out + r * n + column, count);
        else finish_row<Act>(sums, nullptr, residual, sums, count);
    }
}

// Rotary positions on the heads whose last column is in panel p, and whose first is in this call's
// panels (from panel_begin): all their panels have their sums, still in cache. A thread's panels start
// at a head (gemm_step), so every head is turned, once, by the thread that made it. Row by row, each
// at its position.
inline void rotate_heads(float* c, const packed_weight& w, std::size_t p, std::size_t panel_begin, std::size_t row_begin,
                         std::size_t row_end, const rotary_args& rot) {
    const std::size_t first = std::max(divide_up(p * w.width + 1, rot.head_dim) - 1,  // its last column in p
                                       divide_up(panel_begin * w.width, rot.head_dim));
    const std::size_t end = std::min((p + 1) * w.width, rot.columns) / rot.head_dim;  // ... and all of it rotated
    if (first >= end) return;
    for (std::size_t r = row_begin; r < row_end; ++r) {
        const float* cos = rot.angles + rot.position(r) * 2 * rot.pairs;
        float* heads = c + r * w.n + first * rot.head_dim;
        rotate_row(end - first, rot.head_dim, rot.pairs, rot.half, cos, cos + rot.pairs, heads, heads);
    }
}

// finish_values for the epilogue's activation, chosen at run time, once a panel's rows have their
// sums, then rotate_heads: one copy of each micro-kernel serves every epilogue, where a copy per
// epilogue had made each model compile three times the GEMM code (docs/performance.md). The last K
// block ran hundreds of FMAs per value finished here; reloading the values from cache costs about
// one of them.
HWY_NOINLINE inline void finish_panel(float* c, const packed_weight& w, std::size_t p, std::size_t panel_begin,
                                      std::size_t row_begin, std::size_t row_end, const epilogue_args& args) {
    if (w.gated ? p % 2 == 1 : args.act != activation::none || args.residual != nullptr)
        with_activation(args.act, [&]<activation Act>() HWY_ATTR { finish_values<Act>(c, w, p, row_begin, row_end, args); });
    if (args.rotary.columns) rotate_heads(c, w, p, panel_begin, row_begin, row_end, args.rotary);
}

// Where a micro-tile is in C: rows [row, row + rows) of its Rows (rows < Rows: a padded tile whose
// last rows of A are zeros and are not stored), and the columns of panel p's vectors from `vector`.
struct tile_place {
    std::size_t row, rows, panel, vector;
};

// C's tile at `at`, over K steps [k_begin, k_end): `a` is its rows' packed sliver, step-major (Rows
// values a step), W read as Panel, Vectors vectors of it; `ahead` is prefetched meanwhile.
// `at` by reference: passed by value, GCC stored its four fields and copied them to the call's stack
// in one 32-byte load, which no store can forward, so it waited for every older store to reach L1,
// the previous tile's stores of C among them, lines that missed the cache (docs/performance.md).
template <std::size_t Rows, std::size_t Vectors, class Panel>
void micro_tile(const typename Panel::a_type* a, const packed_weight& w, const tile_place& at, std::size_t k_begin, std::size_t k_end,
                prefetch_range ahead, float* c) {
    const std::size_t column = at.panel * w.width + at.vector * hn::Lanes(float_tag());
    if (column >= w.n) return;  // a slice of the last panel's padding
    const std::size_t count = std::min(Vectors * hn::Lanes(float_tag()), w.n - column);
    V acc[Rows][Vectors];
    // The tile must stay in registers: the loops over it are unrolled whatever the -O level.
#pragma GCC unroll 16
    for (std::size_t r = 0; r < Rows; ++r)
        start_row(w, column, c + (at.row + std::min(r, at.rows - 1)) * w.n + column, count, k_begin == 0, acc[r]);

    // C's tile, written after the K block: its lines fetched while the tile computes, where they had
    // missed the cache on the stores, a sixth of a bf16 tile's time.
    for (std::size_t r = 0; r < at.rows; ++r)
        for (std::size_t line = 0; line < count * sizeof(float); line += kLineBytes)
            hwy::Prefetch(reinterpret_cast<const char*>(c + (at.row + r) * w.n + column) + line);

    const Panel panel(w, at.panel);
    // In a function of its own: the same loop in a branch of `if constexpr` here had GCC 12 run the
    // fp32 tile at a third of its speed.
    multiply_block<Rows, Vectors>(panel, a, k_begin, k_end, at.vector, ahead, acc);

#pragma GCC unroll 16
    for (std::size_t r = 0; r < Rows; ++r) {
        if (r >= at.rows) break;
        store_row(acc[r], c + (at.row + r) * w.n + column, count);
    }
}

// BLIS's blocking: K in blocks of kBlockSteps steps, rows in blocks whose packed A fills
// kSliverFloats (256 KB, in L2), and for each block, every panel. A row tile reads its block's slice
// of one panel of W from L2 (48 KB on AVX2, 128 KB on AVX-512), and reads and writes its tile of C
// once a block. A block of one row tile takes K whole: nothing reuses its slice. Reading A in place
// instead, strided, one float from each of kRows rows a step, had made K blocks slower than none.
// Blocks of 64 steps (a slice kept in L1) cost more in C traffic than L1 saved; blocks of 128 rows
// rather than 32 read W from L3 4 times less often (docs/performance.md).
inline constexpr std::size_t kBlockSteps = 512;  // even: bf16 pairs
inline constexpr std::size_t kSliverFloats = 65536;

// This thread's buffer for a packed block of A, allocated on its first GEMM.
inline float* sliver_buffer() {
    thread_local const auto sliver = hwy::AllocateAligned<float>(kSliverFloats);
    if (!sliver) throw out_of_memory("a GEMM's packed rows", kSliverFloats * sizeof(float));
    return sliver.get();
}

// This thread's buffer for rows of A converted to bf16 pairs before they are packed: ⌈steps / 2⌉
// of each row, at most the sliver's floats (a block's rows × steps fit it; with K of one step, as
// many pairs as steps).
inline float* pairs_buffer() {
    thread_local const auto pairs = hwy::AllocateAligned<float>(kSliverFloats);
    if (!pairs) throw out_of_memory("a GEMM's bf16 rows", kSliverFloats * sizeof(float));
    return pairs.get();
}

inline std::size_t block_depth(const packed_weight& w, std::size_t rows) {
    return std::min(w.k, rows <= kRows ? kSliverFloats / kRows / 2 * 2 : kBlockSteps);
}

// With at most kStreamRows rows (decoding), W streams from memory once, in order: panel by panel,
// each panel's K in chunks (in L1). Up to kRows rows are one tile of the whole panel, a chunk
// kStreamChunk steps; more are one padded tile of kStreamRows, slice by slice, a chunk about
// kSlicedChunkBytes of W, whatever the format. (Blocks of K across every panel instead had W
// re-read from L2 by a second tile, with no prefetch running meanwhile, and the stream jumping from
// panel to panel.) A is packed whole. Chunks of 8 KB were the fastest at batch 8, 64 steps at batch 1
// (docs/performance.md).
inline constexpr std::size_t kStreamChunk = 64;  // even: bf16 pairs
inline constexpr std::size_t kSlicedChunkBytes = 8192;

// K steps per chunk of W's stream, even (bf16 pairs).
inline std::size_t stream_chunk(const packed_weight& w, bool sliced) {
    if (!sliced) return kStreamChunk;
    return std::max<std::size_t>(2, kSlicedChunkBytes / (w.width * element_bytes(w.format)) / 2 * 2);
}

template <class Panel>
void stream_panels(const float* a, const packed_weight& w, float* c, const epilogue_args& args, std::size_t row_begin,
                   std::size_t row_end, std::size_t panel_begin, std::size_t panel_end, float* sliver) {
    const std::size_t rows = row_end - row_begin;
    const bool sliced = rows > kRows;
    Panel::pack(a, w.k, row_begin, row_end, 0, w.k, sliver, sliced ? kStreamRows : kRows, sliced);
    const auto* packed = reinterpret_cast<const typename Panel::a_type*>(sliver);
    for (std::size_t p = panel_begin; p < panel_end; ++p)
        for (std::size_t k_begin = 0, chunk_steps = stream_chunk(w, sliced); k_begin < w.k; k_begin += chunk_steps) {
            const std::size_t k_end = std::min(w.k, k_begin + chunk_steps);
            // The chunk's bytes, prefetched kPrefetchBytes ahead, in order whatever the slices.
            const Panel panel(w, p);
            const prefetch_range chunk{panel.at(k_begin) + kPrefetchBytes, std::size_t(panel.at(k_end) - panel.at(k_begin))};
            if (sliced) {
                const std::size_t share = chunk.bytes / (kPanelVectors / kSliceVectors);
                for (std::size_t vector = 0; vector < kPanelVectors; vector += kSliceVectors)
                    micro_tile<kStreamRows, kSliceVectors, Panel>(
                        packed + Panel::a_steps(k_begin) * kStreamRows, w, {row_begin, rows, p, vector}, k_begin, k_end,
                        {chunk.from + vector / kSliceVectors * share, share}, c);
            } else {
                for_even_tiles<kRows>(row_begin, row_end, [&]<std::size_t Rows>(std::size_t row) HWY_ATTR {
                    micro_tile<Rows, kPanelVectors, Panel>(packed + Panel::a_steps(k_begin) * Rows, w, {row, Rows, p, 0}, k_begin, k_end,
                                                           chunk, c);
                });
            }
            if (k_end == w.k) finish_panel(c, w, p, panel_begin, row_begin, row_end, args);
        }
}

// The slice of W that the tiles read after panel p's K block from k_begin (blocks of `depth` steps):
// the next panel's; after the last panel, the first one's slice of the next K block, or of the first
// (the next row block's). Panel p's tiles prefetch it between them, so that it comes from memory (or
// L3) while they compute, and the next panel's first tile finds it in cache: W from memory no longer
// stalls the first tiles, most of all with few rows (docs/performance.md).
template <class Panel>
prefetch_range next_slice(const packed_weight& w, std::size_t p, std::size_t k_begin, std::size_t depth,
                          std::size_t panel_begin, std::size_t panel_end) {
    if (++p == panel_end) {
        p = panel_begin;
        k_begin = k_begin + depth < w.k ? k_begin + depth : 0;
    }
    const Panel next(w, p);
    const std::size_t k_end = std::min(w.k, k_begin + depth);
    return {next.at(k_begin), std::size_t(next.at(k_end) - next.at(k_begin))};
}

// Rows [row_begin, row_end) × panels [panel_begin, panel_end) of C = epilogue(A · Wᵀ). The rows go
// in even blocks (as many as the sliver needs, of sizes that differ by one at most), each in even
// tiles: a last block of a few rows had read all of W from L3 for them (M=512: 4 blocks of 126 rows
// and one of 8), and a last tile of 2 rows could not hide the FMA's latency. Each row's sum takes
// its K steps in order whatever its tile and block (a partial sum goes through C unrounded), so
// results are the same for any split of the work, and any number of threads.
template <class Panel>
void gemm_panels(const float* a, const packed_weight& w, float* c, const epilogue_args& args,
                 std::size_t row_begin, std::size_t row_end, std::size_t panel_begin, std::size_t panel_end) {
    float* const sliver = sliver_buffer();
    if (row_end - row_begin <= kStreamRows && kStreamRows * w.k <= kSliverFloats)
        return stream_panels<Panel>(a, w, c, args, row_begin, row_end, panel_begin, panel_end, sliver);
    const std::size_t depth = block_depth(w, row_end - row_begin);
    const even_tiles blocks(row_end - row_begin, std::max(kRows, kSliverFloats / depth));
    for (std::size_t b = 0, block = row_begin; b < blocks.count; block += blocks.rows(b++)) {
        const std::size_t block_end = block + blocks.rows(b);
        for (std::size_t k_begin = 0; k_begin < w.k; k_begin += depth) {
            const std::size_t k_end = std::min(w.k, k_begin + depth);
            Panel::pack(a, w.k, block, block_end, k_begin, k_end, sliver);
            const auto* packed = reinterpret_cast<const typename Panel::a_type*>(sliver);
            for (std::size_t p = panel_begin; p < panel_end; ++p) {
                const prefetch_range next = next_slice<Panel>(w, p, k_begin, depth, panel_begin, panel_end);
                const std::size_t share = round_up(divide_up(next.bytes, even_tiles(block_end - block, kRows).count), kLineBytes);
                std::size_t done = 0;
                for_even_tiles<kRows>(block, block_end, [&]<std::size_t Rows>(std::size_t row) HWY_ATTR {
                    const prefetch_range part{next.from + done, std::min(share, next.bytes - done)};
                    micro_tile<Rows, kPanelVectors, Panel>(packed + (row - block) * Panel::a_steps(k_end - k_begin), w,
                                                           {row, Rows, p, 0}, k_begin, k_end, part, c);
                    done += part.bytes;
                });
                if (k_end == w.k) finish_panel(c, w, p, panel_begin, block, block_end, args);
            }
        }
    }
}

inline void gemm_block(const float* a, const packed_weight& w, float* c, const epilogue_args& args,
                       std::size_t row_begin, std::size_t row_end, std::size_t panel_begin, std::size_t panel_end) {
#ifdef CTFORMER_GEMM_BF16_DOT
    if (w.unit == gemm_unit::bf16_dot) return gemm_panels<bf16_dot_panel>(a, w, c, args, row_begin, row_end, panel_begin, panel_end);
#endif
    if (w.format == precision::bf16) gemm_panels<bf16_panel>(a, w, c, args, row_begin, row_end, panel_begin, panel_end);
    else gemm_panels<fp32_panel>(a, w, c, args, row_begin, row_end, panel_begin, panel_end);
}

// C [m, N] = epilogue(A [m, K] · Wᵀ + bias); gated, into args.gated_out, C [m, w.n] its scratch.
inline void gemm(std::size_t m, const float* a, const packed_weight& w, float* c, const epilogue_args& args = {}) {
    gemm_block(a, w, c, args, 0, m, 0, w.panels);
}

}  // namespace ctformer::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_KERNELS_GEMM_INL_H_ toggle
