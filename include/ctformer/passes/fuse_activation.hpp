// fuse_activation:  relu(gemm(x, W, b)) → gemm<relu>(x, W, b), and likewise gelu
// The activation is applied to the accumulators before they are stored.
#pragma once

#include "../dsl/ops/elementwise.hpp"
#include "match.hpp"

namespace ctformer::passes {

struct fuse_activation {
    static constexpr const char* name = "fuse_activation";

    template <class E, class Before = epilogue_of<child_t<E, 0>>>
    static constexpr bool takes_activation = Before::act == activation::none && !Before::residual;

    template <class E>
        requires(is_op<E, relu_op> || is_op<E, gelu_op>) && is_gemm<child_t<E, 0>> && takes_activation<E>
    static auto fuse(const E& e) {
        constexpr activation act = is_op<E, relu_op> ? activation::relu : activation::gelu;
        return with_epilogue<epilogue<epilogue_of<child_t<E, 0>>::bias, act, false>>(child<0>(e));
    }
};

}  // namespace ctformer::passes
