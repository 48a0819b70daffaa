// The row steps (kernels/rows-inl.h has the loops), over the last axis of width N:
//   layer_norm           (x - mean) / √(var + eps) · γ + β
//   residual_layer_norm  the same of a + b, the sum formed in the same pass
//   rms_norm             x / √(mean(x²) + eps) · γ
//   softmax              exp(x - max) / Σ exp(x - max), a row of -inf giving zeros
//   mask                 a mask no attention step took, on written-out scores [..., Lq, Lk]
//   l2_normalize         x / max(‖x‖₂, 1e-12)
//   rotary               each head's pairs turned by the angles of the row's position (kernels/rotary-inl.h)
//   first_token, mean_pool   [B, L, N] → [B, N]: a sequence's first row, or the (masked) mean of its
//                        rows; a packed batch's sequences each pool their own rows
// Rows go to the threads in blocks.
// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_PLAN_STEPS_ROWS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_PLAN_STEPS_ROWS_INL_H_
#undef CTFORMER_PLAN_STEPS_ROWS_INL_H_
#else
#define CTFORMER_PLAN_STEPS_ROWS_INL_H_
#endif

#include <algorithm>
#include <array>
#include <cmath>

#include "../../dsl/ops/layer_norm.hpp"
#include "../../dsl/ops/mask.hpp"
#include "../../dsl/ops/pooling.hpp"
#include "../../dsl/ops/rotary.hpp"
#include "../../dsl/ops/softmax.hpp"
#include "../../kernels/attention.hpp"
#include "../../kernels/elementwise-inl.h"
#include "../../kernels/rotary-inl.h"
#include "../../kernels/rows-inl.h"
#include "../../kernels/tiles.hpp"
#include "../../core/parallel.hpp"
#include "../../shape/broadcast.hpp"
#include "../../shape/ragged.hpp"
#include "../../core/tensor_check.hpp"
#include "heads.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::plan::HWY_NAMESPACE {
namespace kt = ctformer::kernels::HWY_NAMESPACE;

// f(first row, count) over blocks of the rows, on the threads.
template <class F>
void for_row_blocks(std::size_t rows, int threads, F f) {
    const std::size_t blocks = std::min<std::size_t>(rows, threads > 1 ? 4 * static_cast<std::size_t>(threads) : 1);
    if (blocks == 0) return;
    const std::size_t per_block = kernels::divide_up(rows, blocks);
    parallel_for(blocks, threads, [&](std::size_t block, int) {
        const std::size_t first = std::min(rows, block * per_block);
        f(first, std::min(rows, first + per_block) - first);
    });
}

// layer_norm(x, γ, β), residual_layer_norm(a, b, γ, β) and rms_norm(x, γ).
template <class E>
    requires is_op<E, layer_norm_op> || is_op<E, residual_layer_norm_op> || is_op<E, rms_norm_op>
struct norm_step {
    static constexpr bool residual = is_op<E, residual_layer_norm_op>;
    static constexpr bool rms = is_op<E, rms_norm_op>;  // no mean taken away, no β
    static constexpr std::size_t n = last(extents_of<E>);  // d_model: static (layer_norm.hpp checks γ's width)
    static constexpr bool mixed_lengths = true;             // row by row

    static std::string kernel() { return op_t<E>::name; }
    static std::string detail(const E& e) { return op_of(e).detail(); }

    template <class Lower>
    static void lower(const E& e, Lower& l, step& s) {
        s.reads.push_back({"x", l.value(child<0>(e))});
        if constexpr (residual) s.reads.push_back({"residual", l.value(child<1>(e))});
        s.reads.push_back({"gamma", l.value(child<residual + 1>(e))});
        if constexpr (!rms) s.reads.push_back({"beta", l.value(child<residual + 2>(e))});
    }

    static double flops(const extent_values& at) { return (rms ? 4.0 : 8.0) * double(elements<shape_of_t<E>>(at)); }
    static std::size_t scratch_bytes() { return 0; }

    static void launch(const step& s, const launch_args& a) {
        const float eps = static_cast<float>(op_of(*static_cast<const E*>(s.node)).eps);
        const float *x = a.read("x"), *r = a.read("residual"), *gamma = a.read("gamma"), *beta = a.read("beta");
        for_row_blocks(elements<shape_of_t<E>>(a.extents) / n, a.threads, [&](std::size_t first, std::size_t count) {
            if constexpr (rms) kt::rms_norm<n>(count, x + first * n, gamma, eps, a.out + first * n);
            else kt::residual_layer_norm<n>(count, x + first * n, r ? r + first * n : nullptr, gamma, beta, eps, a.out + first * n);
        });
    }
};

template <class E>
    requires is_op<E, l2_normalize_op>
struct l2_normalize_step {
    static constexpr std::size_t n = last(extents_of<E>);
    static constexpr bool mixed_lengths = true;  // row by row

    static std::string kernel() { return op_t<E>::name; }
    static std::string detail(const E&) { return ""; }

    template <class Lower>
    static void lower(const E& e, Lower& l, step& s) {
        s.reads.push_back({"x", l.value(child<0>(e))});
    }

    static double flops(const extent_values& at) { return 3.0 * double(elements<shape_of_t<E>>(at)); }
    static std::size_t scratch_bytes() { return 0; }

    static void launch(const step&, const launch_args& a) {
        const float least = static_cast<float>(l2_normalize_op::least_norm);
        for_row_blocks(elements<shape_of_t<E>>(a.extents) / n, a.threads, [&](std::size_t first, std::size_t count) {
            kt::l2_normalize<n>(count, a.read("x") + first * n, least, a.out + first * n);
        });
    }
};

// rotary<spec>(x), each row at its position (row_positions_of); the row's cosines and sines are
// computed once for all its heads.
template <class E>
    requires is_rotary<E>
struct rotary_step {
    static constexpr rotary_spec spec = op_t<E>::spec;
    static constexpr std::size_t width = last(extents_of<E>), heads = width / spec.head_dim, pairs = spec.dims() / 2;
    static constexpr bool mixed_lengths = true;  // each packed token at its position
    static constexpr bool decodes = true;        // token by token, at its position

    static std::string kernel() { return op_t<E>::name; }
    static std::string detail(const E&) { return op_t<E>::detail(); }

    template <class Lower>
    static void lower(const E& e, Lower& l, step& s) {
        s.reads.push_back({"x", l.value(child<0>(e))});
    }

    static double flops(const extent_values& at) { return 6.0 * double(elements<shape_of_t<E>>(at) / width * heads * pairs); }
    static std::size_t scratch_bytes() { return 0; }

    static void launch(const step&, const launch_args& a) {
        const kernels::row_positions position = row_positions_of<E>(a);
        for_row_blocks(elements<shape_of_t<E>>(a.extents) / width, a.threads, [&](std::size_t first, std::size_t count) {
            std::array<float, pairs> cos, sin;
            for (std::size_t row = first; row < first + count; ++row) {
                const std::size_t at = position(row);
                for (std::size_t i = 0; i < pairs; ++i) {
                    const double angle = spec.angle(at, i);
                    cos[i] = static_cast<float>(std::cos(angle));
                    sin[i] = static_cast<float>(std::sin(angle));
                }
                kt::rotate_row(heads, spec.head_dim, pairs, spec.pairing == rotary_pairing::half, cos.data(), sin.data(),
                               a.read("x") + row * width, a.out + row * width);
            }
        });
    }
};

template <class E>
    requires is_op<E, pool_op<pooling::first>> || is_op<E, pool_op<pooling::mean>>
struct pool_step {
    static constexpr bool mean = op_t<E>::kind == pooling::mean;
    static constexpr bool masked = arity<E> == 2;
    static constexpr std::size_t n = last(extents_of<E>);
    static constexpr bool mixed_lengths = true;  // each sequence its own rows (extents.ragged)

    static std::string kernel() { return op_t<E>::name; }
    static std::string detail(const E&) { return masked ? "masked" : ""; }

    template <class Lower>
    static void lower(const E& e, Lower& l, step& s) {
        s.reads.push_back({"x", l.value(child<0>(e))});
        if constexpr (masked) s.reads.push_back({"mask", l.value(child<1>(e))});
    }

    static double flops(const extent_values& at) {
        return mean ? 2.0 * double(elements<shape_of_t<child_t<E, 0>>>(at)) : 0.0;
    }
    static std::size_t scratch_bytes() { return 0; }

    static void launch(const step&, const launch_args& a) {
        const ragged_batch* ragged = a.extents.ragged;
        const std::size_t length = extent<child_t<E, 0>>(a.extents, 1);
        const std::size_t sequences = ragged ? ragged->sequences() : a.extents.batch;
        const float *x = a.read("x"), *mask = a.read("mask");
        for_row_blocks(sequences, a.threads, [&](std::size_t first, std::size_t count) {
            for (std::size_t b = first; b < first + count; ++b) {
                const std::size_t row = ragged ? ragged->offsets[b] : b * length, rows = ragged ? ragged->length(b) : length;
                if constexpr (mean) kt::weighted_mean<n>(rows, x + row * n, mask ? mask + row : nullptr, a.out + b * n);
                else std::copy_n(x + row * n, n, a.out + b * n);
            }
        });
    }
};

template <class E>
    requires is_op<E, softmax_op>
struct softmax_step {

    static std::string kernel() { return "softmax"; }
    static std::string detail(const E&) { return ""; }

    template <class Lower>
    static void lower(const E& e, Lower& l, step& s) {
        s.reads.push_back({"x", l.value(child<0>(e))});
    }

    static double flops(const extent_values& at) { return 5.0 * double(elements<shape_of_t<E>>(at)); }
    static std::size_t scratch_bytes() { return 0; }

    static void launch(const step&, const launch_args& a) {
        const std::size_t n = extent<E>(a.extents);
        for_row_blocks(elements<shape_of_t<E>>(a.extents) / n, a.threads, [&](std::size_t first, std::size_t count) {
            kt::softmax(count, n, a.read("x") + first * n, a.out + first * n);
        });
    }
};

// mask(scores, ...) where no attention step took it: the scores copied, then each row of Lk masked
// (dsl/ops/mask.hpp): causal bars the keys after the row's last visible one (and, in a sliding
// window, those `window` keys or more before it), attend and key padding
// bar the keys their boolean row says not to attend, additive adds its row.
template <class E>
    requires is_mask<E>
struct mask_step {
    static constexpr mask_kind kind = op_t<E>::kind;
    static constexpr bool causal = kind == mask_kind::causal || kind == mask_kind::causal_bottom_right;
    static constexpr std::size_t window = op_t<E>::window;
    static_assert(batch_outside_matrices<causal, E>::value);

    static std::string kernel() { return "mask"; }
    static std::string detail(const E&) { return op_t<E>::detail(); }

    template <class Lower>
    static void lower(const E& e, Lower& l, step& s) {
        s.reads.push_back({"scores", l.value(child<0>(e))});
        if constexpr (!causal) s.reads.push_back({"mask", l.value(child<1>(e))});
    }

    static double flops(const extent_values& at) {
        return kind == mask_kind::additive ? double(elements<shape_of_t<E>>(at)) : 0.0;
    }
    static std::size_t scratch_bytes() { return 0; }

    // Keys row r of the scores [..., lq, lk] may see: all but the causal mask's cut.
    static std::size_t visible(std::size_t r, std::size_t lq, std::size_t lk) {
        const std::size_t i = r % lq;
        const std::size_t shift = kind == mask_kind::causal_bottom_right && lk > lq ? lk - lq : 0;
        const std::size_t cut = kind == mask_kind::causal_bottom_right && lq > lk ? lq - lk : 0;
        return i + shift + 1 > cut ? i + shift + 1 - cut : 0;
    }

    // The mask's row for row r of the scores.
    static auto mask_rows(const E& e, const launch_args& a) {
        const std::size_t lk = extent<E>(a.extents);
        const dims_t scores = dims_of<shape_of_t<E>>(a.extents);
        const dims_t mask = dims_of<shape_of_t<child_t<E, 1>>>(a.extents);
        const std::size_t per_sequence = elements<shape_of_t<E>>(a.extents) / (mask.size() == 2 ? mask[0] : 1);
        const std::vector<std::size_t> strides = broadcast_strides(mask, scores, op_of(e).batch_first);
        return [=, m = a.read("mask")](std::size_t r) -> const float* {
            if constexpr (kind == mask_kind::key_padding) return m + r * lk / per_sequence * lk;
            else return m + broadcast_index(r * lk, scores, strides);
        };
    }

    static void launch(const step& s, const launch_args& a) {
        const std::size_t n = elements<shape_of_t<E>>(a.extents), lq = extent<E>(a.extents, 1), lk = extent<E>(a.extents);
        if (const float* scores = a.read("scores"); a.out != scores) std::copy_n(scores, n, a.out);
        if constexpr (causal) {
            for_row_blocks(n / lk, a.threads, [&](std::size_t first, std::size_t count) {
                for (std::size_t r = first; r < first + count; ++r) {
                    kt::bar_from(lk, visible(r, lq, lk), a.out + r * lk);
                    // a window is top-left causal: row r's query is r % lq
                    std::fill_n(a.out + r * lk, std::min(kernels::first_visible_key(r % lq, window), lk),
                                -std::numeric_limits<float>::infinity());
                }
            });
        } else {
            const auto row = mask_rows(*static_cast<const E*>(s.node), a);
            for_row_blocks(n / lk, a.threads, [&](std::size_t first, std::size_t count) {
                for (std::size_t r = first; r < first + count; ++r) {
                    if constexpr (kind == mask_kind::additive) kt::add_row(lk, row(r), a.out + r * lk);
                    else kt::bar_row(lk, row(r), a.out + r * lk);
                }
            });
        }
    }
};

}  // namespace ctformer::plan::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_PLAN_STEPS_ROWS_INL_H_ toggle
