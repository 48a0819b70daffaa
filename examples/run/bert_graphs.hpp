// The graphs of ctformer-run --model: a BERT-family encoder from token ids to its last hidden state,
// and the pooled results computed from that hidden state by graphs of their own, so that each
// geometry's encoder is compiled once whatever the run returns. Included by the model translation
// units.
#pragma once

#include "compiled_runner.hpp"

namespace run {

// The last hidden state [B, L, D] of input_ids, attention_mask (1: a real token) and token_type_ids,
// each [B, L], L up to the model's positions; the weights by BertModel's names.
template <ctf::nn::bert_config C>
auto bert_encoder() {
    auto ids = ctf::id_input<"input_ids", ctf::batch, ctf::upto<C.positions>>();
    auto mask = ctf::bool_input<"attention_mask", ctf::batch, ctf::upto<C.positions>>();
    auto types = ctf::id_input<"token_type_ids", ctf::batch, ctf::upto<C.positions>>();
    return ctf::nn::bert<C>(ids, mask, types);
}

// The encoder's result, the input of the pooled results' graphs (hidden_state_name).
template <ctf::nn::bert_config C>
auto hidden_state() {
    return ctf::input<"last_hidden_state", ctf::batch, ctf::upto<C.positions>, C.d_model>();
}

// pooler_output [B, D]: tanh(pooler.dense(h[:, 0])).
template <ctf::nn::bert_config C>
auto bert_pooler_head() {
    return ctf::nn::bert_pooler<C>(hidden_state<C>());
}

// Sentence embeddings [B, D]: the real tokens' mean, L2-normalised.
template <ctf::nn::bert_config C>
auto sentence_embedding_head() {
    return ctf::nn::sentence_embedding(hidden_state<C>(), ctf::bool_input<"attention_mask", ctf::batch, ctf::upto<C.positions>>());
}

}  // namespace run
