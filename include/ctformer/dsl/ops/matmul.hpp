// matmul, transpose and linear (x·Wᵀ + b, PyTorch's weight layout).
//
// matmul follows numpy: [..., M, K] · [..., K, N] -> [..., M, N]; the leading (batch) extents of the
// operand with fewer of them must be the trailing batch extents of the other, which is broadcast.
#pragma once

#include "../bind.hpp"
#include "elementwise.hpp"

namespace ctformer {

struct matmul_op {
    static constexpr const char* name = "matmul";
};
struct transpose_op {  // swaps the last two axes
    static constexpr const char* name = "transpose";
};

template <operand A, operand B, bool = (rank_of<A> >= 2 && rank_of<B> >= 2)>
struct matmul_rule {
    using failure = CTF_MATMUL_NEEDS_RANK_2_OR_MORE<lhs_is<shape_of_t<A>>, rhs_is<shape_of_t<B>>>;
    using shape = void;
};

template <operand A, operand B>
struct matmul_rule<A, B, true> {
    static constexpr auto a = extents_of<A>;
    static constexpr auto b = extents_of<B>;
    static constexpr auto a_batch = drop_last<2>(a);
    static constexpr auto b_batch = drop_last<2>(b);
    using lhs = lhs_is<shape_of_t<A>>;
    using rhs = rhs_is<shape_of_t<B>>;

    using failure = first_failure_t<
        check<last(a) == last(b, 1), CTF_MATMUL_INNER_EXTENTS_DIFFER<lhs, rhs>>,
        check<broadcastable(a_batch, b_batch), CTF_MATMUL_BATCH_EXTENTS_DIFFER<lhs, rhs>>,
        outcome<no_ids_t<A, B>>, outcome<names_agree_t<A, B>>>;
    using shape = shape_from_t<concat(broadcast(a_batch, b_batch), std::array{last(a, 1), last(b)})>;
};

template <operand A, operand B, class Failure = typename matmul_rule<A, B>::failure>
    requires has_error<Failure>
Failure matmul(A, B);

template <operand A, operand B>
    requires no_error<typename matmul_rule<A, B>::failure>
auto matmul(A a, B b) {
    using result = typename matmul_rule<A, B>::shape;
    return combine([](auto x, auto y) { return make_node<result>(matmul_op{}, std::move(x), std::move(y)); },
                   std::move(a), std::move(b));
}

template <operand A>
using transpose_error =
    first_failure_t<check<(rank_of<A> >= 2), CTF_TRANSPOSE_NEEDS_RANK_2_OR_MORE<input_is<shape_of_t<A>>>>>;

template <operand A, class Failure = transpose_error<A>>
    requires has_error<Failure>
Failure transpose(A);

template <operand A>
    requires no_error<transpose_error<A>>
auto transpose(A a) {
    constexpr auto e = extents_of<A>;
    using result = shape_from_t<concat(drop_last<2>(e), std::array{last(e), last(e, 1)})>;
    return combine([](auto x) { return make_node<result>(transpose_op{}, std::move(x)); }, std::move(a));
}

// linear(x, W, b) = x·Wᵀ + b with W [out, in], b [out], x [..., in] -> [..., out].
template <operand X, operand W, operand... Bias>
struct linear_rule {
    static constexpr auto x = extents_of<X>;
    static constexpr auto w = extents_of<W>;
    static constexpr bool weight_fits = rank_of<X> >= 2 && rank_of<W> == 2 && last(w) == last(x);
    static constexpr bool bias_fits =
        ((rank_of<Bias> == 1 && last(extents_of<Bias>) == w[0]) && ...);

    using failure = first_failure_t<
        check<weight_fits,
              CTF_LINEAR_WEIGHT_DOES_NOT_FIT_INPUT<input_is<shape_of_t<X>>, weight_is<shape_of_t<W>>>>,
        check<bias_fits,
              CTF_LINEAR_BIAS_DOES_NOT_FIT_WEIGHT<weight_is<shape_of_t<W>>, bias_is<shape_of_t<Bias>>...>>,
        outcome<no_ids_t<X, W, Bias...>>, outcome<names_agree_t<X, W, Bias...>>>;
};

template <operand X, operand W, operand... Bias, class Failure = typename linear_rule<X, W, Bias...>::failure>
    requires(sizeof...(Bias) <= 1 && has_error<Failure>)
Failure linear(X, W, Bias...);

template <operand X, operand W, operand... Bias>
    requires(sizeof...(Bias) <= 1 && no_error<typename linear_rule<X, W, Bias...>::failure>)
auto linear(X x, W w, Bias... bias) {
    auto product = matmul(std::move(x), transpose(std::move(w)));
    if constexpr (sizeof...(Bias) == 0) return product;
    else return add(std::move(product), std::move(bias)...);
}

}  // namespace ctformer
