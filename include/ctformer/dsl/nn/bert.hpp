// The BERT family (BERT, RoBERTa, XLM-R; MiniLM, e5, bge have BERT's geometry), by Hugging Face's
// names (BertModel, RobertaModel; a checkpoint of a model with a head adds "bert." or "roberta.",
// given as Prefix):
//   h₀ = embeddings.LayerNorm(word_embeddings[ids] + position_embeddings[first + l]
//                             + token_type_embeddings[types])      (types: row 0 when not given)
//   layer i (encoder.layer.{i}.), post-LN:
//     h = attention.output.LayerNorm(x + attention.output.dense(attention(self.query/key/value(x))))
//     y = output.LayerNorm(h + output.dense(act(intermediate.dense(h))))
//   pooler_output = tanh(pooler.dense(y[:, 0]))
//   logits        = classifier(pooler_output)
// first = 0 for BERT; RoBERTa numbers a sequence's positions from padding_idx + 1. attention_mask
// (true: a real token) is the attention's key padding; a batch of mixed lengths runs without it
// (run_options::lengths; docs/lengths.md).
//
//   constexpr ctf::nn::bert_config minilm = ctf::nn::minilm_l6;
//   auto ids = ctf::id_input<"input_ids", ctf::batch, ctf::upto<128>>();
//   auto mask = ctf::bool_input<"attention_mask", ctf::batch, ctf::upto<128>>();
//   auto vectors = ctf::nn::sentence_embedding(ctf::nn::bert<minilm>(ids, mask), mask);  // [B, 384]
#pragma once

#include "../ops/elementwise.hpp"
#include "../ops/layer_norm.hpp"
#include "../ops/mask.hpp"
#include "../ops/matmul.hpp"
#include "../ops/pooling.hpp"
#include "../repeat.hpp"
#include "attention.hpp"
#include "embedding.hpp"

namespace ctformer::nn {

enum class bert_family { bert, roberta };

struct bert_config {
    bert_family family = bert_family::bert;
    int vocabulary = 30522, positions = 512, token_types = 2;
    int d_model = 768, heads = 12, d_ff = 3072, layers = 12;
    activation act = activation::gelu;  // hidden_act: gelu, or gelu_tanh (gelu_new)
    double eps = 1e-12;                 // layer_norm_eps
    int padding_idx = 1;                // RoBERTa's pad token: its positions start past it

    constexpr config layer() const {
        return {.d_model = d_model, .heads = heads, .d_ff = d_ff, .act = act, .norm = norm_position::post, .eps = eps};
    }
    constexpr int first_position() const { return family == bert_family::roberta ? padding_idx + 1 : 0; }
};

inline constexpr bert_config bert_base{};
inline constexpr bert_config minilm_l6{.d_model = 384, .heads = 12, .d_ff = 1536, .layers = 6};  // all-MiniLM-L6-v2

// A Linear layer by its name: {Name}.weight [Out, In], {Name}.bias [Out].
template <fixed_string Name, int Out, int In, operand X>
auto dense(X x) {
    return linear(std::move(x), weight<Name + fixed_string(".weight"), Out, In>(), weight<Name + fixed_string(".bias"), Out>());
}

// A LayerNorm of width D by its name, with the config's eps.
template <bert_config C, fixed_string Name, operand X>
auto bert_norm(X x) {
    return layer_norm(std::move(x), weight<Name + fixed_string(".weight"), C.d_model>(),
                      weight<Name + fixed_string(".bias"), C.d_model>(), C.eps);
}

// h₀ [B, L, D] of ids [B, L] and, optionally, token types [B, L].
template <bert_config C, fixed_string Prefix = "", operand Ids, operand... Types>
auto bert_embeddings(Ids ids, Types... types) {
    constexpr auto e = Prefix + fixed_string("embeddings.");
    constexpr auto types_name = e + fixed_string("token_type_embeddings");
    auto words = add_position_embedding<e + fixed_string("position_embeddings"), C.positions, C.first_position()>(
        embedding<e + fixed_string("word_embeddings"), C.vocabulary, C.d_model>(std::move(ids)));
    auto typed = [&] {
        if constexpr (sizeof...(Types) == 1) return words + embedding<types_name, C.token_types, C.d_model>(std::move(types)...);
        else return words + table_row<0>(embedding_table<types_name, C.token_types, C.d_model>{});
    }();
    return bert_norm<C, e + fixed_string("LayerNorm")>(std::move(typed));
}

// One layer, its weights under "" (the repeat adds encoder.layer.{i}.).
template <bert_config C, expression X, mask_descriptor... M>
auto bert_layer(X x, M... masks) {
    constexpr int d = C.d_model;
    auto attended = attention_block<C.layer(), "attention.", bert_attention_names>::template build<false>(x, x, x, masks...);
    auto h = bind<"attention.output">(bert_norm<C, "attention.output.LayerNorm">(x + std::move(attended)));
    return on_result(std::move(h), [&](auto r) {
        auto inner = activate<C.act>(dense<"intermediate.dense", C.d_ff, d>(r));
        return bind<"output">(bert_norm<C, "output.LayerNorm">(r + dense<"output.dense", d, C.d_ff>(std::move(inner))));
    });
}

// The config, the ids against the tables, the mask against the hidden state [B, L, D].
template <bert_config C, operand Ids, operand Mask>
struct bert_rule {
    static constexpr config layer = C.layer();
    static constexpr int first = C.first_position();
    using words = embedding_table<"word_embeddings", C.vocabulary, C.d_model>;
    using positions = embedding_table<"position_embeddings", C.positions, C.d_model>;
    using hidden = terminal_t<bound<"hidden", shape_from_t<concat(extents_of<Ids>, std::array{C.d_model})>, dtype::f32>>;
    using failure = first_failure_t<outcome<config_error<layer>>, outcome<embedding_error<words, Ids>>,
                                    outcome<leading_rows_error<last(extents_of<Ids>), positions, first>>,
                                    outcome<pooling_error<hidden, Mask>>>;
};

template <bert_config C, operand Ids, operand Mask, operand... Types>
using bert_error = typename bert_rule<C, Ids, Mask>::failure;

template <bert_config C, fixed_string Prefix = "", operand Ids, operand Mask, operand... Types,
          class Failure = bert_error<C, Ids, Mask, Types...>>
    requires(sizeof...(Types) <= 1 && has_error<Failure>)
Failure bert(Ids, Mask, Types...);

// The last hidden state [B, L, D] of ids [B, L], attention_mask [B, L] (bool) and, optionally,
// token_type_ids [B, L].
template <bert_config C, fixed_string Prefix = "", operand Ids, operand Mask, operand... Types>
    requires(sizeof...(Types) <= 1 && no_error<bert_error<C, Ids, Mask, Types...>>)
auto bert(Ids ids, Mask mask, Types... types) {
    auto h0 = bind<Prefix + fixed_string("embeddings.output")>(bert_embeddings<C, Prefix>(std::move(ids), std::move(types)...));
    return repeat<C.layers, Prefix + fixed_string("encoder.layer.")>(
        std::move(h0), [&](auto h) { return bert_layer<C>(h, key_padding(mask)); });
}

// pooler_output [B, D]: tanh(pooler.dense(h[:, 0])) of the last hidden state h.
template <bert_config C, fixed_string Prefix = "", operand H>
auto bert_pooler(H hidden) {
    return tanh(dense<Prefix + fixed_string("pooler.dense"), C.d_model, C.d_model>(first_token(std::move(hidden))));
}

// BertForSequenceClassification's logits [B, Labels] of its pooler output.
template <bert_config C, int Labels, operand P>
auto bert_classifier(P pooled) {
    return dense<"classifier", Labels, C.d_model>(std::move(pooled));
}

// Sentence embeddings [B, D], as sentence-transformers makes them: the mean of the real tokens'
// hidden states (mask: true for a real token), L2-normalised.
template <operand H, operand Mask>
auto sentence_embedding(H hidden, Mask mask) {
    return l2_normalize(mean_pool(std::move(hidden), std::move(mask)));
}

}  // namespace ctformer::nn
