// The operations fusion introduces. Each is a node<Op, Shape> like the DSL's own, so fused trees
// print, evaluate in the reference evaluator (reference/fused_ops.hpp) and lower to plan steps.
// Each names its operands' roles, in the order of the node's children, so the code that reads a
// fused node finds an operand by what it is (operand<operand_role::residual>(e)), not by position.
//
//   gemm<epilogue>(A, W [, bias] [, residual] [, angles])
//                                                 act(A·Wᵀ + bias) + residual, W [N, K] as nn.Linear,
//                                                 or its heads then turned by rotary positions;
//                                                 gated: act(A·W_gateᵀ + b) · (A·W_upᵀ + b) + residual,
//                                                 W = concat(W_gate, W_up) [2N, K]
//   fused_attention(Q, K, V [, masks])            softmax(mask(scale · Q·Kᵀ)) · V in one pass
//   attention_probabilities(Q, K [, masks])       softmax(mask(scale · Q·Kᵀ)), for need_weights
//   residual_layer_norm(a, b, gamma, beta)        layer_norm(a + b, gamma, beta) in one pass
//   embedding_layer_norm(words, ids, positions, types [, type_ids], gamma, beta)
//                                                 layer_norm(words[ids] + positions[first + p]
//                                                 + types[type_ids or row R], gamma, beta), token by token
//   columns<Begin, End>(x)                        x[..., Begin:End], a view
//   concat(W1, W2, ...)                           weights stacked along their first axis
#pragma once

#include <array>
#include <string>

#include "../expr.hpp"
#include "rotary.hpp"
#include "../../core/kinds.hpp"

namespace ctformer {

// What an operand of a fused operation is.
enum class operand_role {
    input, weight, bias, residual, query, key, value, key_padding, attend, additive, gamma, beta,
    table, ids, positions, types, type_ids,  // a BERT embedding's tables and token ids
    angles                                   // a rotary GEMM's cosines and sines (rotary_table)
};

template <class Epilogue>
struct gemm_op {
    using epilogue_type = Epilogue;
    static constexpr const char* name = "gemm";
    static constexpr std::array<operand_role, 2 + Epilogue::bias + Epilogue::residual + Epilogue::rotated> roles = [] {
        std::array<operand_role, 2 + Epilogue::bias + Epilogue::residual + Epilogue::rotated> r{operand_role::input,
                                                                                                 operand_role::weight};
        std::size_t next = 2;
        if constexpr (Epilogue::bias) r[next++] = operand_role::bias;
        if constexpr (Epilogue::residual) r[next++] = operand_role::residual;
        if constexpr (Epilogue::rotated) r[next++] = operand_role::angles;
        return r;
    }();
    static std::string detail() {
        std::string text = "epilogue:";
        if (Epilogue::bias) text += " +bias";
        if (Epilogue::act != activation::none) text += std::string(" ") + activation_name(Epilogue::act);
        if (Epilogue::gated) text += " ·up";
        if (Epilogue::residual) text += " +residual";
        if (Epilogue::rotated)
            text += " rotary(columns 0:" + std::to_string(Epilogue::rotary.columns) + " " + rotary_text(Epilogue::rotary.spec) + ")";
        return text == "epilogue:" ? "" : text;
    }
};

// The masks a fused attention applies as it computes its scores: a causal alignment, and which
// mask tensors it reads, each at most once, after Q, K (and V) in this order: key padding [B, Lk],
// attend (booleans) and additive (floats), both broadcast to the scores (dsl/ops/mask.hpp).
struct attention_masks {
    causality causal = causality::none;
    int window = 0;  // a causal mask's sliding window: each query sees its last `window` keys (0: all)
    bool key_padding = false, attend = false, additive = false;
};

// What the fused attention ops share: their masks, their operands' roles, and the scale.
template <attention_masks Masks, bool Values>
struct attention_kind {
    static constexpr attention_masks masks = Masks;
    static constexpr causality causal_kind = Masks.causal;
    static constexpr bool key_padding = Masks.key_padding;
    static constexpr std::size_t operand_count = 2 + Values + Masks.key_padding + Masks.attend + Masks.additive;
    static constexpr std::array<operand_role, operand_count> roles = [] {
        std::array<operand_role, operand_count> r{operand_role::query, operand_role::key};
        std::size_t next = 2;
        if constexpr (Values) r[next++] = operand_role::value;
        if constexpr (Masks.key_padding) r[next++] = operand_role::key_padding;
        if constexpr (Masks.attend) r[next++] = operand_role::attend;
        if constexpr (Masks.additive) r[next++] = operand_role::additive;
        return r;
    }();

    double scale;
    bool attend_batch_first = false, additive_batch_first = false;  // as the masks' mask_op had them

    std::string detail() const {
        std::string text = "scale=" + number_text(scale);
        if (Masks.causal == causality::top_left) text += " causal";
        if (Masks.window) text += " window=" + std::to_string(Masks.window);
        if (Masks.causal == causality::bottom_right) text += " causal_bottom_right";
        if (Masks.key_padding) text += " key_padding";
        if (Masks.attend) text += " attend";
        if (Masks.additive) text += " additive";
        return text;
    }
};

template <attention_masks Masks>
struct attention_op : attention_kind<Masks, true> {
    static constexpr const char* name = "fused_attention";
};

// The same masks and scale as fused_attention, written out as [..., Lq, Lk] probabilities.
template <attention_masks Masks>
struct attention_probabilities_op : attention_kind<Masks, false> {
    static constexpr const char* name = "attention_probabilities";
};

struct residual_layer_norm_op {
    static constexpr const char* name = "residual_layer_norm";
    static constexpr std::array roles{operand_role::input, operand_role::residual, operand_role::gamma, operand_role::beta};
    double eps;
    std::string detail() const { return "eps=" + number_text(eps); }
};

// A BERT embedding in one step (passes/fuse_embedding_layer_norm.hpp): each token's word row, its
// position's row and its token type's row summed and layer-normed. Typed: the types gathered by
// their own ids (token_type_ids); else every token takes the types table's row type_row.
template <bool Typed>
struct embedding_layer_norm_op {
    static constexpr const char* name = "embedding_layer_norm";
    static constexpr bool typed = Typed;
    static constexpr auto roles = [] {
        using enum operand_role;
        if constexpr (Typed) return std::array{table, ids, positions, types, type_ids, gamma, beta};
        else return std::array{table, ids, positions, types, gamma, beta};
    }();
    int first = 0;     // the position table's row of position 0
    int type_row = 0;  // the type every token has, when not Typed
    double eps = 0;
    std::string detail() const {
        std::string text = first ? "positions from row " + std::to_string(first) + ", " : "";
        if (!Typed) text += "type row " + std::to_string(type_row) + ", ";
        return text + "eps=" + number_text(eps);
    }
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
