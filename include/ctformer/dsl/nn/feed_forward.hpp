// The position-wise feed-forward network: linear2(act(linear1(x))), d_model -> d_ff -> d_model.
// Weights as in PyTorch's TransformerEncoderLayer: {Prefix}linear1.weight [d_ff, d_model], ...
#pragma once

#include "../ops/matmul.hpp"
#include "../tensor.hpp"
#include "config.hpp"

namespace ctformer::nn {

template <config C, fixed_string Prefix>
struct feed_forward_weights {
    static constexpr auto make() {
        return std::tuple{weight<Prefix + fixed_string("linear1.weight"), C.d_ff, C.d_model>(),
                          weight<Prefix + fixed_string("linear1.bias"), C.d_ff>(),
                          weight<Prefix + fixed_string("linear2.weight"), C.d_model, C.d_ff>(),
                          weight<Prefix + fixed_string("linear2.bias"), C.d_model>()};
    }
    using list = typename as_expr_list<decltype(make())>::type;
};

// The weights' names against x's: checked after the config, since the weights' shapes come from it.
template <config C, fixed_string Prefix, operand X>
struct feed_forward_names {
    using failure = typename names_agree_across<expr_list<X>, typename feed_forward_weights<C, Prefix>::list>::failure;
};

template <config C, fixed_string Prefix, operand X>
using feed_forward_error = first_failure_t<outcome<config_error<C>>, width_check<C, X>, feed_forward_names<C, Prefix, X>>;

template <config C, fixed_string Prefix = "", operand X, class Failure = feed_forward_error<C, Prefix, X>>
    requires has_error<Failure>
Failure feed_forward(X);

template <config C, fixed_string Prefix = "", operand X>
    requires no_error<feed_forward_error<C, Prefix, X>>
auto feed_forward(X x) {
    auto [w1, b1, w2, b2] = feed_forward_weights<C, Prefix>::make();
    return linear(activate<C.act>(linear(std::move(x), w1, b1)), w2, b2);
}

}  // namespace ctformer::nn
