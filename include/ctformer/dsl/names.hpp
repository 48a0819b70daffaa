// One name, one tensor: every named leaf (input, weight, bound intermediate) reachable from an
// expression, through bound definitions too, forms a set; joining two sets in which one name
// stands for two different tensors is a compile error at the operation that joins them.
#pragma once

#include <tuple>
#include <type_traits>

#include "../shape/check.hpp"
#include "../shape/errors.hpp"
#include "expr.hpp"

namespace ctformer {

template <fixed_string Name, shape_type Shape, dtype Dtype>
struct bound;
template <fixed_string Name, expression Definition>
struct binding;
template <expression Result, class... Bindings>
struct graph;

template <class... Leaves>
struct leaf_set {};

// Whether a leaf is a tensor (not a bound intermediate) with role R.
template <class Leaf, role R>
inline constexpr bool has_role = [] {
    if constexpr (requires { Leaf::tensor_role; }) return Leaf::tensor_role == R;
    else return false;
}();

namespace detail {
template <class... A, class... B>
leaf_set<A..., B...> operator+(leaf_set<A...>, leaf_set<B...>);

template <fixed_string Name, class Leaf>
struct entry {};
template <class... Leaves>
struct name_index : entry<Leaves::name, Leaves>... {};

template <fixed_string Name, class Leaf>
Leaf lookup(const entry<Name, Leaf>*);
template <fixed_string Name>
void lookup(const void*);

// The leaf of `Set` named like Leaf, or void.
template <class Set, class Leaf>
struct same_name;
template <class... In, class Leaf>
struct same_name<leaf_set<In...>, Leaf> {
    using type = decltype(lookup<Leaf::name>(static_cast<const name_index<In...>*>(nullptr)));
};

template <class First, class Second>
using two_tensors_message = std::conditional_t<
    std::is_same_v<typename First::shape, typename Second::shape>,
    CTF_TENSOR_NAME_DECLARED_TWICE<name_is<First::name>, first_is<First>, second_is<Second>>,
    CTF_TENSOR_NAME_DECLARED_WITH_TWO_SHAPES<name_is<First::name>, first_is<typename First::shape>,
                                             second_is<typename Second::shape>>>;

template <class Found, class Leaf>
using agreement = check<std::is_void_v<Found> || std::is_same_v<Found, Leaf>,
                        two_tensors_message<std::conditional_t<std::is_void_v<Found>, Leaf, Found>, Leaf>>;

template <class A, class B>
struct merge;
template <class... A, class... B>
struct merge<leaf_set<A...>, leaf_set<B...>> {
    using set = decltype((leaf_set<A...>{} + ... +
                          std::conditional_t<std::is_void_v<typename same_name<leaf_set<A...>, B>::type>,
                                             leaf_set<B>, leaf_set<>>{}));
    using failure = first_failure_t<agreement<typename same_name<leaf_set<A...>, B>::type, B>...>;
};

template <class E>
struct leaves_of;

template <class... Children>
struct merge_all {
    using set = leaf_set<>;
    using failure = void;
};
template <class First, class... Rest>
struct merge_all<First, Rest...> {
    using rest = merge_all<Rest...>;
    using joined = merge<typename leaves_of<First>::type, typename rest::set>;
    using set = typename joined::set;
    using failure = first_failure_t<rest, joined>;
};

template <class Leaf>
struct leaves_of_leaf {
    using type = leaf_set<>;  // a constant or an operation head
};
template <fixed_string N, shape_type S, role R, dtype D>
struct leaves_of_leaf<tensor<N, S, R, D>> {
    using type = leaf_set<tensor<N, S, R, D>>;
};
template <fixed_string N, shape_type S, dtype D>
struct leaves_of_leaf<bound<N, S, D>> {
    using type = leaf_set<bound<N, S, D>>;
};

template <class Leaf>
struct leaves_of<expr<yap::expr_kind::terminal, hana::tuple<Leaf>>> : leaves_of_leaf<Leaf> {};
template <class Head, class... Children>
struct leaves_of<expr<yap::expr_kind::call, hana::tuple<Head, Children...>>> {
    using type = typename merge_all<Children...>::set;
};
template <fixed_string N, class Definition>
struct leaves_of<binding<N, Definition>> : leaves_of<Definition> {};
template <class Result, class... Bindings>
struct leaves_of<graph<Result, Bindings...>> {
    using type = typename merge_all<Result, Bindings...>::set;
};
}  // namespace detail

// The named leaves an expression or graph reads, bound intermediates included.
template <class E>
using leaves_t = typename detail::leaves_of<E>::type;

// void when no name stands for two different tensors across the given children, else the message.
template <class... Children>
using names_agree_t = typename detail::merge_all<Children...>::failure;

// The same check over lists of expressions (the operands of a mask, the weights of a block).
template <class... Exprs>
struct expr_list {};

template <class Tuple>
struct as_expr_list;
template <class... E>
struct as_expr_list<std::tuple<E...>> {
    using type = expr_list<E...>;
};

template <class... Lists>
struct names_agree_across;
template <class... E>
struct names_agree_across<expr_list<E...>> {
    using failure = names_agree_t<E...>;
};
template <class... A, class... B, class... Rest>
struct names_agree_across<expr_list<A...>, expr_list<B...>, Rest...>
    : names_agree_across<expr_list<A..., B...>, Rest...> {};

}  // namespace ctformer
