// The Transformer decoder layer and stack, as PyTorch's nn.TransformerDecoderLayer/-Decoder, over
// tgt [B, Lt, d_model] and the encoder's memory [B, Ls, d_model]:
//   post-LN:  h1 = LN1(x + SA(x));   h2 = LN2(h1 + CA(h1, memory));   y = LN3(h2 + FFN(h2))
//   pre-LN:   h1 = x + SA(LN1(x));   h2 = h1 + CA(LN2(h1), memory);   y = h2 + FFN(LN3(h2))
// SA is self-attention ({Prefix}self_attn.*), CA cross-attention ({Prefix}multihead_attn.*: queries
// from tgt, keys and values from memory); {Prefix}linear1/2.*, {Prefix}norm1/2/3.*.
//
// Masks come in groups, each optional, as PyTorch's forward takes them:
//   tgt_masks(...)     self-attention's: tgt_mask (ctf::causal, attend, additive [Lt, Lt]) and
//                      tgt_key_padding_mask (key_padding [B, Lt])
//   memory_masks(...)  cross-attention's: memory_mask ([Lt, Ls]) and memory_key_padding_mask ([B, Ls])
//   auto y = ctf::nn::decoder_layer<cfg>(tgt, memory, ctf::nn::tgt_masks(ctf::causal),
//                                        ctf::nn::memory_masks(ctf::key_padding(source_pad)));
// As in PyTorch, nothing is causal unless a tgt mask says so.
#pragma once

#include <tuple>

#include "../repeat.hpp"
#include "attention.hpp"
#include "feed_forward.hpp"
#include "norm.hpp"

namespace ctformer::nn {

// Which attention a group of masks is for: the encoder's (src), the decoder's self-attention (tgt)
// or its cross-attention (memory).
enum class masks_of_kind { src, tgt, memory };

template <masks_of_kind Kind, mask_descriptor... M>
struct mask_group {
    std::tuple<M...> masks;
};

template <mask_descriptor... M>
auto src_masks(M... masks) { return mask_group<masks_of_kind::src, M...>{{std::move(masks)...}}; }
template <mask_descriptor... M>
auto tgt_masks(M... masks) { return mask_group<masks_of_kind::tgt, M...>{{std::move(masks)...}}; }
template <mask_descriptor... M>
auto memory_masks(M... masks) { return mask_group<masks_of_kind::memory, M...>{{std::move(masks)...}}; }

namespace detail {
template <class T>
inline constexpr bool is_mask_group = false;
template <masks_of_kind K, class... M>
inline constexpr bool is_mask_group<mask_group<K, M...>> = true;

template <masks_of_kind Kind, masks_of_kind K, class... M>
auto masks_if(const mask_group<K, M...>& g) {
    if constexpr (K == Kind) return g.masks;
    else return std::tuple<>{};
}
}  // namespace detail

template <class T>
concept masks_for_attention = detail::is_mask_group<T>;

// The masks of every group of that kind, as one tuple.
template <masks_of_kind Kind, masks_for_attention... G>
auto masks_of(const G&... groups) {
    return std::tuple_cat(detail::masks_if<Kind>(groups)...);
}
template <masks_of_kind Kind, class... G>
using masks_of_t = decltype(masks_of<Kind>(std::declval<G>()...));

template <config C, fixed_string Prefix>
struct decoder_layer_block {
    template <fixed_string Name>
    static constexpr auto named = Prefix + Name;

    template <operand T, operand M, class SelfMasks, class CrossMasks>
    static auto build(T tgt, M memory, const SelfMasks& self, const CrossMasks& cross) {
        return on_result(bind_unless_leaf<named<"memory">>(std::move(memory)), [&](auto m) {
            return on_result(bind_unless_leaf<named<"input">>(std::move(tgt)),
                             [&](auto x) { return sublayers(x, m, self, cross); });
        });
    }

    template <operand X, class Masks>
    static auto self_attention(X x, const Masks& masks) {
        return std::apply([&](auto... m) { return multi_head_attention<C, named<"self_attn.">>(x, x, x, m...); },
                          masks);
    }

    template <operand X, operand M, class Masks>
    static auto cross_attention(X x, M memory, const Masks& masks) {
        return std::apply(
            [&](auto... m) { return multi_head_attention<C, named<"multihead_attn.">>(x, memory, memory, m...); },
            masks);
    }

    template <expression X, expression M, class SelfMasks, class CrossMasks>
    static auto sublayers(X x, M m, const SelfMasks& self, const CrossMasks& cross) {
        if constexpr (C.norm == norm_position::post) {
            auto h1 = bind<named<"norm1">>(norm<C, named<"norm1">>(x + self_attention(x, self)));
            auto h2 = bind<named<"norm2">>(norm<C, named<"norm2">>(h1 + cross_attention(h1, m, cross)));
            return bind<named<"output">>(norm<C, named<"norm3">>(h2 + feed_forward<C, Prefix>(h2)));
        } else {
            auto n1 = bind<named<"norm1">>(norm<C, named<"norm1">>(x));
            auto h1 = bind<named<"residual1">>(x + self_attention(n1, self));
            auto n2 = bind<named<"norm2">>(norm<C, named<"norm2">>(h1));
            auto h2 = bind<named<"residual2">>(h1 + cross_attention(n2, m, cross));
            return bind<named<"output">>(h2 + feed_forward<C, Prefix>(norm<C, named<"norm3">>(h2)));
        }
    }
};

// The layer's rule: both attentions' (widths, batch, masks, names).
template <config C, fixed_string Prefix, operand T, operand M, class SelfMasks, class CrossMasks>
struct decoder_layer_rule;
template <config C, fixed_string Prefix, operand T, operand M, class... S, class... X>
struct decoder_layer_rule<C, Prefix, T, M, std::tuple<S...>, std::tuple<X...>> {
    using failure = first_failure_t<outcome<mha_error<C, Prefix + fixed_string("self_attn."), T, T, T, S...>>,
                                    outcome<mha_error<C, Prefix + fixed_string("multihead_attn."), T, M, M, X...>>>;
};

template <config C, fixed_string Prefix, operand T, operand M, class... G>
using decoder_layer_error =
    typename decoder_layer_rule<C, Prefix, T, M, masks_of_t<masks_of_kind::tgt, G...>,
                                masks_of_t<masks_of_kind::memory, G...>>::failure;

template <config C, fixed_string Prefix = "", operand T, operand M, masks_for_attention... G,
          class Failure = decoder_layer_error<C, Prefix, T, M, G...>>
    requires has_error<Failure>
Failure decoder_layer(T, M, G...);

template <config C, fixed_string Prefix = "", operand T, operand M, masks_for_attention... G>
    requires no_error<decoder_layer_error<C, Prefix, T, M, G...>>
auto decoder_layer(T tgt, M memory, G... groups) {
    return decoder_layer_block<C, Prefix>::build(std::move(tgt), std::move(memory),
                                                 masks_of<masks_of_kind::tgt>(groups...),
                                                 masks_of<masks_of_kind::memory>(groups...));
}

template <config C, int Layers, operand T, operand M, class... G>
using decoder_error = first_failure_t<
    check<(Layers >= 1), CTF_DECODER_NEEDS_ONE_LAYER_OR_MORE<layers_is<Layers>>>,
    outcome<decoder_layer_error<C, "", terminal_t<bound<repeat_input_name, shape_of_t<T>, dtype::f32>>, M, G...>>>;

template <config C, int Layers, fixed_string Prefix = "", operand T, operand M, masks_for_attention... G,
          class Failure = decoder_error<C, Layers, T, M, G...>>
    requires has_error<Failure>
Failure decoder(T, M, G...);

// N decoder layers, one body repeated: layer i reads {Prefix}layers.{i}.*, every layer attends to
// the same memory (bound once, as {Prefix}memory, unless it is a leaf).
template <config C, int Layers, fixed_string Prefix = "", operand T, operand M, masks_for_attention... G>
    requires no_error<decoder_error<C, Layers, T, M, G...>>
auto decoder(T tgt, M memory, G... groups) {
    const auto self = masks_of<masks_of_kind::tgt>(groups...);
    const auto cross = masks_of<masks_of_kind::memory>(groups...);
    return on_result(bind_unless_leaf<Prefix + fixed_string("memory")>(std::move(memory)), [&](auto m) {
        return repeat<Layers, Prefix + fixed_string("layers.")>(
            std::move(tgt), [&](auto h) { return decoder_layer_block<C, "">::build(h, m, self, cross); });
    });
}

}  // namespace ctformer::nn
