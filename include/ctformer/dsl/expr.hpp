// The expression tree: Boost.YAP expressions whose every node carries its static shape.
//
//   leaf (a YAP terminal)        tensor<Name, Shape, Role, Dtype>  an input or a weight, by name
//                                bound<Name, Definition>           a named intermediate (bind.hpp)
//                                constant<Table, Shape>            a table known at compile time
//   operation (a YAP call node)  node<Op, Shape>(children...)      Op says what, Shape the result
//
// Nodes hold their children by value, so a tree never refers to a temporary.
#pragma once

#include <boost/hana/tuple.hpp>
#include <boost/yap/algorithm.hpp>

#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>

#include "../core/text.hpp"
#include "../shape/fixed_string.hpp"
#include "../shape/shape.hpp"

namespace ctformer {

namespace yap = boost::yap;
namespace hana = boost::hana;

template <yap::expr_kind Kind, class Tuple>
struct expr {
    static const yap::expr_kind kind = Kind;
    Tuple elements;
};

enum class role { input, weight };
enum class dtype { f32, boolean, i32 };  // i32: token ids, read only by an embedding

template <fixed_string Name, shape_type Shape, role Role, dtype Dtype = dtype::f32>
struct tensor {
    using shape = Shape;
    static constexpr auto name = Name;
    static constexpr role tensor_role = Role;
    static constexpr dtype element = Dtype;
};

// A table whose values a function of the index gives (e.g. the sinusoidal positional encoding).
template <class Table, shape_type Shape>
struct constant {
    using shape = Shape;
    using table = Table;
    static constexpr dtype element = dtype::f32;
};

// An operation Op whose result has shape Shape; the children follow it in the YAP call node.
template <class Op, shape_type Shape>
struct node {
    using shape = Shape;
    static constexpr dtype element = dtype::f32;
    Op op;
};

// An operation with parameters (a scale factor, an eps) says them in detail(), for printing.
template <class Op>
concept has_detail = requires(const Op& op) { op.detail(); };

template <class T>
using terminal_t = expr<yap::expr_kind::terminal, hana::tuple<T>>;

template <class Leaf>
constexpr terminal_t<Leaf> make_leaf(Leaf leaf) {
    return {hana::tuple<Leaf>{std::move(leaf)}};
}

template <class Shape, class Op, class... Children>
constexpr auto make_node(Op op, Children... children) {
    using head = terminal_t<node<Op, Shape>>;
    using elements = hana::tuple<head, Children...>;
    return expr<yap::expr_kind::call, elements>{
        elements{make_leaf(node<Op, Shape>{std::move(op)}), std::move(children)...}};
}

namespace detail {
template <class T>
struct is_ctf_expr : std::false_type {};
template <yap::expr_kind K, class Tuple>
struct is_ctf_expr<expr<K, Tuple>> : std::true_type {};

template <class E>
struct head_of;  // the leaf of a terminal, or the node<Op, Shape> of an operation
template <class Leaf>
struct head_of<expr<yap::expr_kind::terminal, hana::tuple<Leaf>>> {
    using type = Leaf;
};
template <class Head, class... Children>
struct head_of<expr<yap::expr_kind::call, hana::tuple<terminal_t<Head>, Children...>>> {
    using type = Head;
};

// A graph (bind.hpp) stands for its result expression.
template <class T>
struct result_expr {
    using type = T;
};
template <class T>
    requires requires { typename T::result_type; }
struct result_expr<T> {
    using type = typename T::result_type;
};
}  // namespace detail

template <class E>
concept expression = detail::is_ctf_expr<E>::value;

// Of an expression, or of a graph's result:
template <class E>
using head_t = typename detail::head_of<typename detail::result_expr<E>::type>::type;

template <class E>
using shape_of_t = typename head_t<E>::shape;

template <class E>
inline constexpr auto extents_of = shape_of_t<E>::extents;

template <class E>
inline constexpr std::size_t rank_of = shape_of_t<E>::rank;

template <class E>
inline constexpr dtype dtype_of = head_t<E>::element;

template <class E>
inline constexpr bool is_leaf = detail::result_expr<E>::type::kind == yap::expr_kind::terminal;

}  // namespace ctformer
