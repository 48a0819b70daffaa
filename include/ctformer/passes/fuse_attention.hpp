// fuse_attention:  softmax(mask(scale(Q·Kᵀ))) · V → fused_attention(Q, K, V)
// One kernel: scores, scale, mask and an online softmax (running max and sum, rescaled) over blocks
// of keys, multiplied into V as they go; no [Lq, Lk] buffer. Masks it takes: causal (either
// alignment) and key padding, at most one of each; a graph with other masks keeps its unfused steps.
#pragma once

#include "../dsl/ops/mask.hpp"
#include "../dsl/ops/matmul.hpp"
#include "../dsl/ops/softmax.hpp"
#include "match.hpp"

namespace ctformer::passes {

namespace detail {
// scale(Q·Kᵀ) under zero or more masks: whether the chain fits the kernel, and which masks it has.
template <class E>
struct attention_chain {
    static constexpr bool fits = false;
};

template <class E>
    requires is_op<E, scale_op> && is_op<child_t<E, 0>, matmul_op> && is_op<child_t<child_t<E, 0>, 1>, transpose_op>
struct attention_chain<E> {
    static constexpr bool fits = true;
    static constexpr causality causal_kind = causality::none;
    static constexpr bool key_padding = false;
};

template <class E, causality Causal>
struct causal_chain {
    using inner = attention_chain<child_t<E, 0>>;
    static constexpr bool fits = inner::fits && inner::causal_kind == causality::none;
    static constexpr causality causal_kind = Causal;
    static constexpr bool key_padding = inner::key_padding;
};

template <class E>
    requires is_op<E, mask_op<mask_kind::causal>>
struct attention_chain<E> : causal_chain<E, causality::top_left> {};

template <class E>
    requires is_op<E, mask_op<mask_kind::causal_bottom_right>>
struct attention_chain<E> : causal_chain<E, causality::bottom_right> {};

template <class E>
    requires is_op<E, mask_op<mask_kind::key_padding>>
struct attention_chain<E> {
    using inner = attention_chain<child_t<E, 0>>;
    static constexpr bool fits = inner::fits && !inner::key_padding;
    static constexpr causality causal_kind = inner::causal_kind;
    static constexpr bool key_padding = true;
};

// The scale node under the masks.
template <class E>
const auto& scaled_scores(const E& e) {
    if constexpr (is_mask<E>) return scaled_scores(child<0>(e));
    else return e;
}

// The boolean [B, Lk] tensor of the key-padding mask in the chain.
template <class E>
const auto& key_padding_operand(const E& e) {
    if constexpr (is_op<E, mask_op<mask_kind::key_padding>>) return child<1>(e);
    else return key_padding_operand(child<0>(e));
}

// Op<causal kind, key padding>{scale} over the chain's Q and K, then `rest` (V, where there is one),
// then the key-padding mask where the chain has one.
template <template <causality, bool> class Op, class Shape, class Masked, class... Rest>
auto fuse_chain(const Masked& masked, const Rest&... rest) {
    using chain = attention_chain<Masked>;
    const auto& scaled = scaled_scores(masked);
    const auto& product = child<0>(scaled);
    const Op<chain::causal_kind, chain::key_padding> op{op_of(scaled).factor};
    if constexpr (chain::key_padding)
        return make_node<Shape>(op, child<0>(product), child<0>(child<1>(product)), rest...,
                                key_padding_operand(masked));
    else
        return make_node<Shape>(op, child<0>(product), child<0>(child<1>(product)), rest...);
}
}  // namespace detail

struct fuse_attention {
    static constexpr const char* name = "fuse_attention";

    template <class E>
        requires is_op<E, matmul_op> && is_op<child_t<E, 0>, softmax_op> &&
                 detail::attention_chain<child_t<child_t<E, 0>, 0>>::fits
    static auto fuse(const E& e) {
        return detail::fuse_chain<attention_op, shape_of_t<E>>(child<0>(child<0>(e)), child<1>(e));
    }
};

}  // namespace ctformer::passes
