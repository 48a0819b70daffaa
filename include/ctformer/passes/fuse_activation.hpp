// fuse_activation:  act(gemm(x, W, b)) → gemm<act>(x, W, b), for every activation
// The activation is applied to the accumulators before they are stored.
#pragma once

#include "../dsl/ops/elementwise.hpp"
#include "match.hpp"

namespace ctformer::passes {

struct fuse_activation {
    static constexpr const char* name = "fuse_activation";

    template <class E, class Before = epilogue_of<child_t<E, 0>>>
    static constexpr bool takes_activation = Before::act == activation::none && !Before::residual && !Before::rotated;

    template <class E>
        requires is_activation<E> && is_gemm<child_t<E, 0>> && takes_activation<E>
    static auto fuse(const E& e) {
        return with_epilogue<epilogue<epilogue_of<child_t<E, 0>>::bias, op_t<E>::act, false>>(child<0>(e));
    }
};

}  // namespace ctformer::passes
