// softmax over the last axis. A row whose entries are all masked (-inf) gives zeros, not NaN.
#pragma once

#include "elementwise.hpp"

namespace ctformer {

struct softmax_op {
    static constexpr const char* name = "softmax";
};

template <operand A>
auto softmax(A a) {
    return same_shape_node(softmax_op{}, std::move(a));
}

}  // namespace ctformer
