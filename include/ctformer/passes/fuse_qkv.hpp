// fuse_qkv:  fused_attention(heads(gemm(x, Wq, bq)), heads(gemm(x, Wk, bk)), heads(gemm(x, Wv, bv)))
//            → let qkv = gemm(x, concat(Wq, Wk, Wv), concat(bq, bk, bv))
//              in fused_attention(heads(columns(qkv)), ...)
// The three projections of one input become one GEMM against [Wq|Wk|Wv], packed at bind time; the
// attention reads its heads out of the wide result by index arithmetic (heads: split_heads, and
// expand_heads for GQA/MQA), so nothing is copied. fuse_kv (fuse_kv.hpp) does the same for K and V.
// The projections have biases all or none; rotary positions (fuse_rotary), of one spec, on a first
// few of them (q and k), stay on those columns of the joined GEMM.
#pragma once

#include <algorithm>
#include <array>
#include <numeric>

#include "../dsl/ops/heads.hpp"
#include "match.hpp"

namespace ctformer::passes {

namespace detail {
// split_heads(gemm(x, W [, b] [, angles])), possibly under expand_heads: a projection into heads.
template <class E>
struct projection {
    static constexpr bool fits = false;
};
template <class E>
    requires is_op<E, split_heads_op> && projection_gemm<child_t<E, 0>>
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

template <class E>
using projection_epilogue = epilogue_of<typename projection<E>::gemm>;

// Rotary positions, if any, of one spec, and on a first few of the projections only.
template <class... E>
constexpr bool rotated_first() {
    const std::array<rotary_columns, sizeof...(E)> turns{projection_epilogue<E>::rotary...};
    bool plain_seen = false;
    for (const rotary_columns& t : turns) {
        if (t.columns == 0) plain_seen = true;
        else if (plain_seen || !(t.spec == turns[0].spec)) return false;
    }
    return true;
}

// gemm<Joined>(x, weights [, biases] [, the first projection's angles]) of `first`'s input.
template <class Joined, class Wide, class G, class W, class... Biases>
auto joined_gemm(const G& first, W weights, Biases... biases) {
    if constexpr (Joined::rotated)
        return make_node<Wide>(gemm_op<Joined>{}, child<0>(first), std::move(weights), std::move(biases)...,
                               operand_of<operand_role::angles>(first));
    else
        return make_node<Wide>(gemm_op<Joined>{}, child<0>(first), std::move(weights), std::move(biases)...);
}

// The projection e with its gemm replaced by `columns`.
template <class E, class Columns>
auto reproject(const E& e, Columns columns) {
    if constexpr (is_op<E, expand_heads_op>)
        return make_node<shape_of_t<E>>(expand_heads_op{}, reproject(child<0>(e), std::move(columns)));
    else
        return make_node<shape_of_t<E>>(split_heads_op{}, std::move(columns));
}

// The projections at children Fused... of the attention e, all of one input, as one gemm against
// their weights stacked (packed at bind time), bound as Label(first weight's name); the attention
// then reads each projection's heads from its columns of the wide result.
template <fixed_string Label, std::size_t... Fused, class E>
auto fuse_projections(const E& e) {
    static constexpr std::array<std::size_t, sizeof...(Fused)> fused{Fused...};
    static constexpr std::array<int, sizeof...(Fused)> widths{last(extents_of<typename projection<child_t<E, Fused>>::gemm>)...};
    constexpr int width = std::accumulate(widths.begin(), widths.end(), 0);
    using first = typename projection<child_t<E, fused[0]>>::gemm;
    const auto& first_gemm = projection<child_t<E, fused[0]>>::of(child<fused[0]>(e));
    const auto gemm_of = [&]<std::size_t I>(std::integral_constant<std::size_t, I>) -> const auto& {
        return projection<child_t<E, I>>::of(child<I>(e));
    };
    auto weights = make_node<shape<width, last(extents_of<child_t<first, 0>>)>>(
        concat_op{}, child<1>(gemm_of(std::integral_constant<std::size_t, Fused>{}))...);
    // The rotated projections come first (rotated_first): their columns, one after another.
    static constexpr std::array<rotary_columns, sizeof...(Fused)> turns{projection_epilogue<child_t<E, Fused>>::rotary...};
    constexpr int rotated = [&] {
        int columns = 0;
        for (std::size_t i = 0; i < turns.size(); ++i) columns += turns[i].columns ? widths[i] : 0;
        return columns;
    }();
    using joined = epilogue<epilogue_of<first>::bias, activation::none, false, false, rotary_columns{turns[0].spec, rotated}>;
    using wide = shape_from_t<concat(drop_last<1>(extents_of<first>), std::array{width})>;
    auto projections = [&] {
        if constexpr (joined::bias)
            return joined_gemm<joined, wide>(first_gemm, weights, make_node<shape<width>>(
                concat_op{}, child<2>(gemm_of(std::integral_constant<std::size_t, Fused>{}))...));
        else
            return joined_gemm<joined, wide>(first_gemm, weights);
    }();
    constexpr auto name = Label + fixed_string("(") + head_t<child_t<first, 1>>::name + fixed_string(")");
    return on_result(bind<name>(std::move(projections)), [&](auto all) {
        const auto operand = [&]<std::size_t I>(std::integral_constant<std::size_t, I>) {
            constexpr std::size_t at = std::find(fused.begin(), fused.end(), I) - fused.begin();
            if constexpr (at == fused.size()) {
                return child<I>(e);
            } else {
                constexpr int from = std::accumulate(widths.begin(), widths.begin() + at, 0);
                using part = shape_of_t<typename projection<child_t<E, I>>::gemm>;
                return reproject(child<I>(e), make_node<part>(columns_op<from, from + widths[at]>{}, all));
            }
        };
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return make_node<shape_of_t<E>>(op_of(e), operand(std::integral_constant<std::size_t, I>{})...);
        }(std::make_index_sequence<arity<E>>{});
    });
}

// Projections, all from one leaf (a concept, so the checks stop at the first that fails).
template <class First, class... Rest>
concept projected_from_one_input = projection<First>::fits && (projection<Rest>::fits && ...) &&
                                   is_leaf<projected_input<First>> &&
                                   (std::is_same_v<projected_input<First>, projected_input<Rest>> && ...) &&
                                   ((projection_epilogue<First>::bias == projection_epilogue<Rest>::bias) && ...) &&
                                   rotated_first<First, Rest...>();

}  // namespace detail

struct fuse_qkv {
    static constexpr const char* name = "fuse_qkv";

    template <class E>
        requires is_attention<E> && detail::projected_from_one_input<child_t<E, 0>, child_t<E, 1>, child_t<E, 2>>
    static auto fuse(const E& e) {
        return detail::fuse_projections<"qkv", 0, 1, 2>(e);
    }
};

}  // namespace ctformer::passes
