// fuse_embedding_layer_norm:  residual_layer_norm(embedding + positions, embedding(types), γ, β)
//                             layer_norm(embedding + positions + table_row(types), γ, β)
//                                                                  → embedding_layer_norm
// h₀[t] = LayerNorm(words[ids[t]] + positions[first + p] + types[type_ids[t] or row R]): a BERT
// embedding in one step, each token's row summed and normalised as it is written (was 3 steps and
// the sum's round trip through memory). Runs after fuse_position_embedding and fuse_residual_layer_norm,
// whose nodes it takes.
#pragma once

#include "../dsl/ops/elementwise.hpp"
#include "../dsl/ops/embedding.hpp"
#include "../dsl/ops/fused.hpp"
#include "../dsl/ops/layer_norm.hpp"
#include "match.hpp"

namespace ctformer::passes {

struct fuse_embedding_layer_norm {
    static constexpr const char* name = "fuse_embedding_layer_norm";

    // Token types given: their own gather, the sum a residual_layer_norm.
    template <class E>
        requires is_op<E, residual_layer_norm_op> && is_op<child_t<E, 0>, embedding_op<true>> &&
                 is_op<child_t<E, 1>, embedding_op<false>> && same_shape<E, child_t<E, 0>>
    static auto fuse(const E& e) {
        const auto& words = child<0>(e);
        const auto& types = child<1>(e);
        return make_node<shape_of_t<E>>(embedding_layer_norm_op<true>{op_of(words).first, 0, op_of(e).eps},
                                        child<0>(words), child<1>(words), child<2>(words), child<0>(types),
                                        child<1>(types), child<2>(e), child<3>(e));
    }

    // No token types: one row of the types table added to every token.
    template <class E>
        requires is_op<E, layer_norm_op> && is_op<child_t<E, 0>, add_op> &&
                 is_op<child_t<child_t<E, 0>, 0>, embedding_op<true>> && is_op<child_t<child_t<E, 0>, 1>, table_row_op> &&
                 same_shape<E, child_t<child_t<E, 0>, 0>>
    static auto fuse(const E& e) {
        const auto& words = child<0>(child<0>(e));
        const auto& row = child<1>(child<0>(e));
        return make_node<shape_of_t<E>>(embedding_layer_norm_op<false>{op_of(words).first, op_of(row).row, op_of(e).eps},
                                        child<0>(words), child<1>(words), child<2>(words), child<0>(row), child<1>(e),
                                        child<2>(e));
    }
};

}  // namespace ctformer::passes
