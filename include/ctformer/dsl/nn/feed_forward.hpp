// The position-wise feed-forward network: linear2(act(linear1(x))), d_model -> d_ff -> d_model.
// Weights as in PyTorch's TransformerEncoderLayer: {Prefix}linear1.weight [d_ff, d_model], ...
// The gated one, LLaMA's MLP: down_proj(act(gate_proj(x)) · up_proj(x)), act silu in LLaMA; weights
// as LlamaMLP's, without biases: {Prefix}gate_proj.weight and up_proj.weight [d_ff, d_model],
// down_proj.weight [d_model, d_ff]. x is bound ({Prefix}input) unless it is a leaf, so that the
// gate and up projections read one value (and fuse into one GEMM: passes/fuse_gated.hpp).
#pragma once

#include "../bind.hpp"
#include "../ops/elementwise.hpp"
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

template <config C, fixed_string Prefix>
struct gated_feed_forward_weights {
    static constexpr auto make() {
        return std::tuple{weight<Prefix + fixed_string("gate_proj.weight"), C.d_ff, C.d_model>(),
                          weight<Prefix + fixed_string("up_proj.weight"), C.d_ff, C.d_model>(),
                          weight<Prefix + fixed_string("down_proj.weight"), C.d_model, C.d_ff>()};
    }
    using list = typename as_expr_list<decltype(make())>::type;
};

// The weights' names against x's: checked after the config, since the weights' shapes come from it.
template <class Weights, operand X>
struct weight_names {
    using failure = typename names_agree_across<expr_list<X>, typename Weights::list>::failure;
};

template <config C, fixed_string Prefix, operand X, class Weights = feed_forward_weights<C, Prefix>>
using feed_forward_error = first_failure_t<outcome<config_error<C>>, width_check<C, X>, weight_names<Weights, X>>;

template <config C, fixed_string Prefix = "", operand X, class Failure = feed_forward_error<C, Prefix, X>>
    requires has_error<Failure>
Failure feed_forward(X);

template <config C, fixed_string Prefix = "", operand X>
    requires no_error<feed_forward_error<C, Prefix, X>>
auto feed_forward(X x) {
    auto [w1, b1, w2, b2] = feed_forward_weights<C, Prefix>::make();
    return linear(activate<C.act>(linear(std::move(x), w1, b1)), w2, b2);
}

template <config C, fixed_string Prefix, operand X>
using gated_feed_forward_error = feed_forward_error<C, Prefix, X, gated_feed_forward_weights<C, Prefix>>;

template <config C, fixed_string Prefix = "", operand X, class Failure = gated_feed_forward_error<C, Prefix, X>>
    requires has_error<Failure>
Failure gated_feed_forward(X);

template <config C, fixed_string Prefix = "", operand X>
    requires no_error<gated_feed_forward_error<C, Prefix, X>>
auto gated_feed_forward(X x) {
    auto [gate, up, down] = gated_feed_forward_weights<C, Prefix>::make();
    return on_result(bind_unless_leaf<Prefix + fixed_string("input")>(std::move(x)), [&](auto v) {
        return linear(activate<C.act>(linear(v, gate)) * linear(v, up), down);
    });
}

}  // namespace ctformer::nn
