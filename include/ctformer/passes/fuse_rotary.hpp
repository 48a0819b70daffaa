// fuse_rotary:  rotary<S>(gemm(x, W [, b]))  →  gemm<+rotary S>(x, W [, b], angles)
// Rotary positions applied where q and k are made: each head of the GEMM's output is turned in its
// epilogue as soon as the head's last panel has its sums (kernels/gemm-inl.h), by its row's position,
// the cosines and sines read from a [L, dims] table computed once (rotary_table). fuse_qkv then
// joins the projections, the rotated ones first.
#pragma once

#include "../dsl/ops/rotary.hpp"
#include "match.hpp"

namespace ctformer::passes {

struct fuse_rotary {
    static constexpr const char* name = "fuse_rotary";

    template <class E>
        requires is_rotary<E> && projection_gemm<child_t<E, 0>> && (!epilogue_of<child_t<E, 0>>::rotated)
    static auto fuse(const E& e) {
        using G = child_t<E, 0>;
        constexpr rotary_spec spec = op_t<E>::spec;
        constexpr auto extents = extents_of<G>;
        auto angles = make_leaf(constant<rotary_table<spec>, shape<last(extents, 1), spec.dims()>>{});
        using rotated = epilogue<epilogue_of<G>::bias, activation::none, false, false, rotary_columns{spec, last(extents)}>;
        return with_epilogue<rotated>(child<0>(e), std::move(angles));
    }
};

}  // namespace ctformer::passes
