// The graph's vocabulary of kinds, shared by the DSL, the passes, the plan and the kernels (and
// belonging to none of them): activations, causal alignments, and what a GEMM fuses after its
// product.
#pragma once

#include <array>
#include <string_view>
#include <utility>

namespace ctformer {

// What follows a linear layer: none, max(x, 0), x·Φ(x) = 0.5·x·(1 + erf(x/√2)) (PyTorch's gelu),
// PyTorch's gelu(approximate='tanh'), 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) (GPT-2, many BERTs),
// tanh (BERT's pooler), or x·σ(x) (SiLU, LLaMA's gated feed-forward).
enum class activation { none, relu, gelu, gelu_tanh, tanh, silu };

// Each activation by its name, as the DSL prints it and a parameter spells it (nn::config_fields).
inline constexpr std::array<std::pair<std::string_view, activation>, 6> activations{{{"relu", activation::relu},
                                                                                     {"gelu", activation::gelu},
                                                                                     {"gelu_tanh", activation::gelu_tanh},
                                                                                     {"tanh", activation::tanh},
                                                                                     {"silu", activation::silu},
                                                                                     {"none", activation::none}}};

constexpr const char* activation_name(activation act) {
    for (const auto& [name, value] : activations)
        if (value == act) return name.data();  // a literal's: null-terminated
    return "?";
}

// Which keys a query may see: all; j <= i (top-left, PyTorch's is_causal); or j <= i + (Lk - Lq)
// (bottom-right, aligned at the last key).
enum class causality { none, top_left, bottom_right };

// C = act(A·Wᵀ + bias) + residual, each term after the product optional. Gated: W is [gate|up],
// 2F rows, and C [.., F] = act(A·W_gateᵀ + b_gate) · (A·W_upᵀ + b_up) + residual (LLaMA's SwiGLU).
template <bool Bias, activation Act, bool Residual, bool Gated = false>
struct epilogue {
    static constexpr bool bias = Bias;
    static constexpr activation act = Act;
    static constexpr bool residual = Residual;
    static constexpr bool gated = Gated;
};

using plain = epilogue<false, activation::none, false>;

}  // namespace ctformer
