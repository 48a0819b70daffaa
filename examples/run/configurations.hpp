// The models ctformer-run knows, each compiled once for any sequence length up to its longest: an
// input runs at its own length, nothing padded.
#pragma once

#include <array>
#include <memory>
#include <string_view>

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

}  // namespace run
