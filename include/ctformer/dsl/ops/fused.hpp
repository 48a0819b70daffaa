// The operations fusion introduces. Each is a node<Op, Shape> like the DSL's own, so fused trees
// print, evaluate in the reference evaluator (reference/fused_ops.hpp) and lower to plan steps.
// Each names its operands' roles, in the order of the node's children, so the code that reads a
// fused node finds an operand by what it is (operand<operand_role::residual>(e)), not by position.
//
//   gemm<epilogue>(A, W [, bias] [, residual])   act(A·Wᵀ + bias) + residual, W [N, K] as nn.Linear
//   fused_attention(Q, K, V [, key_padding])      softmax(mask(scale · Q·Kᵀ)) · V in one pass
//   attention_probabilities(Q, K [, key_padding]) softmax(mask(scale · Q·Kᵀ)), for need_weights
//   residual_layer_norm(a, b, gamma, beta)        layer_norm(a + b, gamma, beta) in one pass
//   columns<Begin, End>(x)                        x[..., Begin:End], a view
//   concat(W1, W2, ...)                           weights stacked along their first axis
#pragma once

#include <array>
#include <string>

#include "../expr.hpp"
#include "kinds.hpp"

namespace ctformer {

// What an operand of a fused operation is.
enum class operand_role { input, weight, bias, residual, query, key, value, key_padding, gamma, beta };

template <class Epilogue>
struct gemm_op {
    using epilogue_type = Epilogue;
    static constexpr const char* name = "gemm";
    static constexpr std::array<operand_role, 2 + Epilogue::bias + Epilogue::residual> roles = [] {
        std::array<operand_role, 2 + Epilogue::bias + Epilogue::residual> r{operand_role::input, operand_role::weight};
        if constexpr (Epilogue::bias) r[2] = operand_role::bias;
        if constexpr (Epilogue::residual) r.back() = operand_role::residual;
        return r;
    }();
    static std::string detail() {
        std::string text = "epilogue:";
        if (Epilogue::bias) text += " +bias";
        if (Epilogue::act == activation::relu) text += " relu";
        if (Epilogue::act == activation::gelu) text += " gelu";
        if (Epilogue::residual) text += " +residual";
        return Epilogue::bias || Epilogue::residual || Epilogue::act != activation::none ? text : "";
    }
};

// The scale and masks of a fused attention, as its detail() prints them.
template <causality Causal, bool KeyPadding>
std::string attention_detail(double scale) {
    std::string text = "scale=" + number_text(scale);
    if (Causal == causality::top_left) text += " causal";
    if (Causal == causality::bottom_right) text += " causal_bottom_right";
    if (KeyPadding) text += " key_padding";
    return text;
}

template <causality Causal, bool KeyPadding>
struct attention_op {
    static constexpr const char* name = "fused_attention";
    static constexpr causality causal_kind = Causal;
    static constexpr bool key_padding = KeyPadding;
    static constexpr std::array<operand_role, 3 + KeyPadding> roles = [] {
        std::array<operand_role, 3 + KeyPadding> r{operand_role::query, operand_role::key, operand_role::value};
        if constexpr (KeyPadding) r[3] = operand_role::key_padding;
        return r;
    }();
    double scale;
    std::string detail() const { return attention_detail<Causal, KeyPadding>(scale); }
};

// The same masks and scale as fused_attention, written out as [..., Lq, Lk] probabilities.
template <causality Causal, bool KeyPadding>
struct attention_probabilities_op {
    static constexpr const char* name = "attention_probabilities";
    static constexpr causality causal_kind = Causal;
    static constexpr bool key_padding = KeyPadding;
    static constexpr std::array<operand_role, 2 + KeyPadding> roles = [] {
        std::array<operand_role, 2 + KeyPadding> r{operand_role::query, operand_role::key};
        if constexpr (KeyPadding) r[2] = operand_role::key_padding;
        return r;
    }();
    double scale;
    std::string detail() const { return attention_detail<Causal, KeyPadding>(scale); }
};

struct residual_layer_norm_op {
    static constexpr const char* name = "residual_layer_norm";
    static constexpr std::array roles{operand_role::input, operand_role::residual, operand_role::gamma, operand_role::beta};
    double eps;
    std::string detail() const { return "eps=" + number_text(eps); }
};

template <int Begin, int End>
struct columns_op {
    static constexpr const char* name = "columns";
    static constexpr int begin = Begin, end = End;
    static std::string detail() { return std::to_string(Begin) + ":" + std::to_string(End); }
};

struct concat_op {
    static constexpr const char* name = "concat";
};

// The index among Op's children of its operand with role R.
template <class Op, operand_role R>
constexpr std::size_t operand_index() {
    for (std::size_t i = 0; i < Op::roles.size(); ++i)
        if (Op::roles[i] == R) return i;
    throw "ctformer: internal error, please report: no operand with this role";
}

template <class Op, operand_role R>
inline constexpr bool has_operand = [] {
    for (operand_role r : Op::roles)
        if (r == R) return true;
    return false;
}();

}  // namespace ctformer
