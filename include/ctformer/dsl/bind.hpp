// Bind, don't nest: a value used more than once becomes a named intermediate.
//
// bind<"h">(e) returns a graph: an ordered list of bindings (name = small expression) and a result
// expression. Where the value is used, a small leaf bound<"h", shape> stands for it. Operations on
// graphs combine their binding lists, so a model is one flat list of small trees: the types do not
// nest layer inside layer, and compile time and memory grow linearly with depth. (Holding each
// definition inside its leaf instead made g++ 12 exponential in depth: docs/performance.md.)
#pragma once

#include <tuple>
#include <type_traits>

#include "expr.hpp"
#include "names.hpp"

namespace ctformer {

// The leaf standing for a bound intermediate.
template <fixed_string Name, shape_type Shape, dtype Dtype>
struct bound {
    using shape = Shape;
    static constexpr auto name = Name;
    static constexpr dtype element = Dtype;
};

// name = definition, computed once.
template <fixed_string Name, expression Definition>
struct binding {
    static constexpr auto name = Name;
    using leaf = bound<Name, shape_of_t<Definition>, dtype_of<Definition>>;
    Definition definition;
};

template <expression Result, class... Bindings>
struct graph {
    using result_type = Result;
    std::tuple<Bindings...> bindings;  // in the order they are computed
    Result result;
};

namespace detail {
template <class T>
struct is_graph : std::false_type {};
template <class R, class... B>
struct is_graph<graph<R, B...>> : std::true_type {};

template <class... A, class B>
auto keep_new(B b) {
    if constexpr ((std::is_same_v<A, B> || ...)) return std::tuple<>{};
    else return std::tuple<B>{std::move(b)};
}

// a's bindings, then those of b that a does not have.
template <class... A, class... B>
auto merge_bindings(std::tuple<A...> a, [[maybe_unused]] std::tuple<B...> b) {
    return std::tuple_cat(std::move(a), keep_new<A...>(std::move(std::get<B>(b)))...);
}
template <class First>
auto merge_bindings(First first) {
    return first;
}
template <class First, class Second, class... Rest>
auto merge_bindings(First first, Second second, Rest... rest) {
    return merge_bindings(merge_bindings(std::move(first), std::move(second)), std::move(rest)...);
}

template <class R, class... B>
graph<R, B...> make_graph(std::tuple<B...> bindings, R result) {
    return {std::move(bindings), std::move(result)};
}
}  // namespace detail

template <class T>
concept graph_type = detail::is_graph<T>::value;

// What operations take: an expression, or a graph standing for its result.
template <class T>
concept operand = expression<T> || graph_type<T>;

template <operand T>
auto bindings_of(T t) {
    if constexpr (graph_type<T>) return std::move(t.bindings);
    else return std::tuple<>{};
}

template <operand T>
auto result_of(T t) {
    if constexpr (graph_type<T>) return std::move(t.result);
    else return t;
}

// f applied to the operands' results; the operands' bindings carried along.
template <class F, operand... Operands>
auto combine(F f, Operands... operands) {
    if constexpr ((expression<Operands> && ...)) {
        return f(std::move(operands)...);
    } else {
        auto bindings = detail::merge_bindings(bindings_of(operands)...);
        return detail::make_graph(std::move(bindings), f(result_of(std::move(operands))...));
    }
}

// build(x's result), with x's bindings kept in front. Blocks build on the result leaf, so the long
// binding list of everything before them is joined once, not carried through every operation.
template <operand X, class Build>
auto on_result(X x, Build build) {
    if constexpr (expression<X>) {
        return build(std::move(x));
    } else {
        auto built = build(x.result);
        return combine([](auto, auto b) { return b; }, std::move(x), std::move(built));
    }
}

// void when no operand is token ids (an id_input, which only an embedding reads), else the message.
template <class... Operands>
struct no_ids_rule {
    static constexpr bool ok = ((dtype_of<Operands> != dtype::i32) && ...);
    using failure = std::conditional_t<ok, void, CTF_TOKEN_IDS_ARE_READ_ONLY_BY_AN_EMBEDDING<shape_is<shape_of_t<Operands>>...>>;
};
template <class... Operands>
using no_ids_t = typename no_ids_rule<Operands...>::failure;

template <fixed_string Name, operand Definition>
using bind_error =
    names_agree_t<Definition, terminal_t<bound<Name, shape_of_t<Definition>, dtype_of<Definition>>>>;

template <fixed_string Name, operand Definition, class Failure = bind_error<Name, Definition>>
    requires has_error<Failure>
Failure bind(Definition);

template <fixed_string Name, operand Definition>
    requires no_error<bind_error<Name, Definition>>
auto bind(Definition definition) {
    auto earlier = bindings_of(definition);
    auto value = result_of(std::move(definition));
    using this_binding = binding<Name, decltype(value)>;
    auto leaf = make_leaf(typename this_binding::leaf{});
    return detail::make_graph(std::tuple_cat(std::move(earlier), std::tuple{this_binding{std::move(value)}}),
                              leaf);
}

// Leaves (and graphs whose result is a leaf) are cheap to use many times; others are bound first.
template <fixed_string Name, operand E>
auto bind_unless_leaf(E e) {
    if constexpr (is_leaf<E>) return e;
    else return bind<Name>(std::move(e));
}

}  // namespace ctformer
