// The operations fusion introduces. Each is a node<Op, Shape> like the DSL's own, so fused trees
// print, evaluate in the reference evaluator (reference/fused_ops.hpp) and run (runtime/).
//
//   gemm<epilogue>(A, W [, bias] [, residual])   act(A·Wᵀ + bias) + residual, W [N, K] as nn.Linear
//   fused_attention(Q, K, V [, key_padding])      softmax(mask(scale · Q·Kᵀ)) · V in one pass
//   attention_probabilities(Q, K [, key_padding]) softmax(mask(scale · Q·Kᵀ)), for need_weights
//   residual_layer_norm(a, b, gamma, beta)        layer_norm(a + b, gamma, beta) in one pass
//   columns<Begin, End>(x)                        x[..., Begin:End], a view
//   concat(W1, W2, ...)                           weights stacked along their first axis
#pragma once

#include <string>

#include "../dsl/bind.hpp"
#include "../kernels/attention.hpp"
#include "../kernels/gemm.hpp"

namespace ctformer {

using kernels::activation;
using causality = kernels::causal;  // (ctformer::causal is the mask)
using kernels::epilogue;

template <class Epilogue>
struct gemm_op {
    using epilogue_type = Epilogue;
    static constexpr const char* name = "gemm";
    static std::string detail() {
        std::string text = "epilogue:";
        if (Epilogue::bias) text += " +bias";
        if (Epilogue::act == activation::relu) text += " relu";
        if (Epilogue::act == activation::gelu) text += " gelu";
        if (Epilogue::residual) text += " +residual";
        return Epilogue::bias || Epilogue::residual || Epilogue::act != activation::none ? text : "";
    }
};

template <causality Causal, bool KeyPadding>
struct attention_op {
    static constexpr const char* name = "fused_attention";
    static constexpr causality causal_kind = Causal;
    static constexpr bool key_padding = KeyPadding;
    double scale;
    std::string detail() const {
        std::string text = "scale=" + number_text(scale);
        if (Causal == causality::top_left) text += " causal";
        if (Causal == causality::bottom_right) text += " causal_bottom_right";
        if (KeyPadding) text += " key_padding";
        return text;
    }
};

// The same masks and scale as fused_attention, written out as [..., Lq, Lk] probabilities.
template <causality Causal, bool KeyPadding>
struct attention_probabilities_op {
    static constexpr const char* name = "attention_probabilities";
    static constexpr causality causal_kind = Causal;
    static constexpr bool key_padding = KeyPadding;
    double scale;
    std::string detail() const { return attention_op<Causal, KeyPadding>{scale}.detail(); }
};

struct residual_layer_norm_op {
    static constexpr const char* name = "residual_layer_norm";
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

}  // namespace ctformer
