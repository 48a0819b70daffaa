// GPT-2, decoder-only, by its checkpoint's names (Hugging Face's GPT2LMHeadModel):
//   h₀      = transformer.wte[ids] + transformer.wpe[0 … L-1]
//   block i (transformer.h.{i}.), pre-LN, causal, gelu_tanh:
//     x = x + attn.c_proj(attention(split of attn.c_attn(ln_1(x)) into q, k, v))
//     x = x + mlp.c_proj(gelu_tanh(mlp.c_fc(ln_2(x))))
//   logits  = transformer.ln_f(x) · wteᵀ                      (the LM head tied to wte)
// Its projections are Conv1D layers, W stored [in, out] (nn.Linear's transposed), read as they are.
//
//   constexpr ctf::nn::gpt2_config small{};                   // GPT-2 small: 12 × 768, 12 heads
//   auto ids = ctf::id_input<"input_ids", ctf::batch, ctf::upto<1024>>();
//   auto logits = ctf::nn::gpt2<small>(ids);                  // [B, L, 50257]
#pragma once

#include "../ops/elementwise.hpp"
#include "../ops/heads.hpp"
#include "../ops/layer_norm.hpp"
#include "../ops/mask.hpp"
#include "../ops/matmul.hpp"
#include "../repeat.hpp"
#include "attention.hpp"
#include "embedding.hpp"

namespace ctformer::nn {

struct gpt2_config {
    int vocabulary = 50257, positions = 1024, d_model = 768, heads = 12, layers = 12;
    double eps = 1e-5;  // layer_norm_epsilon
    constexpr int d_ff() const { return 4 * d_model; }
};

// GPT-2's Conv1D {Name}: x·W + b with W [In, Out], i.e. a linear layer of Wᵀ.
template <fixed_string Name, int In, int Out, operand X>
auto conv1d(X x) {
    return linear(std::move(x), transpose(weight<Name + fixed_string(".weight"), In, Out>()),
                  weight<Name + fixed_string(".bias"), Out>());
}

template <gpt2_config C, fixed_string Name, operand X>
auto gpt2_norm(X x) {
    return layer_norm(std::move(x), weight<Name + fixed_string(".weight"), C.d_model>(),
                      weight<Name + fixed_string(".bias"), C.d_model>(), C.eps);
}

// One block, its weights under "" (a repeat's body adds transformer.h.{i}.).
template <gpt2_config C, expression X>
auto gpt2_block(X x) {
    constexpr int d = C.d_model;
    auto qkv = bind<"attn.qkv">(conv1d<"attn.c_attn", d, 3 * d>(gpt2_norm<C, "ln_1">(x)));
    return on_result(std::move(qkv), [&](auto all) {
        auto q = split_heads<C.heads>(columns<0, d>(all));
        auto k = split_heads<C.heads>(columns<d, 2 * d>(all));
        auto v = split_heads<C.heads>(columns<2 * d, 3 * d>(all));
        auto h = bind<"residual">(x + conv1d<"attn.c_proj", d, d>(merge_heads(scaled_dot_product_attention(q, k, v, causal))));
        return on_result(std::move(h), [&](auto r) {
            auto inner = gelu_tanh(conv1d<"mlp.c_fc", d, C.d_ff()>(gpt2_norm<C, "ln_2">(r)));
            return bind<"output">(r + conv1d<"mlp.c_proj", C.d_ff(), d>(inner));
        });
    });
}

// The logits [B, L, vocabulary] of token ids [B, L] (L up to C.positions).
template <gpt2_config C, operand Ids>
auto gpt2(Ids ids) {
    auto h0 = add_position_embedding<"transformer.wpe", C.positions>(
        embedding<"transformer.wte", C.vocabulary, C.d_model>(std::move(ids)));
    auto h = repeat<C.layers, "transformer.h.">(bind<"transformer.h0">(std::move(h0)),
                                               [](auto x) { return gpt2_block<C>(x); });
    return linear(gpt2_norm<C, "transformer.ln_f">(std::move(h)),
                  weight<"transformer.wte.weight", C.vocabulary, C.d_model>());
}

}  // namespace ctformer::nn
