// Declaring a model for the generator (ctformer_add_model in CMake; README, "The generator"):
//
//   #include <ctformer/generator.hpp>
//
//   CTFORMER_REGISTER_MODEL(my_encoder, P) {
//       auto x = ctf::input<"x", ctf::batch, P.length(), P.d_model>();  // any length up to P.seq
//       return ctf::gen::with_mask<P>([&](auto... mask) { return ctf::nn::encoder<P.config(), P.layers>(x, mask...); });
//   }
//
// P is a ctf::gen::params: nn::config's fields (d_model, heads, kv_heads, d_ff, act, norm, eps; P.config()
// is that nn::config) and seq, layers, mask, fixed at build time by
// ctformer_add_model(my_encoder SOURCE ... PARAMS seq=128 heads=8 act=gelu norm=pre); ctformer-gen --help lists them.
// ctformer_add_model(NAME HF_CONFIG config.json) needs no declaration: its parameters come from the
// file, and generator/hf_model.cpp declares nn::bert or nn::llama with them (gen::bert_config_of,
// gen::llama_config_of).
#pragma once

#include "ctformer.hpp"
#include "generator_params.hpp"

// Declares the model's graph as a function of its parameters; the body follows the macro.
#define CTFORMER_REGISTER_MODEL(model_name, P)                     \
    inline constexpr const char* ctformer_registered_name = #model_name; \
    template <::ctformer::gen::params P>                            \
    auto ctformer_declare_model()

namespace ctformer::gen {

// f(masks...) with the attention mask P.mask asks for: none, causal, or key padding, which reads the
// bool input "key_padding" [B, L] (true: attend; PyTorch's key_padding_mask is its negation).
template <params P, class F>
auto with_mask(F f) {
    if constexpr (P.mask == mask_param::causal) return f(causal);
    else if constexpr (P.mask == mask_param::key_padding) return f(key_padding(bool_input<"key_padding", batch, P.length()>()));
    else return f();
}

// The nn::bert_config of a BERT-family model's parameters (HF_CONFIG).
constexpr nn::bert_config bert_config_of(const params& p) {
    return {.family = p.family == family_param::roberta ? nn::bert_family::roberta : nn::bert_family::bert,
            .vocabulary = p.vocabulary,
            .positions = p.positions,
            .token_types = p.token_types,
            .d_model = p.d_model,
            .heads = p.heads,
            .d_ff = p.d_ff,
            .layers = p.layers,
            .act = p.act,
            .eps = p.eps,
            .padding_idx = p.padding_idx};
}

// The nn::llama_config of a LLaMA-family model's parameters (HF_CONFIG).
constexpr nn::llama_config llama_config_of(const params& p) {
    return {.vocabulary = p.vocabulary,
            .d_model = p.d_model,
            .heads = p.heads,
            .kv_heads = p.key_value_heads(),
            .layers = p.layers,
            .d_ff = p.d_ff,
            .act = p.act,
            .eps = p.eps,
            .theta = p.rope_theta,
            .scaling = {.type = p.rope_scaling,
                        .factor = p.rope_factor,
                        .low_freq_factor = p.rope_low_freq_factor,
                        .high_freq_factor = p.rope_high_freq_factor,
                        .original_positions = p.rope_original_positions},
            .tied = p.lm_head == head_param::tied,
            .qkv_bias = p.bias == bias_param::qkv,
            .sliding_window = p.sliding_window};
}

}  // namespace ctformer::gen
