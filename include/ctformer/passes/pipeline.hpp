// The fusion passes, in the order they run. Each rewrites every binding and the result of a graph;
// later rules see what earlier ones made (fuse_activation finds the gemm fuse_linear made).
//
//   fuse_position_embedding    embedding + leading rows          → one gather, positions added
//   fuse_attention             softmax(mask(scale(Q·Kᵀ))) · V   → fused_attention
//   fuse_attention_weights     softmax(mask(scale(Q·Kᵀ)))         → attention_probabilities
//   fuse_linear                x·Wᵀ (+ b)                        → gemm (+bias)
//   fuse_activation            relu/gelu(gemm)                   → gemm epilogue
//   fuse_gated                 act(gemm(x, W_g)) · gemm(x, W_u)  → one gemm over [W_g|W_u], gated epilogue
//   fuse_rotary                rotary(gemm)                      → gemm epilogue, by each row's position
//   fuse_residual_layer_norm   layer_norm(a + b)                 → residual_layer_norm
//   fuse_embedding_layer_norm  LayerNorm(words + positions + types) → embedding_layer_norm (BERT's h₀)
//   fuse_positional_encoding   gemm + PE table                   → gemm epilogue
//   fuse_residual              gemm + r                          → gemm epilogue
//   fuse_qkv                   three projections of one input    → one gemm, bound once
//   fuse_kv                    K and V projections of one memory → one gemm, bound once
#pragma once

#include <tuple>

#include "fuse_activation.hpp"
#include "fuse_attention.hpp"
#include "fuse_attention_weights.hpp"
#include "fuse_embedding_layer_norm.hpp"
#include "fuse_gated.hpp"
#include "fuse_kv.hpp"
#include "fuse_linear.hpp"
#include "fuse_position_embedding.hpp"
#include "fuse_positional_encoding.hpp"
#include "fuse_qkv.hpp"
#include "fuse_residual.hpp"
#include "fuse_residual_layer_norm.hpp"
#include "fuse_rotary.hpp"
#include "rewrite.hpp"

namespace ctformer::passes {

using pipeline = std::tuple<fuse_position_embedding, fuse_attention, fuse_attention_weights, fuse_linear, fuse_activation,
                            fuse_gated, fuse_rotary, fuse_residual_layer_norm, fuse_embedding_layer_norm, fuse_positional_encoding, fuse_residual, fuse_qkv, fuse_kv>;

inline constexpr std::size_t pass_count = std::tuple_size_v<pipeline>;

// The graph after the first Count passes.
template <std::size_t Count = pass_count, operand G>
auto run_first(const G& g) {
    if constexpr (Count == 0) return g;
    else return run_pass<std::tuple_element_t<Count - 1, pipeline>>(run_first<Count - 1>(g));
}

template <operand G>
auto fuse(const G& g) {
    return run_first<pass_count>(g);
}

}  // namespace ctformer::passes
