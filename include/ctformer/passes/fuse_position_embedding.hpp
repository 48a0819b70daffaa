// fuse_position_embedding:  embedding(table, ids) + leading_rows(positions) → embedding + positions
// y[b, l] = table[ids[b, l]] + positions[first + l]: each row gathered and its position's row added as it is
// written, one pass over the output (GPT-2's h₀ = wte[ids] + wpe[0 … L-1]).
#pragma once

#include "../dsl/ops/elementwise.hpp"
#include "../dsl/ops/embedding.hpp"
#include "match.hpp"

namespace ctformer::passes {

struct fuse_position_embedding {
    static constexpr const char* name = "fuse_position_embedding";

    template <class E>
        requires is_op<E, add_op> && is_op<child_t<E, 0>, embedding_op<false>> &&
                 is_op<child_t<E, 1>, leading_rows_op> && same_shape<E, child_t<E, 0>>
    static auto fuse(const E& e) {
        const auto& gather = child<0>(e);
        const int first = op_of(child<1>(e)).first;
        return make_node<shape_of_t<E>>(embedding_op<true>{first}, child<0>(gather), child<1>(gather), child<0>(child<1>(e)));
    }
};

}  // namespace ctformer::passes
