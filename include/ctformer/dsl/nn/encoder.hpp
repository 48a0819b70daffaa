// The Transformer encoder layer and stack, as PyTorch's nn.TransformerEncoderLayer/-Encoder:
//   post-LN (the seeds):  h = LN1(x + MHA(x));  y = LN2(h + FFN(h))
//   pre-LN:               h = x + MHA(LN1(x));  y = h + FFN(LN2(h))
// Weights: {Prefix}self_attn.*, {Prefix}linear1.*, {Prefix}linear2.*, {Prefix}norm1.*,
// {Prefix}norm2.*; encoder<cfg, N> repeats one layer N times, layer i reading "layers.i." names.
// Values used twice are bound ({Prefix}input, {Prefix}norm1, ..., {Prefix}output).
// encoder_layer_with_weights binds the per-head attention weights as {Prefix}self_attn.attn_weights
// [B, heads, L, L], for run_options.keep (PyTorch's layer does not return them).
#pragma once

#include "../repeat.hpp"
#include "attention.hpp"
#include "feed_forward.hpp"
#include "norm.hpp"

namespace ctformer::nn {

template <config C, fixed_string Prefix, bool WithWeights = false>
struct encoder_layer_block {
    template <fixed_string Name>
    static constexpr auto named = Prefix + Name;

    template <operand X, mask_descriptor... M>
    static auto build(X x_in, M... masks) {
        return on_result(bind_unless_leaf<named<"input">>(std::move(x_in)),
                         [&](auto x) { return sublayers(x, std::move(masks)...); });
    }

    template <operand X, mask_descriptor... M>
    static auto self_attention(X x, M... masks) {
        constexpr auto attn = named<"self_attn.">;
        if constexpr (WithWeights) return multi_head_attention_with_weights<C, attn>(x, x, x, std::move(masks)...).output;
        else return multi_head_attention<C, attn>(x, x, x, std::move(masks)...);
    }

    template <expression X, mask_descriptor... M>
    static auto sublayers(X x, M... masks) {
        if constexpr (C.norm == norm_position::post) {
            auto attended = self_attention(x, std::move(masks)...);
            auto h = bind<named<"norm1">>(norm<C, named<"norm1">>(x + std::move(attended)));
            return bind<named<"output">>(norm<C, named<"norm2">>(h + feed_forward<C, Prefix>(h)));
        } else {
            auto normed = bind<named<"norm1">>(norm<C, named<"norm1">>(x));
            auto attended = self_attention(normed, std::move(masks)...);
            auto h = bind<named<"residual1">>(x + std::move(attended));
            return bind<named<"output">>(h + feed_forward<C, Prefix>(norm<C, named<"norm2">>(h)));
        }
    }
};

template <config C, fixed_string Prefix, operand X, mask_descriptor... M>
using encoder_layer_error = mha_error<C, Prefix + fixed_string("self_attn."), X, X, X, M...>;

template <config C, fixed_string Prefix = "", operand X, mask_descriptor... M,
          class Failure = encoder_layer_error<C, Prefix, X, M...>>
    requires has_error<Failure>
Failure encoder_layer(X, M...);

template <config C, fixed_string Prefix = "", operand X, mask_descriptor... M>
    requires no_error<encoder_layer_error<C, Prefix, X, M...>>
auto encoder_layer(X x, M... masks) {
    return encoder_layer_block<C, Prefix>::build(std::move(x), std::move(masks)...);
}

template <config C, fixed_string Prefix = "", operand X, mask_descriptor... M,
          class Failure = encoder_layer_error<C, Prefix, X, M...>>
    requires has_error<Failure>
Failure encoder_layer_with_weights(X, M...);

template <config C, fixed_string Prefix = "", operand X, mask_descriptor... M>
    requires no_error<encoder_layer_error<C, Prefix, X, M...>>
auto encoder_layer_with_weights(X x, M... masks) {
    return encoder_layer_block<C, Prefix, true>::build(std::move(x), std::move(masks)...);
}

// The layer's own rule, on the repeat's input as the body sees it (the same check the body's
// construction makes, so it is instantiated once).
template <config C, int Layers, operand X, mask_descriptor... M>
using encoder_error = first_failure_t<
    check<(Layers >= 1), CTF_ENCODER_NEEDS_ONE_LAYER_OR_MORE<layers_is<Layers>>>,
    outcome<encoder_layer_error<C, "", terminal_t<bound<repeat_input_name, shape_of_t<X>, dtype::f32>>, M...>>>;

template <config C, int Layers, fixed_string Prefix = "", operand X, mask_descriptor... M,
          class Failure = encoder_error<C, Layers, X, M...>>
    requires has_error<Failure>
Failure encoder(X, M...);

// N encoder layers, one body repeated (dsl/repeat.hpp): layer i reads {Prefix}layers.{i}.*, and
// the whole stack is bound as {Prefix}layers.output.
template <config C, int Layers, fixed_string Prefix = "", operand X, mask_descriptor... M>
    requires no_error<encoder_error<C, Layers, X, M...>>
auto encoder(X x, M... masks) {
    return repeat<Layers, Prefix + fixed_string("layers.")>(
        std::move(x), [&](auto h) { return encoder_layer_block<C, "">::build(h, masks...); });
}

}  // namespace ctformer::nn
