// The hyper-parameters of the nn:: blocks, given as a template argument:
//   constexpr ctf::nn::config seeds{.d_model = 512, .heads = 8, .d_ff = 2048};
//   auto y = ctf::nn::encoder_layer<seeds>(x);
#pragma once

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
