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
        const auto& masked = child<0>(e);
        using chain = detail::attention_chain<std::decay_t<decltype(masked)>>;
        const auto& scaled = detail::scaled_scores(masked);
        const auto& product = child<0>(scaled);
        const attention_probabilities_op<chain::causal_kind, chain::key_padding> op{op_of(scaled).factor};
        if constexpr (chain::key_padding)
            return make_node<shape_of_t<E>>(op, child<0>(product), child<0>(child<1>(product)),
                                            detail::key_padding_operand(masked));
        else
            return make_node<shape_of_t<E>>(op, child<0>(product), child<0>(child<1>(product)));
    }
};

}  // namespace ctformer::passes
