// The models ctformer-run knows, each compiled once for any sequence length up to its longest: an
// input runs at its own length, nothing padded.
#pragma once

#include <array>
#include <memory>
#include <string_view>

#include <ctformer/dsl/nn/bert.hpp>
#include <ctformer/dsl/nn/config.hpp>

#include <ctformer/runtime/any_model.hpp>

namespace ctf = ctformer;

namespace run {

using ctf::nn::activation;

// The seeds' encoder layer: post-LN, relu.
inline constexpr ctf::nn::config seeds{.d_model = 512, .heads = 8, .d_ff = 2048};
// One BERT-base layer: post-LN, gelu, LayerNorm eps 1e-12.
inline constexpr ctf::nn::config bert_base{.d_model = 768, .heads = 12, .d_ff = 3072, .act = activation::gelu, .eps = 1e-12};

inline constexpr int seeds_sequence = 128;
inline constexpr int bert_sequence = 512;

// Each in a translation unit of its own, so they compile in parallel. Input "x" [B, L, d_model].
std::unique_ptr<ctf::any_model> seeds_layer();
std::unique_ptr<ctf::any_model> seeds_layer_with_weights();
std::unique_ptr<ctf::any_model> seeds_encoder_6();
std::unique_ptr<ctf::any_model> bert_base_layer();
std::unique_ptr<ctf::any_model> bert_base_layer_with_weights();

struct configuration {
    std::string_view name, about;
    ctf::nn::config hyper;  // --help lists its fields as nn::config_fields spells them
    std::size_t sequence;                                  // the longest input
    std::unique_ptr<ctf::any_model> (*make)();
    std::unique_ptr<ctf::any_model> (*make_with_weights)();  // null: no attention weights to keep
};

inline constexpr std::string_view attention_weights_name = "self_attn.attn_weights";

inline const std::array<configuration, 3> configurations{{
    {"seeds-layer", "the seeds' encoder layer, nn.TransformerEncoderLayer(512, 8, 2048)", seeds,
     seeds_sequence, seeds_layer, seeds_layer_with_weights},
    {"encoder-6", "nn.TransformerEncoder of 6 seeds-layer layers (names layers.0. ... layers.5.)", seeds,
     seeds_sequence, seeds_encoder_6, nullptr},
    {"bert-base-layer", "one BERT-base layer", bert_base,
     bert_sequence, bert_base_layer, bert_base_layer_with_weights},
}};

// --model DIR: whole BERT-family models, the geometry matched to DIR/config.json. Each geometry's
// encoder (ids to the last hidden state) is one translation unit; the pooler and the sentence
// embeddings are small graphs over that hidden state, all four in bert_heads.cpp: a pooled result
// costs no encoder of its own. Compile time of each TU alone (g++ 12, Release, `time make
// run/X.cpp.o` on a 2-core machine with another build beside it): bert_base_model.cpp 30 s,
// minilm_l6_model.cpp 32 s, bert_heads.cpp 23 s (model_dir.cpp and main.cpp, no graph: 36 s together).
std::unique_ptr<ctf::any_model> bert_base_encoder();
std::unique_ptr<ctf::any_model> bert_base_pooler();
std::unique_ptr<ctf::any_model> bert_base_sentence_embedding();
std::unique_ptr<ctf::any_model> minilm_l6_encoder();
std::unique_ptr<ctf::any_model> minilm_l6_pooler();
std::unique_ptr<ctf::any_model> minilm_l6_sentence_embedding();

// The pooled results' graphs read the encoder's result as this input.
inline constexpr std::string_view hidden_state_name = "last_hidden_state";

struct bert_geometry {
    std::string_view name, about;
    ctf::nn::bert_config config;  // matched against config.json; BERT's family (model_type "bert")
    std::unique_ptr<ctf::any_model> (*encoder)();             // input_ids, attention_mask, token_type_ids -> [B, L, D]
    std::unique_ptr<ctf::any_model> (*pooler)();              // last_hidden_state -> [B, D]
    std::unique_ptr<ctf::any_model> (*sentence_embedding)();  // last_hidden_state, attention_mask -> [B, D]
};

inline const std::array<bert_geometry, 2> bert_geometries{{
    {"bert-base", "BERT-base (bert-base-uncased and its fine-tunings)", ctf::nn::bert_base, bert_base_encoder,
     bert_base_pooler, bert_base_sentence_embedding},
    {"minilm-l6", "MiniLM-L6 (sentence-transformers/all-MiniLM-L6-v2)", ctf::nn::minilm_l6, minilm_l6_encoder,
     minilm_l6_pooler, minilm_l6_sentence_embedding},
}};

}  // namespace run
