// fuse_attention:  softmax(mask(scale(Q·Kᵀ))) · V → fused_attention(Q, K, V)
// One kernel: scores, scale, mask and an online softmax (running max and sum, rescaled) over blocks
// of keys, multiplied into V as they go; no [Lq, Lk] buffer. Masks it takes, at most one of each
// kind, in any order: causal (either alignment, or a sliding window), key padding, attend and additive (any shape that
// broadcasts to the scores), each applied as the scores are computed.
#pragma once

#include "../dsl/ops/mask.hpp"
#include "../dsl/ops/matmul.hpp"
#include "../dsl/ops/softmax.hpp"
#include "match.hpp"

namespace ctformer::passes {

namespace detail {
// scale(Q·Kᵀ) under zero or more masks: whether the chain fits the kernel, and which masks it has
// (each kind at most once; in any order, since masks commute).
template <class E>
struct attention_chain {
    static constexpr bool fits = false;
};

template <class E>
    requires is_op<E, scale_op> && is_op<child_t<E, 0>, matmul_op> && is_op<child_t<child_t<E, 0>, 1>, transpose_op>
struct attention_chain<E> {
    static constexpr bool fits = true;
    static constexpr attention_masks masks{};
};

// The chain under mask node E, with E's kind added (a mask of scores that are no chain is none).
template <class E>
    requires is_mask<E> && attention_chain<child_t<E, 0>>::fits
struct attention_chain<E> {
    using inner = attention_chain<child_t<E, 0>>;
    static constexpr mask_kind kind = op_t<E>::kind;
    static constexpr attention_masks masks = [] {
        attention_masks m = inner::masks;
        if (kind == mask_kind::causal) m.causal = causality::top_left;
        if (kind == mask_kind::causal) m.window = op_t<E>::window;
        if (kind == mask_kind::causal_bottom_right) m.causal = causality::bottom_right;
        if (kind == mask_kind::key_padding) m.key_padding = true;
        if (kind == mask_kind::attend) m.attend = true;
        if (kind == mask_kind::additive) m.additive = true;
        return m;
    }();
    static constexpr bool fits = inner::fits && [] {
        const attention_masks m = inner::masks;
        if (kind == mask_kind::causal || kind == mask_kind::causal_bottom_right) return m.causal == causality::none;
        if (kind == mask_kind::key_padding) return !m.key_padding;
        if (kind == mask_kind::attend) return !m.attend;
        return !m.additive;
    }();
};

// The scale node under the masks.
template <class E>
const auto& scaled_scores(const E& e) {
    if constexpr (is_mask<E>) return scaled_scores(child<0>(e));
    else return e;
}

// The mask node of kind Kind in the chain.
template <mask_kind Kind, class E>
const auto& mask_node(const E& e) {
    if constexpr (is_op<E, mask_op<Kind>>) return e;
    else return mask_node<Kind>(child<0>(e));
}

// The operands of the chain's mask tensors, in the order the fused ops read them.
template <class Masked>
auto mask_operands(const Masked& masked) {
    constexpr attention_masks m = attention_chain<Masked>::masks;
    const auto of = [&]<mask_kind Kind, bool Present>() {
        if constexpr (Present) return std::tuple{child<1>(mask_node<Kind>(masked))};
        else return std::tuple{};
    };
    return std::tuple_cat(of.template operator()<mask_kind::key_padding, m.key_padding>(),
                          of.template operator()<mask_kind::attend, m.attend>(),
                          of.template operator()<mask_kind::additive, m.additive>());
}

// Op<masks>{scale} over the chain's Q and K, then `rest` (V, where there is one), then the chain's
// mask tensors.
template <template <attention_masks> class Op, class Shape, class Masked, class... Rest>
auto fuse_chain(const Masked& masked, const Rest&... rest) {
    using chain = attention_chain<Masked>;
    const auto& scaled = scaled_scores(masked);
    const auto& product = child<0>(scaled);
    Op<chain::masks> op{{op_of(scaled).factor}};
    if constexpr (chain::masks.attend) op.attend_batch_first = op_of(mask_node<mask_kind::attend>(masked)).batch_first;
    if constexpr (chain::masks.additive)
        op.additive_batch_first = op_of(mask_node<mask_kind::additive>(masked)).batch_first;
    return std::apply(
        [&](const auto&... masks) {
            return make_node<Shape>(op, child<0>(product), child<0>(child<1>(product)), rest..., masks...);
        },
        mask_operands(masked));
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
