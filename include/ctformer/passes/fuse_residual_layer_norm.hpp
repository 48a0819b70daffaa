// fuse_residual_layer_norm:  layer_norm(a + b, γ, β) → residual_layer_norm(a, b, γ, β)
// One pass: the sum is formed, its mean and variance taken and normalised row by row.
#pragma once

#include "../dsl/ops/elementwise.hpp"
#include "../dsl/ops/layer_norm.hpp"
#include "match.hpp"

namespace ctformer::passes {

struct fuse_residual_layer_norm {
    static constexpr const char* name = "fuse_residual_layer_norm";

    template <class E>
        requires is_op<E, layer_norm_op> && is_op<child_t<E, 0>, add_op> &&
                 same_shape<child_t<child_t<E, 0>, 0>, child_t<child_t<E, 0>, 1>>
    static auto fuse(const E& e) {
        const auto& sum = child<0>(e);
        return make_node<shape_of_t<E>>(residual_layer_norm_op{op_of(e).eps}, child<0>(sum), child<1>(sum),
                                        child<1>(e), child<2>(e));
    }
};

}  // namespace ctformer::passes
