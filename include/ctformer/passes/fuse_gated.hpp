// fuse_gated:  act(gemm(x, W_g [, b_g])) · gemm(x, W_u [, b_u])
//              → gemm<act ·up>(x, concat(W_g, W_u) [, concat(b_g, b_u)])
// LLaMA's SwiGLU feed-forward, silu(gate(x)) · up(x): one GEMM over [W_gate | W_up], each gate panel
// packed beside the up panel of its columns, the product taken in the epilogue (kernels/gemm.hpp),
// so neither half is written to memory. The factors may come in either order.
#pragma once

#include "../dsl/ops/elementwise.hpp"
#include "match.hpp"

namespace ctformer::passes {

// gate · up, two GEMMs of one input (a leaf: a value both read), alike but for gate's activation.
template <class Gate, class Up>
concept gate_and_up = is_gemm<Gate> && is_gemm<Up> && is_leaf<child_t<Gate, 0>> &&
                      std::is_same_v<child_t<Gate, 0>, child_t<Up, 0>> && same_shape<Gate, Up> &&
                      std::is_same_v<epilogue_of<Up>, epilogue<epilogue_of<Gate>::bias, activation::none, false>> &&
                      !epilogue_of<Gate>::residual && !epilogue_of<Gate>::gated && !epilogue_of<Gate>::rotated;

struct fuse_gated {
    static constexpr const char* name = "fuse_gated";

    template <class E>
        requires is_op<E, multiply_op> &&
                 (gate_and_up<child_t<E, 0>, child_t<E, 1>> || gate_and_up<child_t<E, 1>, child_t<E, 0>>)
    static auto fuse(const E& e) {
        if constexpr (gate_and_up<child_t<E, 0>, child_t<E, 1>>) return gated(child<0>(e), child<1>(e));
        else return gated(child<1>(e), child<0>(e));
    }

    template <class Gate, class Up>
    static auto gated(const Gate& gate, const Up& up) {
        using before = epilogue_of<Gate>;
        constexpr int f = extents_of<child_t<Gate, 1>>[0], k = last(extents_of<child_t<Gate, 1>>);
        auto weights = make_node<shape<2 * f, k>>(concat_op{}, child<1>(gate), child<1>(up));
        using op = gemm_op<epilogue<before::bias, before::act, false, true>>;
        if constexpr (before::bias)
            return make_node<shape_of_t<Gate>>(op{}, child<0>(gate), std::move(weights),
                                               make_node<shape<2 * f>>(concat_op{}, child<2>(gate), child<2>(up)));
        else
            return make_node<shape_of_t<Gate>>(op{}, child<0>(gate), std::move(weights));
    }
};

}  // namespace ctformer::passes
