// Moving between one wide projection and per-head slices:
//   split_heads<H>(x)   [..., L, H·D] -> [..., H, L, D]   (view(B, L, H, D).transpose(1, 2))
//   merge_heads(x)      [..., H, L, D] -> [..., L, H·D]   (the inverse: concatenating the heads)
//   expand_heads<H>(x)  [..., G, L, D] -> [..., H, L, D]  head h reads group h / (H / G), as
//                                                        repeat_interleave does for GQA and MQA
//   columns<B, E>(x)    [..., W] -> [..., E - B]         x[..., B:E], a slice of one wide projection
//                                                        (GPT-2's q, k, v of c_attn: torch's split)
#pragma once

#include "../bind.hpp"
#include "fused.hpp"

namespace ctformer {

struct split_heads_op {
    static constexpr const char* name = "split_heads";
};
struct merge_heads_op {
    static constexpr const char* name = "merge_heads";
};
struct expand_heads_op {
    static constexpr const char* name = "expand_heads";
};

template <int Begin, int End, operand X>
using columns_error = first_failure_t<check<(0 <= Begin && Begin < End && End <= last(extents_of<X>)),
                                            CTF_COLUMNS_OUTSIDE_THE_WIDTH<input_is<shape_of_t<X>>, columns_is<Begin, End>>>>;

template <int Begin, int End, operand X, class Failure = columns_error<Begin, End, X>>
    requires has_error<Failure>
Failure columns(X);

template <int Begin, int End, operand X>
    requires no_error<columns_error<Begin, End, X>>
auto columns(X x) {
    using result = shape_from_t<concat(drop_last<1>(extents_of<X>), std::array{End - Begin})>;
    return combine([](auto v) { return make_node<result>(columns_op<Begin, End>{}, std::move(v)); }, std::move(x));
}

template <int Heads, operand X>
using split_heads_error = first_failure_t<
    check<(rank_of<X> >= 2 && Heads > 0 && last(extents_of<X>) % (Heads > 0 ? Heads : 1) == 0),
          CTF_HEADS_DO_NOT_DIVIDE_WIDTH<input_is<shape_of_t<X>>, heads_is<Heads>>>>;

template <int Heads, operand X, class Failure = split_heads_error<Heads, X>>
    requires has_error<Failure>
Failure split_heads(X);

template <int Heads, operand X>
    requires no_error<split_heads_error<Heads, X>>
auto split_heads(X x) {
    constexpr auto e = extents_of<X>;
    using result = shape_from_t<concat(drop_last<2>(e), std::array{Heads, last(e, 1), last(e) / Heads})>;
    return combine([](auto v) { return make_node<result>(split_heads_op{}, std::move(v)); }, std::move(x));
}

template <operand X>
using merge_heads_error =
    first_failure_t<check<(rank_of<X> >= 3), CTF_MERGE_HEADS_NEEDS_RANK_3_OR_MORE<input_is<shape_of_t<X>>>>>;

template <operand X, class Failure = merge_heads_error<X>>
    requires has_error<Failure>
Failure merge_heads(X);

template <operand X>
    requires no_error<merge_heads_error<X>>
auto merge_heads(X x) {
    constexpr auto e = extents_of<X>;
    using result = shape_from_t<concat(drop_last<3>(e), std::array{last(e, 1), last(e, 2) * last(e)})>;
    return combine([](auto v) { return make_node<result>(merge_heads_op{}, std::move(v)); }, std::move(x));
}

template <int Heads, operand X>
using expand_heads_error = first_failure_t<check<
    (rank_of<X> >= 3 && last(extents_of<X>, 2) > 0 && Heads % last(extents_of<X>, 2) == 0 && Heads > 0),
    CTF_EXPANDED_HEADS_NOT_A_MULTIPLE<input_is<shape_of_t<X>>, heads_is<Heads>>>>;

template <int Heads, operand X, class Failure = expand_heads_error<Heads, X>>
    requires has_error<Failure>
Failure expand_heads(X);

template <int Heads, operand X>
    requires no_error<expand_heads_error<Heads, X>>
auto expand_heads(X x) {
    constexpr auto e = extents_of<X>;
    using result = shape_from_t<concat(drop_last<3>(e), std::array{Heads, last(e, 1), last(e)})>;
    return combine([](auto v) { return make_node<result>(expand_heads_op{}, std::move(v)); }, std::move(x));
}

}  // namespace ctformer
