// Rotary position embedding (RoPE), on x [..., L, heads · head_dim], the axis before the last the
// positions (a token's place in its sequence, from the run's first position on when decoding):
//   rotary<{.head_dim, .rotary_dims, .theta, .pairing, .scaling}>(x)
// turns, in every head, the first rotary_dims of its dimensions in pairs by the angle
// position · θ^(-2i/rotary_dims), pair i being (i, i + rotary_dims/2) (Hugging Face's rotate_half,
// LLaMA, Qwen2, Mistral, GPT-NeoX) or (2i, 2i + 1) (GPT-J's rotate_every_two); the other dimensions
// (partial rotary) pass unchanged. rotary_dims 0 means the whole head; scaling rescales the
// frequencies as Hugging Face's rope_scaling (linear, or Llama 3.1's llama3); the spec and its angle
// are in core/kinds.hpp. fuse_rotary applies it in the epilogue of the GEMM that makes x.
#pragma once

#include <cmath>
#include <string>

#include "elementwise.hpp"

namespace ctformer {

// A scaling as explain() prints it: "" (none), " linear(factor=4)" or
// " llama3(factor=32 low=1 high=4 original=8192)".
inline std::string rope_scaling_text(const rope_scaling& r) {
    if (r.type == rope_type::none) return "";
    if (r.type == rope_type::linear) return " linear(factor=" + number_text(r.factor) + ")";
    return " llama3(factor=" + number_text(r.factor) + " low=" + number_text(r.low_freq_factor) +
           " high=" + number_text(r.high_freq_factor) + " original=" + std::to_string(r.original_positions) + ")";
}

// "head_dim=64 dims=64 theta=10000 half", as explain() prints a rotary step or epilogue.
inline std::string rotary_text(const rotary_spec& s) {
    return "head_dim=" + std::to_string(s.head_dim) + " dims=" + std::to_string(s.dims()) + " theta=" + number_text(s.theta) +
           (s.pairing == rotary_pairing::half ? " half" : " interleaved") + rope_scaling_text(s.scaling);
}

// The cosines and sines of S's angles, [positions, dims]: row p holds pair i's cosine in column i and
// its sine in column dims/2 + i. A constant leaf, computed once: the table fuse_rotary's GEMM reads.
template <rotary_spec S>
struct rotary_table {
    static inline const std::string name = "rotary_angles theta=" + number_text(S.theta) + rope_scaling_text(S.scaling);
    static double at(int position, int column, int width) {
        const int pairs = width / 2;
        const double angle = S.angle(static_cast<std::size_t>(position), static_cast<std::size_t>(column % pairs));
        return column < pairs ? std::cos(angle) : std::sin(angle);
    }
};

template <rotary_spec S>
struct rotary_op {
    static constexpr const char* name = "rotary";
    static constexpr rotary_spec spec = S;
    static std::string detail() { return rotary_text(S); }
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
