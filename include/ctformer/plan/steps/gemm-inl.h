// The GEMM step: a fused gemm node act(A·Wᵀ + bias) + residual, or gated, act(gate) · up + residual,
// as a plan step (kernels/gemm-inl.h has the loops). Everything the plan knows of it is here: its
// operands, name, FLOPs, scratch (a gated GEMM's sums), how W is packed at bind time and how it is
// launched on the threads.
// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_PLAN_STEPS_GEMM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_PLAN_STEPS_GEMM_INL_H_
#undef CTFORMER_PLAN_STEPS_GEMM_INL_H_
#else
#define CTFORMER_PLAN_STEPS_GEMM_INL_H_
#endif

#include <algorithm>
#include <numeric>

#include "../../kernels/gemm-inl.h"
#include "../../core/parallel.hpp"
#include "../../shape/ragged.hpp"
#include "heads.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::plan::HWY_NAMESPACE {
namespace kt = ctformer::kernels::HWY_NAMESPACE;

template <class E>
    requires is_gemm<E>
struct gemm_step {
    using W = operand_t<E, operand_role::weight>;
    static constexpr bool gated = epilogue_of<E>::gated;  // W [gate|up]: the output is half as wide
    static constexpr std::size_t n = extents_of<W>[0] / (gated ? 2 : 1), k = last(extents_of<W>);
    static constexpr bool residual = epilogue_of<E>::residual;
    // A gated GEMM's rows go to the threads in blocks of at most this many tiles, each block's sums
    // [rows, 2F] in its thread's scratch: 128 rows or fewer, as many as a block of gemm_panels takes.
    static constexpr std::size_t gated_tiles = 128 / kt::kRows;
    static constexpr bool mixed_lengths = true;  // rows are tokens, wherever their sequences lie

    static std::string kernel() { return "gemm"; }
    static std::string detail(const E& e) { return op_of(e).detail(); }

    template <class Lower>
    static void lower(const E& e, Lower& l, step& s) {
        s.reads.push_back({"a", l.value(operand_of<operand_role::input>(e))});
        if constexpr (residual) s.reads.push_back({"residual", l.value(operand_of<operand_role::residual>(e))});
        s.packed.push_back(l.packed(operand_of<operand_role::weight>(e)));
        if constexpr (epilogue_of<E>::bias) s.packed.push_back(l.packed(operand_of<operand_role::bias>(e)));
        if constexpr (epilogue_of<E>::rotated) s.reads.push_back({"angles", l.value(operand_of<operand_role::angles>(e))});
    }

    // The panels a thread's share of W comes in: gate and up pairs, or whole heads of rotary positions.
    static std::size_t panel_multiple(const kernels::packed_weight& w) {
        if constexpr (gated) return 2;
        else if constexpr (epilogue_of<E>::rotated) return std::lcm(w.width, std::size_t(epilogue_of<E>::rotary.spec.head_dim)) / w.width;
        else return 1;
    }

    // Where the rotary positions' angles are, and each row's position (kernels/rotary.hpp).
    static kernels::rotary_args rotary(const launch_args& a) {
        constexpr rotary_columns turns = epilogue_of<E>::rotary;
        return {.angles = a.read("angles"),
                .columns = std::size_t(turns.columns),
                .head_dim = std::size_t(turns.spec.head_dim),
                .pairs = std::size_t(turns.spec.dims() / 2),
                .half = turns.spec.pairing == rotary_pairing::half,
                .position = row_positions_of<E>(a)};
    }

    static double flops(const extent_values& at) { return 2.0 * double(elements<shape_of_t<E>>(at)) * k * (gated ? 2 : 1); }
    static std::size_t scratch_bytes() {
        const std::size_t width = kt::panel_width(), sums = 2 * kernels::round_up(n, width);
        return gated ? gated_tiles * kt::kRows * sums * sizeof(float) : 0;
    }
    static kernels::packed_weight pack(const float* w, const float* bias, kernels::precision format) {
        return gated ? kt::pack_gated_weight(n, k, w, bias, format) : kt::pack_weight(n, k, w, bias, format);
    }

    // Many rows: split in blocks of whole micro-kernel tiles (a row's arithmetic never depends on the
    // split), each block reading all of W from the caches. Fewer row tiles than work items wanted (the
    // seeds' 20 rows, decoding): W's panels split instead, one block per thread, so the cores stream a
    // share of W each, once, where split rows had each stream all of it (the seeds' layer got slower
    // with a second thread), and each packs A once (docs/performance.md). A gated GEMM's panels split
    // in pairs (gate and up), and its row blocks are at most gated_tiles tiles; a rotated one's at heads.
    static void launch(const step&, const launch_args& a) {
        const std::size_t rows = elements<shape_of_t<E>>(a.extents) / n;
        kernels::epilogue_args args{.act = epilogue_of<E>::act};
        if constexpr (residual) {
            args.residual = a.read("residual");
            using R = operand_t<E, operand_role::residual>;
            static_assert(!(gated && is_constant<R>), "fuse_positional_encoding leaves gated GEMMs alone");
            if constexpr (is_constant<R>) {  // the positional encoding: L rows (from the run's position), or each token's
                args.residual += a.extents.position * n;
                args.residual_rows = a.extents.of(extents_of<R>[0]);
                if (a.extents.ragged) args.residual_row_of = a.extents.ragged->positions.data();
            }
        }
        if constexpr (epilogue_of<E>::rotated) args.rotary = rotary(a);
        const kernels::packed_weight& w = *a.packed;
        const std::size_t row_tiles = kernels::divide_up(rows, kt::kRows);
        const std::size_t wanted = a.threads > 1 ? 4 * static_cast<std::size_t>(a.threads) : 1;
        const bool few_rows = row_tiles < wanted;
        const std::size_t least_blocks = gated ? kernels::divide_up(row_tiles, gated_tiles) : 1;
        const std::size_t row_blocks = std::max(few_rows ? 1 : wanted, least_blocks);
        const std::size_t panel_blocks = few_rows ? std::min(w.panels, static_cast<std::size_t>(a.threads)) : 1;
        const std::size_t tiles_per_block = kernels::divide_up(row_tiles, row_blocks);
        const std::size_t panels_per_block = kernels::round_up(kernels::divide_up(w.panels, panel_blocks), panel_multiple(w));
        parallel_for(row_blocks * panel_blocks, a.threads, [&](std::size_t item, int thread) {
            const std::size_t r = item / panel_blocks, p = item % panel_blocks;
            const std::size_t row_begin = std::min(rows, r * tiles_per_block * kt::kRows);
            const std::size_t row_end = std::min(rows, row_begin + tiles_per_block * kt::kRows);
            const std::size_t panel_begin = std::min(w.panels, p * panels_per_block);
            const std::size_t panel_end = std::min(w.panels, panel_begin + panels_per_block);
            if constexpr (gated) {  // the block's rows from 0, its sums in the thread's scratch
                kernels::epilogue_args block = args;
                block.gated_out = a.out + row_begin * n;
                if (block.residual) block.residual += row_begin * n;
                kt::gemm_block(a.read("a") + row_begin * k, w, reinterpret_cast<float*>(a.scratch[thread]), block, 0,
                               row_end - row_begin, panel_begin, panel_end);
            } else {
                kt::gemm_block(a.read("a"), w, a.out, args, row_begin, row_end, panel_begin, panel_end);
            }
        });
    }
};

}  // namespace ctformer::plan::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_PLAN_STEPS_GEMM_INL_H_ toggle
