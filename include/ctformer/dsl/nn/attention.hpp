// Attention, written in the DSL so that it stays inspectable and fusable:
//   attention_weights(Q, K, masks...)         softmax(mask(Q·Kᵀ / √d_k))          [..., Lq, Lk]
//   scaled_dot_product_attention(Q, K, V, …)  attention_weights(Q, K, …) · V       [..., Lq, d_v]
//   multi_head_attention<cfg>(x, masks...)            self-attention
//   multi_head_attention<cfg>(q_in, k_in, v_in, …)    cross-attention (Lq and Lk may differ)
//   multi_head_attention_with_weights<cfg>(…)         {output, weights [B, heads, Lq, Lk]}
// heads and kv_heads in the config make MHA, GQA and MQA one block.
//
// Weights (PyTorch names, with q/k/v kept apart, as nn.MultiheadAttention does when kdim differs):
//   {Prefix}q_proj_weight [heads·d_head, d_model]      {Prefix}q_proj_bias [heads·d_head]
//   {Prefix}k_proj_weight [kv_heads·d_head, d_model]   {Prefix}k_proj_bias [kv_heads·d_head]
//   {Prefix}v_proj_weight [kv_heads·d_head, d_model]   {Prefix}v_proj_bias [kv_heads·d_head]
//   {Prefix}out_proj.weight [d_model, d_model]         {Prefix}out_proj.bias [d_model]
// or, in attention_block<cfg, Prefix, bert_attention_names>, Hugging Face BERT's:
//   {Prefix}self.query.weight, ….bias, self.key.*, self.value.*, output.dense.*
#pragma once

#include <cmath>

#include "../ops/heads.hpp"
#include "../ops/mask.hpp"
#include "../ops/matmul.hpp"
#include "../ops/softmax.hpp"
#include "../tensor.hpp"
#include "config.hpp"

namespace ctformer::nn {

// ---- scaled dot-product attention -----------------------------------------------------------------

template <operand Q, operand K, operand V, mask_descriptor... Masks>
struct attention_rule {
    static constexpr auto q = extents_of<Q>;
    static constexpr auto k = extents_of<K>;
    static constexpr auto v = extents_of<V>;
    static constexpr bool ranks = rank_of<Q> >= 2 && rank_of<K> >= 2 && rank_of<V> == rank_of<K>;
    static constexpr bool fits = ranks && last(q) == last(k) && last(k, 1) == last(v, 1) &&
                                 is_suffix(drop_last<2>(k), drop_last<2>(v)) &&
                                 is_suffix(drop_last<2>(v), drop_last<2>(k)) &&
                                 broadcastable(drop_last<2>(q), drop_last<2>(k));
    static constexpr auto batch_extents = broadcast(drop_last<2>(q), drop_last<2>(k));
    using scores = shape_from_t<concat(batch_extents, std::array{last(q, 1), last(k, 1)})>;

    using failure = first_failure_t<
        check<fits, CTF_ATTENTION_INPUTS_DO_NOT_FIT<query_is<shape_of_t<Q>>, key_is<shape_of_t<K>>,
                                                     value_is<shape_of_t<V>>>>,
        masks_fit<scores, Masks...>,
        names_agree_across<expr_list<Q, K, V>, mask_operands_t<Masks>...>>;
};

template <operand S>
auto apply_masks(S scores) {
    return scores;
}
template <operand S, mask_descriptor First, mask_descriptor... Rest>
auto apply_masks(S scores, First first, Rest... rest) {
    return apply_masks(mask(std::move(scores), std::move(first)), std::move(rest)...);
}

// The keys stand in for the values in the rule: only Q and K matter here.
template <operand Q, operand K, mask_descriptor... Masks,
          class Failure = typename attention_rule<Q, K, K, Masks...>::failure>
    requires has_error<Failure>
Failure attention_weights(Q, K, Masks...);

template <operand Q, operand K, mask_descriptor... Masks>
    requires no_error<typename attention_rule<Q, K, K, Masks...>::failure>
auto attention_weights(Q q, K k, Masks... masks) {
    const double d_k = last(extents_of<Q>);
    auto scores = scale(matmul(std::move(q), transpose(std::move(k))), 1.0 / std::sqrt(d_k));
    return softmax(apply_masks(std::move(scores), std::move(masks)...));
}

template <operand Q, operand K, operand V, mask_descriptor... Masks,
          class Failure = typename attention_rule<Q, K, V, Masks...>::failure>
    requires has_error<Failure>
Failure scaled_dot_product_attention(Q, K, V, Masks...);

template <operand Q, operand K, operand V, mask_descriptor... Masks>
    requires no_error<typename attention_rule<Q, K, V, Masks...>::failure>
auto scaled_dot_product_attention(Q q, K k, V v, Masks... masks) {
    return matmul(attention_weights(std::move(q), std::move(k), std::move(masks)...), std::move(v));
}

// ---- multi-head attention -------------------------------------------------------------------------

// [..., L, H · d_head] -> [..., Heads, L, d_head]: split into H heads, each repeated up to Heads
// (grouped-query attention's keys and values; H = Heads for queries and MHA).
template <int H, int Heads, operand X>
auto grouped_heads(X x) {
    auto split = split_heads<H>(std::move(x));
    if constexpr (H == Heads) return split;
    else return expand_heads<Heads>(std::move(split));
}

template <class Output, class Weights>
struct attention_result {
    Output output;    // [..., Lq, d_model]
    Weights weights;  // [..., heads, Lq, Lk], bound as {Prefix}attn_weights
};

// Where the attention's weights are, after its prefix: nn.MultiheadAttention's names, or Hugging
// Face BERT's (BertAttention: self.query, self.key, self.value, output.dense).
struct torch_attention_names {
    static constexpr fixed_string q_weight = "q_proj_weight", q_bias = "q_proj_bias";
    static constexpr fixed_string k_weight = "k_proj_weight", k_bias = "k_proj_bias";
    static constexpr fixed_string v_weight = "v_proj_weight", v_bias = "v_proj_bias";
    static constexpr fixed_string out_weight = "out_proj.weight", out_bias = "out_proj.bias";
};
struct bert_attention_names {
    static constexpr fixed_string q_weight = "self.query.weight", q_bias = "self.query.bias";
    static constexpr fixed_string k_weight = "self.key.weight", k_bias = "self.key.bias";
    static constexpr fixed_string v_weight = "self.value.weight", v_bias = "self.value.bias";
    static constexpr fixed_string out_weight = "output.dense.weight", out_bias = "output.dense.bias";
};

template <config C, fixed_string Prefix, class Names = torch_attention_names>
struct attention_block {
    static constexpr int heads = C.heads;
    static constexpr int groups = C.key_value_heads();
    static constexpr int d_head = C.d_head();
    static constexpr int d = C.d_model;

    static constexpr auto make_weights() {
        return std::tuple{weight<Prefix + Names::q_weight, heads * d_head, d>(), weight<Prefix + Names::q_bias, heads * d_head>(),
                          weight<Prefix + Names::k_weight, groups * d_head, d>(), weight<Prefix + Names::k_bias, groups * d_head>(),
                          weight<Prefix + Names::v_weight, groups * d_head, d>(), weight<Prefix + Names::v_bias, groups * d_head>(),
                          weight<Prefix + Names::out_weight, d, d>(), weight<Prefix + Names::out_bias, d>()};
    }
    using weight_list = typename as_expr_list<decltype(make_weights())>::type;

    // [..., L, d_model] -> [..., heads, L, d_head], from H heads (key/value groups repeated).
    template <int H, operand X, operand W, operand B>
    static auto project(X x, W w, B b) {
        return grouped_heads<H, heads>(linear(std::move(x), std::move(w), std::move(b)));
    }

    // The output [..., Lq, d_model]; with WithWeights, {output, weights} with the weights bound.
    template <bool WithWeights, operand Q, operand K, operand V, mask_descriptor... Masks>
    static auto build(Q q_in, K k_in, V v_in, Masks... masks) {
        auto [wq, bq, wk, bk, wv, bv, wo, bo] = make_weights();
        auto q = project<heads>(std::move(q_in), wq, bq);
        auto k = project<groups>(std::move(k_in), wk, bk);
        auto v = project<groups>(std::move(v_in), wv, bv);
        auto probabilities = attention_weights(std::move(q), std::move(k), std::move(masks)...);
        auto attend = [&](auto p) { return linear(merge_heads(matmul(std::move(p), std::move(v))), wo, bo); };
        if constexpr (WithWeights) {
            auto weights = bind<Prefix + fixed_string("attn_weights")>(std::move(probabilities));
            return attention_result{attend(weights), weights};
        } else {
            return attend(std::move(probabilities));
        }
    }
};

template <config C, fixed_string Prefix, operand Q, operand K, operand V, mask_descriptor... Masks>
struct multi_head_attention_rule {
    static constexpr bool same_batch = [] {  // batched against unbatched differ too
        if constexpr (rank_of<Q> == rank_of<K> && rank_of<K> >= 2)
            return drop_last<2>(extents_of<Q>) == drop_last<2>(extents_of<K>);
        else
            return false;
    }();
    static constexpr int lq = last(extents_of<Q>, 1);
    static constexpr int lk = last(extents_of<K>, 1);
    using scores = shape_from_t<concat(drop_last<2>(extents_of<Q>), std::array{C.heads, lq, lk})>;

    using failure = first_failure_t<
        outcome<config_error<C>>, width_check<C, Q>, width_check<C, K>, width_check<C, V>,
        check<std::is_same_v<shape_of_t<K>, shape_of_t<V>>,
              CTF_KEY_AND_VALUE_LENGTHS_DIFFER<key_is<shape_of_t<K>>, value_is<shape_of_t<V>>>>,
        check<same_batch, CTF_QUERY_AND_KEY_BATCH_DIFFER<query_is<shape_of_t<Q>>, key_is<shape_of_t<K>>>>,
        masks_fit<scores, Masks...>,
        names_agree_across<expr_list<Q, K, V>, typename attention_block<C, Prefix>::weight_list,
                           mask_operands_t<Masks>...>>;
};

template <config C, fixed_string Prefix, operand Q, operand K, operand V, mask_descriptor... M>
using mha_error = typename multi_head_attention_rule<C, Prefix, Q, K, V, M...>::failure;

template <config C, fixed_string Prefix = "", operand Q, operand K, operand V, mask_descriptor... M,
          class Failure = mha_error<C, Prefix, Q, K, V, M...>>
    requires has_error<Failure>
Failure multi_head_attention(Q, K, V, M...);

template <config C, fixed_string Prefix = "", operand Q, operand K, operand V, mask_descriptor... M>
    requires no_error<mha_error<C, Prefix, Q, K, V, M...>>
auto multi_head_attention(Q q_in, K k_in, V v_in, M... masks) {
    return attention_block<C, Prefix>::template build<false>(std::move(q_in), std::move(k_in),
                                                             std::move(v_in), std::move(masks)...);
}

template <config C, fixed_string Prefix = "", operand X, mask_descriptor... M,
          class Failure = mha_error<C, Prefix, X, X, X, M...>>
    requires has_error<Failure>
Failure multi_head_attention(X, M...);

// Self-attention: x feeds queries, keys and values, so it is bound first unless it is a leaf.
template <config C, fixed_string Prefix = "", operand X, mask_descriptor... M>
    requires no_error<mha_error<C, Prefix, X, X, X, M...>>
auto multi_head_attention(X x, M... masks) {
    return on_result(bind_unless_leaf<Prefix + fixed_string("input")>(std::move(x)), [&](auto input) {
        return multi_head_attention<C, Prefix>(input, input, input, std::move(masks)...);
    });
}

template <config C, fixed_string Prefix = "", operand Q, operand K, operand V, mask_descriptor... M,
          class Failure = mha_error<C, Prefix, Q, K, V, M...>>
    requires has_error<Failure>
Failure multi_head_attention_with_weights(Q, K, V, M...);

template <config C, fixed_string Prefix = "", operand Q, operand K, operand V, mask_descriptor... M>
    requires no_error<mha_error<C, Prefix, Q, K, V, M...>>
auto multi_head_attention_with_weights(Q q_in, K k_in, V v_in, M... masks) {
    return attention_block<C, Prefix>::template build<true>(std::move(q_in), std::move(k_in),
                                                            std::move(v_in), std::move(masks)...);
}

}  // namespace ctformer::nn
