// repeat<N, Prefix>(x, body): body applied N times, each iteration's output the next one's input.
// Iteration i reads its weights under Prefix + i + "." (PyTorch's layers.{i}. names), so each layer
// has its own; inputs (masks) are the same for all.
//
//   auto y = ctf::repeat<12, "layers.">(x, [](auto h) { return ctf::nn::encoder_layer<cfg>(h); });
//
// The body is built once, on a placeholder leaf %input of x's shape: one body in the graph, in the
// plan and in the compiled code whatever N is, so depth costs no compile time (gemma.cpp's per-layer
// loop). nn::encoder<cfg, N> is such a repeat.
#pragma once

#include <string>
#include <string_view>
#include <tuple>

#include "bind.hpp"

namespace ctformer {

// The body's input inside a repeat: x for iteration 0, the previous iteration's output after.
inline constexpr fixed_string repeat_input_name = "input";

// "layers.3." for iteration 3 of a repeat with prefix "layers.".
inline std::string iteration_prefix(std::string_view prefix, int iteration) {
    return std::string(prefix) + std::to_string(iteration) + ".";
}

// "×6 (layers.0. … layers.5.)", as printed trees and plans name a repeat.
inline std::string repeat_label(std::string_view prefix, int count) {
    return "×" + std::to_string(count) + " (" + iteration_prefix(prefix, 0) +
           (count > 1 ? " … " + iteration_prefix(prefix, count - 1) : "") + ")";
}

template <fixed_string Name, int Count, fixed_string Prefix, expression Argument, class Body>
struct repeat_binding {
    static constexpr auto name = Name;
    static constexpr int count = Count;
    static constexpr auto prefix = Prefix;
    using leaf = bound<Name, shape_of_t<Argument>, dtype::f32>;
    using input_leaf = bound<repeat_input_name, shape_of_t<Argument>, dtype::f32>;
    Argument argument;  // a leaf: an input, or a bound value
    Body body;          // a graph over input_leaf, whose result has the argument's shape

    static std::string prefix_of(int iteration) { return iteration_prefix(Prefix.view(), iteration); }
};

namespace detail {
template <class T>
struct is_repeat : std::false_type {};
template <fixed_string N, int C, fixed_string P, class A, class B>
struct is_repeat<repeat_binding<N, C, P, A, B>> : std::true_type {};

// Only the inputs among a leaf set: what a repeat's body shows to the graph around it (its weights
// are named per iteration, its bound values are its own).
template <class Set>
struct inputs_of;
template <class... Leaves>
struct inputs_of<leaf_set<Leaves...>> {
    using type = decltype((leaf_set<>{} + ... +
                           std::conditional_t<has_role<Leaves, role::input>, leaf_set<Leaves>, leaf_set<>>{}));
};

template <fixed_string N, int C, fixed_string P, class A, class B>
struct leaves_of<repeat_binding<N, C, P, A, B>> {
    using type = typename merge<typename leaves_of<A>::type, typename inputs_of<typename leaves_of<B>::type>::type>::set;
};

template <class G>
auto as_graph(G g) {
    if constexpr (graph_type<G>) return g;
    else return graph<G>{{}, std::move(g)};
}

template <class T>
inline constexpr bool holds_repeat = false;
template <class R, class... B>
inline constexpr bool holds_repeat<graph<R, B...>> = (is_repeat<B>::value || ...);
}  // namespace detail

template <class B>
concept repeated = detail::is_repeat<B>::value;

template <int Count, operand X, class Body>
using repeat_body_t = decltype(detail::as_graph(
    std::declval<Body>()(make_leaf(bound<repeat_input_name, shape_of_t<X>, dtype::f32>{}))));

template <int Count, operand X, class Body, class Result = repeat_body_t<Count, X, Body>>
using repeat_error = first_failure_t<
    check<(Count >= 1), CTF_REPEAT_NEEDS_ONE_ITERATION_OR_MORE<count_is<Count>>>,
    check<std::is_same_v<shape_of_t<Result>, shape_of_t<X>>,
          CTF_REPEATED_BLOCK_CHANGES_THE_SHAPE<input_is<shape_of_t<X>>, result_is<shape_of_t<Result>>>>,
    check<!detail::holds_repeat<Result>, CTF_REPEATS_DO_NOT_NEST<count_is<Count>>>>;

template <int Count, fixed_string Prefix, operand X, class Body, class Failure = repeat_error<Count, X, Body>>
    requires has_error<Failure>
Failure repeat(X, Body);

template <int Count, fixed_string Prefix, operand X, class Body>
    requires no_error<repeat_error<Count, X, Body>>
auto repeat(X x, Body body) {
    return on_result(bind_unless_leaf<Prefix + fixed_string("input")>(std::move(x)), [&](auto argument) {
        using input_leaf = bound<repeat_input_name, shape_of_t<X>, dtype::f32>;
        auto built = detail::as_graph(body(make_leaf(input_leaf{})));
        using this_repeat = repeat_binding<Prefix + fixed_string("output"), Count, Prefix, decltype(argument),
                                           decltype(built)>;
        return detail::make_graph(std::tuple{this_repeat{argument, std::move(built)}},
                                  make_leaf(typename this_repeat::leaf{}));
    });
}

// f.template operator()<Leaf>(name) for every tensor (input or weight) the graph reads, by the name
// it is given at run time: a repeat's weights once per iteration, as "layers.3.linear1.weight".
template <operand G, class F>
void for_each_tensor(const G& g, F&& f) {
    const auto each = [&]<class... Leaves>(leaf_set<Leaves...>, const std::string& prefix, bool weights_only) {
        const auto one = [&]<class Leaf>() {
            if constexpr (has_role<Leaf, role::weight>) f.template operator()<Leaf>(prefix + std::string(Leaf::name.view()));
            else if constexpr (has_role<Leaf, role::input>) if (!weights_only) f.template operator()<Leaf>(std::string(Leaf::name.view()));
        };
        (one.template operator()<Leaves>(), ...);
    };
    each(leaves_t<G>{}, "", false);
    if constexpr (graph_type<G>)
        std::apply([&](const auto&... b) {
            const auto body_weights = [&]<class B>(const B&) {
                if constexpr (repeated<B>)
                    for (int i = 0; i < B::count; ++i) each(leaves_t<decltype(B::body)>{}, B::prefix_of(i), true);
            };
            (body_weights(b), ...);
        }, g.bindings);
}

}  // namespace ctformer
