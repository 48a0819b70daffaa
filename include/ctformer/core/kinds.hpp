// The graph's vocabulary of kinds, shared by the DSL, the passes, the plan and the kernels (and
// belonging to none of them): activations, causal alignments, and what a GEMM fuses after its
// product.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <numbers>
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

// Rotary position embedding (dsl/ops/rotary.hpp): in heads of head_dim, the first rotary_dims (0: all)
// turned in pairs, (i, i + dims/2) as Hugging Face's rotate_half or (2i, 2i + 1) as GPT-J's, by the
// angle position · θ^(-2i/dims). The angle is Hugging Face's: θ^(-2i/dims) and its product with the
// position rounded to fp32 (so at position 2000 it differs from the exact angle by up to 1e-4, as
// PyTorch's does); its cosine and sine are then exact.
enum class rotary_pairing { half, interleaved };

// The frequencies θ^(-2i/dims) rescaled for contexts longer than a model was trained on, as Hugging
// Face's rope_scaling: not (none); each divided by factor (linear); or Llama 3.1's (llama3): a pair
// whose wavelength 2π/f is shorter than original_positions / high_freq_factor keeps f, one longer than
// original_positions / low_freq_factor takes f / factor, and those between a mix of the two, smooth
// in original_positions / wavelength. Computed in fp32 step by step as Hugging Face's
// _compute_llama3_parameters, each product rounded before it is added (never one fused
// multiply-add, which the compiler may make of a*b + c where the target has FMA), so the
// frequencies are PyTorch's to the bit on every target.
enum class rope_type { none, linear, llama3 };

struct rope_scaling {
    rope_type type = rope_type::none;
    double factor = 1.0, low_freq_factor = 1.0, high_freq_factor = 4.0;
    int original_positions = 8192;  // original_max_position_embeddings

    constexpr bool operator==(const rope_scaling&) const = default;

    float scaled(float f) const {
        if (type == rope_type::none) return f;
        const float by = static_cast<float>(factor);
        if (type == rope_type::linear) return f / by;
        // a · b rounded to fp32 before anything is added to it: a volatile the compiler must store, so
        // that it cannot fuse the product and the sum into one FMA (a cast to double and back it can)
        const auto times = [](float a, float b) {
            const volatile float product = a * b;
            return float{product};
        };
        const float wavelength = times(1.0f / f, static_cast<float>(2 * std::numbers::pi));
        if (wavelength < static_cast<float>(original_positions / high_freq_factor)) return f;
        if (wavelength > static_cast<float>(original_positions / low_freq_factor)) return f / by;
        const float smooth = (times(1.0f / wavelength, static_cast<float>(original_positions)) - static_cast<float>(low_freq_factor)) /
                             static_cast<float>(high_freq_factor - low_freq_factor);
        return times(1.0f - smooth, f) / by + times(smooth, f);
    }
};

struct rotary_spec {
    int head_dim = 64;
    int rotary_dims = 0;  // 0: head_dim
    double theta = 10000.0;
    rotary_pairing pairing = rotary_pairing::half;
    rope_scaling scaling{};

    constexpr int dims() const { return rotary_dims ? rotary_dims : head_dim; }
    constexpr bool operator==(const rotary_spec&) const = default;

    // Pair i's frequency, fp32(1 / fp32(θ^(2i/dims))) then scaled, as LlamaRotaryEmbedding's inv_freq.
    float frequency(std::size_t i) const {
        const float exponent = static_cast<float>(2 * i) / static_cast<float>(dims());
        return scaling.scaled(1.0f / static_cast<float>(std::pow(static_cast<double>(static_cast<float>(theta)), double(exponent))));
    }
    // Pair i's angle at `position`: fp32(position · frequency(i)).
    double angle(std::size_t position, std::size_t i) const {
        return static_cast<float>(static_cast<float>(position) * frequency(i));
    }
};

// The rotary positions a GEMM's epilogue applies: `spec` on its first `columns` columns (0: none).
struct rotary_columns {
    rotary_spec spec{};
    int columns = 0;
};

// C = act(A·Wᵀ + bias) + residual, each term after the product optional. Gated: W is [gate|up],
// 2F rows, and C [.., F] = act(A·W_gateᵀ + b_gate) · (A·W_upᵀ + b_up) + residual (LLaMA's SwiGLU).
// Rotary: the projection's heads then turned by each row's position (only with bias, no more).
template <bool Bias, activation Act, bool Residual, bool Gated = false, rotary_columns Rotary = rotary_columns{}>
struct epilogue {
    static constexpr bool bias = Bias;
    static constexpr activation act = Act;
    static constexpr bool residual = Residual;
    static constexpr bool gated = Gated;
    static constexpr rotary_columns rotary = Rotary;
    static constexpr bool rotated = Rotary.columns > 0;
};

using plain = epilogue<false, activation::none, false>;

}  // namespace ctformer
