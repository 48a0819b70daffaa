// fuse_linear:  x·Wᵀ → gemm(x, W);  gemm(x, W) + b → gemm<+bias>(x, W, b)   (W, b weights)
// The product becomes the GEMM kernel against W packed at bind time; the bias starts its accumulators.
// W may itself be the transpose of a weight stored [in, out] (GPT-2's Conv1D, x·V = x·(Vᵀ)ᵀ): it is
// transposed once, as it is packed.
#pragma once

#include "../dsl/ops/matmul.hpp"
#include "match.hpp"

namespace ctformer::passes {

// A weight matrix as a GEMM reads it, [out, in]: a weight, or the transpose of one stored [in, out].
template <class W>
concept gemm_weight = (is_weight<W> && rank_of<W> == 2) ||
                      (is_op<W, transpose_op> && is_weight<child_t<W, 0>> && rank_of<child_t<W, 0>> == 2);

struct fuse_linear {
    static constexpr const char* name = "fuse_linear";

    template <class E>
        requires is_op<E, matmul_op> && is_op<child_t<E, 1>, transpose_op> && gemm_weight<child_t<child_t<E, 1>, 0>>
    static auto fuse(const E& e) {
        return make_node<shape_of_t<E>>(gemm_op<plain>{}, child<0>(e), child<0>(child<1>(e)));
    }

    template <class E>
        requires is_op<E, add_op> && is_gemm_with<child_t<E, 0>, plain> &&
                 is_weight<child_t<E, 1>> && (rank_of<child_t<E, 1>> == 1) && same_shape<E, child_t<E, 0>>
    static auto fuse(const E& e) {
        return with_epilogue<epilogue<true, activation::none, false>>(child<0>(e), child<1>(e));
    }
};

}  // namespace ctformer::passes
