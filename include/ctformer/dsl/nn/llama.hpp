// LLaMA and its family (Qwen2, Mistral and its sliding window), decoder-only, by Hugging Face's
// LlamaForCausalLM names:
//   h₀      = model.embed_tokens[ids]
//   layer i (model.layers.{i}.), pre-norm RMSNorm, causal (each query over its last sliding_window
//   keys where there is one), grouped-query attention, SiLU-gated MLP:
//     n = input_layernorm(x)
//     x = x + self_attn.o_proj(attention(rotary(q_proj(n)), rotary(k_proj(n)), v_proj(n)))
//     x = x + mlp.down_proj(silu(mlp.gate_proj(m)) · mlp.up_proj(m))      m = post_attention_layernorm(x)
//   logits  = model.norm(x) · lm_headᵀ      (lm_head.weight, or model.embed_tokens.weight when tied)
// No linear layer has a bias, except q_proj, k_proj and v_proj in Qwen2 (qkv_bias). The passes make
// q, k and v one GEMM with the rotary positions in its epilogue (fuse_qkv, fuse_rotary), gate and up
// one GEMM with the gating in its epilogue (fuse_gated), and each residual add an epilogue.
//
//   constexpr ctf::nn::llama_config tiny_llama{};          // TinyLlama-1.1B: 22 × 2048, 32 heads, 4 KV heads
//   auto ids = ctf::id_input<"input_ids", ctf::batch, ctf::upto<2048>>();
//   auto logits = ctf::nn::llama<tiny_llama>(ids);         // [B, L, 32000]
#pragma once

#include "../ops/heads.hpp"
#include "../ops/layer_norm.hpp"
#include "../ops/mask.hpp"
#include "../ops/rotary.hpp"
#include "../repeat.hpp"
#include "attention.hpp"
#include "embedding.hpp"
#include "feed_forward.hpp"

namespace ctformer::nn {

struct llama_config {
    int vocabulary = 32000, d_model = 2048, heads = 32, kv_heads = 4, layers = 22, d_ff = 5632;
    activation act = activation::silu;  // the MLP's gate (hidden_act)
    double eps = 1e-5;        // rms_norm_eps
    double theta = 10000.0;   // rope_theta
    int rotary_dims = 0;      // the rotated dimensions of a head (0: all of it)
    rotary_pairing pairing = rotary_pairing::half;  // rotate_half (Hugging Face's), or interleaved (GPT-J's)
    rope_scaling scaling{};   // rope_scaling: none, linear, or Llama 3.1's llama3 (core/kinds.hpp)
    bool tied = false;        // tie_word_embeddings: the LM head is model.embed_tokens
    bool qkv_bias = false;    // Qwen2: q_proj, k_proj and v_proj have biases
    int sliding_window = 0;   // Mistral v0.1's: each query sees its last sliding_window keys (0: all before it)

    constexpr int d_head() const { return d_model / heads; }
    constexpr rotary_spec rotary() const {
        return {.head_dim = d_head(), .rotary_dims = rotary_dims, .theta = theta, .pairing = pairing, .scaling = scaling};
    }
    // The attention and MLP sizes as the other nn:: blocks take them.
    constexpr config block() const {
        return {.d_model = d_model, .heads = heads, .kv_heads = kv_heads, .d_ff = d_ff, .act = act, .eps = eps};
    }
};

// C's attention and MLP sizes, and its rotary positions, as constants.
template <llama_config C>
inline constexpr config llama_block = C.block();
template <llama_config C>
inline constexpr rotary_spec llama_rotary = C.rotary();

template <llama_config C, fixed_string Name, operand X>
auto llama_norm(X x) {
    return rms_norm(std::move(x), weight<Name + fixed_string(".weight"), C.d_model>(), C.eps);
}

// {Name}(x) of q_proj, k_proj or v_proj: Out columns, with a bias in Qwen2.
template <llama_config C, fixed_string Name, int Out, operand X>
auto llama_projection(X x) {
    auto w = weight<Name + fixed_string(".weight"), Out, C.d_model>();
    if constexpr (C.qkv_bias) return linear(std::move(x), w, weight<Name + fixed_string(".bias"), Out>());
    else return linear(std::move(x), w);
}

// The causal mask, banded by C's sliding window where it has one.
template <llama_config C>
constexpr auto llama_mask() {
    if constexpr (C.sliding_window != 0) return ctformer::sliding_window<C.sliding_window>;
    else return causal;
}

template <llama_config C, operand N>
auto llama_attention(N n) {
    constexpr int dh = C.d_head(), kv = llama_block<C>.key_value_heads();
    auto q = split_heads<C.heads>(rotary<llama_rotary<C>>(llama_projection<C, "self_attn.q_proj", C.heads * dh>(n)));
    auto k = grouped_heads<kv, C.heads>(rotary<llama_rotary<C>>(llama_projection<C, "self_attn.k_proj", kv * dh>(n)));
    auto v = grouped_heads<kv, C.heads>(llama_projection<C, "self_attn.v_proj", kv * dh>(n));
    return linear(merge_heads(scaled_dot_product_attention(q, k, v, llama_mask<C>())),
                  weight<"self_attn.o_proj.weight", C.d_model, C.heads * dh>());
}

// One decoder layer, its weights under "" (a repeat's body adds model.layers.{i}.).
template <llama_config C, expression X>
auto llama_layer(X x) {
    auto h = bind<"residual">(x + llama_attention<C>(bind<"input_layernorm">(llama_norm<C, "input_layernorm">(x))));
    return on_result(std::move(h), [](auto r) {
        return bind<"output">(r + gated_feed_forward<llama_block<C>, "mlp.">(llama_norm<C, "post_attention_layernorm">(r)));
    });
}

// The sizes (heads dividing the width, KV heads the heads), then the ids against the vocabulary. (A
// class, not an alias: g++ 12 crashes on a dependent config as an alias's argument.)
template <llama_config C, operand Ids>
struct llama_rule {
    static constexpr config block = C.block();
    using failure = first_failure_t<outcome<config_error<block>>,
                                    outcome<embedding_error<embedding_table<"model.embed_tokens", C.vocabulary, C.d_model>, Ids>>>;
};
template <llama_config C, operand Ids>
using llama_error = typename llama_rule<C, Ids>::failure;

template <llama_config C, operand Ids, class Failure = llama_error<C, Ids>>
    requires has_error<Failure>
Failure llama(Ids);

// The logits [B, L, vocabulary] of token ids [B, L] (L as long as the ids' upto: rotary positions have
// no table to outgrow); the layers are one body, compiled once.
template <llama_config C, operand Ids>
    requires no_error<llama_error<C, Ids>>
auto llama(Ids ids) {
    auto h0 = bind<"model.h0">(embedding<"model.embed_tokens", C.vocabulary, C.d_model>(std::move(ids)));
    auto h = repeat<C.layers, "model.layers.">(std::move(h0), [](auto x) { return llama_layer<C>(x); });
    auto head = [] {
        if constexpr (C.tied) return weight<"model.embed_tokens.weight", C.vocabulary, C.d_model>();
        else return weight<"lm_head.weight", C.vocabulary, C.d_model>();
    }();
    return linear(llama_norm<C, "model.norm">(std::move(h)), head);
}

}  // namespace ctformer::nn
