// The whole Transformer, as PyTorch's nn.Transformer(d_model, nhead, N_enc, N_dec, d_ff):
//   memory = encoder.norm(encoder(src, src masks))
//   y      = decoder.norm(decoder(tgt, memory, tgt masks, memory masks))
// Weights: encoder.layers.{i}.*, encoder.norm.*, decoder.layers.{i}.*, decoder.norm.*; each stack's
// layer is compiled once. Masks as the decoder takes them, with src_masks(...) for the encoder's
// (src_mask, src_key_padding_mask):
//   auto y = ctf::nn::transformer<cfg, 6, 6>(src, tgt, ctf::nn::tgt_masks(ctf::causal));
#pragma once

#include "decoder.hpp"
#include "encoder.hpp"

namespace ctformer::nn {

template <config C, int EncoderLayers, operand S, class SrcMasks>
struct encoder_rule;
template <config C, int EncoderLayers, operand S, class... M>
struct encoder_rule<C, EncoderLayers, S, std::tuple<M...>> {
    using failure = encoder_error<C, EncoderLayers, S, M...>;
};

// The decoder's rule is checked on its memory as the encoder leaves it, [B, Ls, d_model].
template <config C, int EncoderLayers, int DecoderLayers, operand S, operand T, class... G>
using transformer_error = first_failure_t<
    encoder_rule<C, EncoderLayers, S, masks_of_t<masks_of_kind::src, G...>>,
    outcome<decoder_error<C, DecoderLayers, T, terminal_t<bound<"memory", shape_of_t<S>, dtype::f32>>, G...>>>;

template <config C, int EncoderLayers, int DecoderLayers, operand S, operand T, masks_for_attention... G,
          class Failure = transformer_error<C, EncoderLayers, DecoderLayers, S, T, G...>>
    requires has_error<Failure>
Failure transformer(S, T, G...);

template <config C, int EncoderLayers, int DecoderLayers, operand S, operand T, masks_for_attention... G>
    requires no_error<transformer_error<C, EncoderLayers, DecoderLayers, S, T, G...>>
auto transformer(S src, T tgt, G... groups) {
    auto encoded = std::apply([&](auto... m) { return encoder<C, EncoderLayers, "encoder.">(std::move(src), m...); },
                              masks_of<masks_of_kind::src>(groups...));
    auto memory = bind<"memory">(norm<C, "encoder.norm">(std::move(encoded)));
    return norm<C, "decoder.norm">(decoder<C, DecoderLayers, "decoder.">(std::move(tgt), std::move(memory), groups...));
}

}  // namespace ctformer::nn
