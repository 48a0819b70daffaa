// fuse_attention_weights:  softmax(mask(scale(Q·Kᵀ))) → attention_probabilities(Q, K)
// Where the probabilities are wanted themselves (need_weights: they are bound, so fuse_attention
// cannot take them), scores, scale, mask and softmax are still one kernel; the product with V that
// follows is a batched matmul step reading V's heads in place.
#pragma once

#include "fuse_attention.hpp"

namespace ctformer::passes {

struct fuse_attention_weights {
    static constexpr const char* name = "fuse_attention_weights";

    template <class E>
        requires is_op<E, softmax_op> && detail::attention_chain<child_t<E, 0>>::fits
    static auto fuse(const E& e) {
        return detail::fuse_chain<attention_probabilities_op, shape_of_t<E>>(child<0>(e));
    }
};

}  // namespace ctformer::passes
