// Rotary position embedding (RoPE), on x [..., L, heads · head_dim], the axis before the last the
// positions (a token's place in its sequence, from the run's first position on when decoding):
//   rotary<{.head_dim, .rotary_dims, .theta, .pairing}>(x)
// turns, in every head, the first rotary_dims of its dimensions in pairs by the angle
// position · θ^(-2i/rotary_dims), pair i being (i, i + rotary_dims/2) (Hugging Face's rotate_half,
// LLaMA, Qwen2, Mistral, GPT-NeoX) or (2i, 2i + 1) (GPT-J's rotate_every_two); the other dimensions
// (partial rotary) pass unchanged. rotary_dims 0 means the whole head. The angle is Hugging Face's:
// θ^(-2i/dims) and its product with the position rounded to fp32 (so at position 2000 it differs
// from the exact angle by up to 1e-4, as PyTorch's does); its cosine and sine are then exact.
#pragma once

#include <cmath>
#include <string>

#include "elementwise.hpp"

namespace ctformer {

enum class rotary_pairing { half, interleaved };

struct rotary_spec {
    int head_dim = 64;
    int rotary_dims = 0;  // 0: head_dim
    double theta = 10000.0;
    rotary_pairing pairing = rotary_pairing::half;

    constexpr int dims() const { return rotary_dims ? rotary_dims : head_dim; }

    // Pair i's angle at `position`: fp32(position · fp32(1 / fp32(θ^(2i/dims)))), as LlamaRotaryEmbedding.
    double angle(std::size_t position, std::size_t i) const {
        const float exponent = static_cast<float>(2 * i) / static_cast<float>(dims());
        const float frequency = 1.0f / static_cast<float>(std::pow(static_cast<double>(static_cast<float>(theta)), double(exponent)));
        return static_cast<float>(static_cast<float>(position) * frequency);
    }
};

template <rotary_spec S>
struct rotary_op {
    static constexpr const char* name = "rotary";
    static constexpr rotary_spec spec = S;
    static std::string detail() {
        return "head_dim=" + std::to_string(S.head_dim) + " dims=" + std::to_string(S.dims()) +
               " theta=" + number_text(S.theta) + (S.pairing == rotary_pairing::half ? " half" : " interleaved");
    }
};

template <rotary_spec S, operand X>
using rotary_error = first_failure_t<
    check<(shape_of_t<X>::rank >= 2 && S.head_dim > 0 && last(extents_of<X>) % S.head_dim == 0 && S.dims() % 2 == 0 &&
           S.dims() > 0 && S.dims() <= S.head_dim),
          CTF_ROTARY_DOES_NOT_FIT_INPUT<input_is<shape_of_t<X>>, head_dim_is<S.head_dim>, rotary_dims_is<S.dims()>>>,
    outcome<no_ids_t<X>>>;

template <rotary_spec S, operand X, class Failure = rotary_error<S, X>>
    requires has_error<Failure>
Failure rotary(X);

template <rotary_spec S, operand X>
    requires no_error<rotary_error<S, X>>
auto rotary(X x) {
    return same_shape_node(rotary_op<S>{}, std::move(x));
}

}  // namespace ctformer
