// The hyper-parameters of the nn:: blocks, given as a template argument:
//   constexpr ctf::nn::config seeds{.d_model = 512, .heads = 8, .d_ff = 2048};
//   auto y = ctf::nn::encoder_layer<seeds>(x);
// config_fields lists them, once: their names, values and meanings there are the ones
// ctformer_add_model's PARAMS, ctformer-gen --help and ctformer-run --help use.
#pragma once

#include <tuple>

#include "../../core/fields.hpp"
#include "../../shape/check.hpp"
#include "../../shape/errors.hpp"
#include "../bind.hpp"
#include "../../core/kinds.hpp"

namespace ctformer::nn {

using ctformer::activation;  // of the feed-forward network: relu (the default), gelu, or none

// post: LayerNorm(x + sublayer(x)), as in the seeds and PyTorch's default;
// pre:  x + sublayer(LayerNorm(x)), PyTorch's norm_first=True.
enum class norm_position { post, pre };

struct config {
    int d_model = 512;
    int heads = 8;
    int kv_heads = 0;  // 0: as many as heads (MHA); 1: MQA; a divisor of heads: GQA
    int d_ff = 2048;
    activation act = activation::relu;
    norm_position norm = norm_position::post;
    double eps = 1e-5;  // LayerNorm's epsilon

    constexpr int key_value_heads() const { return kv_heads == 0 ? heads : kv_heads; }
    constexpr int d_head() const { return d_model / heads; }
};

// Every field of config, in order; the defaults are config{}'s.
inline constexpr std::tuple config_fields{
    fields::number<config, int>{"d_model", &config::d_model, 1, 65536, "model width"},
    fields::number<config, int>{"heads", &config::heads, 1, 65536, "attention heads; must divide d_model", "1..d_model"},
    fields::number<config, int>{"kv_heads", &config::kv_heads, 0, 65536,
                                "key/value heads: 0 = heads (MHA), 1 (MQA), a divisor of heads (GQA)", "0..heads"},
    fields::number<config, int>{"d_ff", &config::d_ff, 1, 1 << 20, "feed-forward width"},
    fields::choice<config, activation, activations.size()>{"act", &config::act, activations, "ctformer::activation",
                                                           "feed-forward activation (gelu_tanh: PyTorch's approximate='tanh')"},
    fields::choice<config, norm_position, 2>{"norm",
                                             &config::norm,
                                             {{{"post", norm_position::post}, {"pre", norm_position::pre}}},
                                             "ctformer::nn::norm_position",
                                             "LayerNorm after the residual add, or before the sublayer (pre: PyTorch's norm_first)"},
    fields::number<config, double>{"eps", &config::eps, 1e-30, 1.0, "the norms' epsilon (LayerNorm's; RMSNorm's in a LLaMA)"},
};
static_assert(fields::covers<config>(config_fields), "config_fields must list every field of nn::config, once");

template <config C>
using config_error = first_failure_t<
    check<(C.heads > 0 && C.d_model > 0 && C.d_model % (C.heads > 0 ? C.heads : 1) == 0),
          CTF_HEADS_DO_NOT_DIVIDE_D_MODEL<heads_is<C.heads>, d_model_is<C.d_model>>>,
    check<(C.key_value_heads() > 0 && C.heads % (C.key_value_heads() > 0 ? C.key_value_heads() : 1) == 0),
          CTF_KV_HEADS_DO_NOT_DIVIDE_HEADS<kv_heads_is<C.key_value_heads()>, heads_is<C.heads>>>,
    check<(C.d_ff > 0), CTF_D_FF_MUST_BE_POSITIVE<d_ff_is<C.d_ff>>>>;

// x is [..., L, d_model].
template <config C, operand X>
using width_check = check<(rank_of<X> >= 2 && last(extents_of<X>) == C.d_model),
                          CTF_INPUT_WIDTH_IS_NOT_D_MODEL<input_is<shape_of_t<X>>, d_model_is<C.d_model>>>;

}  // namespace ctformer::nn
