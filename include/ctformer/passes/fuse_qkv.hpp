// fuse_qkv:  fused_attention(heads(gemm(x, Wq, bq)), heads(gemm(x, Wk, bk)), heads(gemm(x, Wv, bv)))
//            → let qkv = gemm(x, concat(Wq, Wk, Wv), concat(bq, bk, bv))
//              in fused_attention(heads(columns(qkv)), ...)
// The three projections of one input become one GEMM against [Wq|Wk|Wv], packed at bind time; the
// attention reads its heads out of the wide result by index arithmetic (heads: split_heads, and
// expand_heads for GQA/MQA), so nothing is copied.
#pragma once

#include "../dsl/ops/heads.hpp"
#include "match.hpp"

namespace ctformer::passes {

namespace detail {
using biased = epilogue<true, activation::none, false>;

// split_heads(gemm<+bias>(x, W, b)), possibly under expand_heads: a projection into heads.
template <class E>
struct projection {
    static constexpr bool fits = false;
};
template <class E>
    requires is_op<E, split_heads_op> && is_gemm_with<child_t<E, 0>, biased>
struct projection<E> {
    static constexpr bool fits = true;
    using gemm = child_t<E, 0>;
    static const gemm& of(const E& e) { return child<0>(e); }
};
template <class E>
    requires is_op<E, expand_heads_op> && projection<child_t<E, 0>>::fits
struct projection<E> : projection<child_t<E, 0>> {
    static const auto& of(const E& e) { return projection<child_t<E, 0>>::of(child<0>(e)); }
};

template <class E>
using projected_input = child_t<typename projection<E>::gemm, 0>;

// The projection e with its gemm replaced by `columns`.
template <class E, class Columns>
auto reproject(const E& e, Columns columns) {
    if constexpr (is_op<E, expand_heads_op>)
        return make_node<shape_of_t<E>>(expand_heads_op{}, reproject(child<0>(e), std::move(columns)));
    else
        return make_node<shape_of_t<E>>(split_heads_op{}, std::move(columns));
}

// Q, K and V projected from one input (a concept, so the checks stop at the first that fails).
template <class Q, class K, class V>
concept projected_from_one_input =
    projection<Q>::fits && projection<K>::fits && projection<V>::fits && is_leaf<projected_input<Q>> &&
    std::is_same_v<projected_input<Q>, projected_input<K>> && std::is_same_v<projected_input<Q>, projected_input<V>>;

}  // namespace detail

struct fuse_qkv {
    static constexpr const char* name = "fuse_qkv";

    template <class E>
        requires is_attention<E> && detail::projected_from_one_input<child_t<E, 0>, child_t<E, 1>, child_t<E, 2>>
    static auto fuse(const E& e) {
        const auto& q = detail::projection<child_t<E, 0>>::of(child<0>(e));
        const auto& k = detail::projection<child_t<E, 1>>::of(child<1>(e));
        const auto& v = detail::projection<child_t<E, 2>>::of(child<2>(e));
        using Q = std::decay_t<decltype(q)>;
        using K = std::decay_t<decltype(k)>;
        using V = std::decay_t<decltype(v)>;
        constexpr int nq = last(extents_of<Q>), nk = last(extents_of<K>), nv = last(extents_of<V>);
        constexpr int width = nq + nk + nv;
        auto weights = make_node<shape<width, last(extents_of<child_t<Q, 0>>)>>(concat_op{}, child<1>(q),
                                                                               child<1>(k), child<1>(v));
        auto biases = make_node<shape<width>>(concat_op{}, child<2>(q), child<2>(k), child<2>(v));
        using wide = shape_from_t<concat(drop_last<1>(extents_of<Q>), std::array{width})>;
        auto projections = make_node<wide>(gemm_op<detail::biased>{}, child<0>(q), weights, biases);
        constexpr auto name = fixed_string("qkv(") + head_t<child_t<Q, 1>>::name + fixed_string(")");
        return on_result(bind<name>(std::move(projections)), [&](auto all) {
            auto heads_q = detail::reproject(child<0>(e), make_node<shape_of_t<Q>>(columns_op<0, nq>{}, all));
            auto heads_k = detail::reproject(child<1>(e), make_node<shape_of_t<K>>(columns_op<nq, nq + nk>{}, all));
            auto heads_v = detail::reproject(child<2>(e), make_node<shape_of_t<V>>(columns_op<nq + nk, width>{}, all));
            return [&]<std::size_t... Mask>(std::index_sequence<Mask...>) {  // the masks after Q, K and V
                return make_node<shape_of_t<E>>(op_of(e), heads_q, heads_k, heads_v, child<3 + Mask>(e)...);
            }(std::make_index_sequence<arity<E> - 3>{});
        });
    }
};

}  // namespace ctformer::passes
