// One vector per sequence, pooled from its rows: x [B, L, D] → [B, D].
//   first_token(x)        x[:, 0]: the first ([CLS]) token, as BERT's pooler and CLS pooling read it
//   mean_pool(x)          the mean of the L rows
//   mean_pool(x, mask)    Σ mask·x / Σ mask over the rows, mask [B, L] (true: a real token), as
//                         sentence-transformers' mean pooling; a row of no real token gives zeros
// In a packed batch of mixed lengths (run_options::lengths) each sequence pools its own rows.
#pragma once

#include "../bind.hpp"

namespace ctformer {

enum class pooling { first, mean };

template <pooling Kind>
struct pool_op {
    static constexpr const char* name = Kind == pooling::first ? "first_token" : "mean_pool";
    static constexpr pooling kind = Kind;
};

// x is [B, L, D]: a run-time batch, a length, a width fixed at compile time.
template <operand X>
inline constexpr bool is_sequence_batch =
    rank_of<X> == 3 && extents_of<X>[0] == batch && is_length(extents_of<X>[1]) && extents_of<X>[2] > 0;

template <operand X, operand... Mask>
using pooling_error = first_failure_t<
    check<is_sequence_batch<X>, CTF_POOLING_NEEDS_BATCH_LENGTH_WIDTH<input_is<shape_of_t<X>>>>,
    check<((rank_of<Mask> == 2 && extents_of<Mask>[0] == batch && extents_of<Mask>[1] == extents_of<X>[1] &&
            dtype_of<Mask> == dtype::boolean) && ...),
          CTF_POOLING_MASK_DOES_NOT_FIT<input_is<shape_of_t<X>>, mask_is<shape_of_t<Mask>>...>>,
    outcome<no_ids_t<X>>, outcome<names_agree_t<X, Mask...>>>;

template <pooling Kind, operand X, operand... Mask>
auto pool(X x, Mask... mask) {
    using result = shape<batch, last(extents_of<X>)>;
    return combine([](auto... operands) { return make_node<result>(pool_op<Kind>{}, std::move(operands)...); },
                   std::move(x), std::move(mask)...);
}

template <operand X, class Failure = pooling_error<X>>
    requires has_error<Failure>
Failure first_token(X);

template <operand X>
    requires no_error<pooling_error<X>>
auto first_token(X x) {
    return pool<pooling::first>(std::move(x));
}

template <operand X, operand... Mask, class Failure = pooling_error<X, Mask...>>
    requires(sizeof...(Mask) <= 1 && has_error<Failure>)
Failure mean_pool(X, Mask...);

template <operand X, operand... Mask>
    requires(sizeof...(Mask) <= 1 && no_error<pooling_error<X, Mask...>>)
auto mean_pool(X x, Mask... mask) {
    return pool<pooling::mean>(std::move(x), std::move(mask)...);
}

}  // namespace ctformer
