// Running one fusion rule over a graph. A rule is a struct with a name and overloads of
// `static fuse(e)`, each constrained to the pattern it rewrites; fuse returns the fused expression,
// or a graph when the rewrite binds a new intermediate (fuse_qkv). The rewriter is a YAP transform
// that goes bottom-up: it rebuilds a node from its rewritten children, then offers it to the rule once.
#pragma once

#include <tuple>

#include "../dsl/repeat.hpp"
#include "match.hpp"

namespace ctformer::passes {

template <class Rule, class E>
auto apply_rule(E e) {
    if constexpr (requires { Rule::fuse(e); }) return Rule::fuse(std::move(e));
    else return e;
}

template <class Rule>
struct rewriter {
    using terminal_tag = yap::expr_tag<yap::expr_kind::terminal>;
    using call_tag = yap::expr_tag<yap::expr_kind::call>;

    template <class Leaf>
    auto operator()(terminal_tag, const Leaf& leaf) const {
        return make_leaf(leaf);
    }

    template <class Op, class Shape, class... Children>
    auto operator()(call_tag, const node<Op, Shape>& head, const Children&... children) const {
        auto rebuild = [&](auto... c) { return make_node<Shape>(head.op, std::move(c)...); };
        auto rebuilt = combine(rebuild, rewrite(children)...);
        return on_result(std::move(rebuilt), [](auto e) { return apply_rule<Rule>(std::move(e)); });
    }

    // YAP hands terminal children over as their leaves, other children as expressions.
    template <class Child>
    auto rewrite(const Child& c) const {
        if constexpr (expression<Child>) return yap::transform(c, *this);
        else return (*this)(terminal_tag{}, c);
    }
};

template <class Rule, expression E>
auto rewrite(const E& e) {
    return yap::transform(e, rewriter<Rule>{});
}

template <class Rule, operand G>
auto run_pass(const G& g);

// The bindings a rewrite adds, then the binding itself with its rewritten definition; a repeat's
// body is rewritten as a graph of its own (nothing fuses across the repeat's edge).
template <class Rule, class Binding>
auto rewrite_binding(const Binding& b) {
    if constexpr (repeated<Binding>) {
        auto body = run_pass<Rule>(b.body);
        using rewritten = repeat_binding<Binding::name, Binding::count, Binding::prefix, decltype(b.argument),
                                         decltype(body)>;
        return std::tuple{rewritten{b.argument, std::move(body)}};
    } else {
        auto rewritten = rewrite<Rule>(b.definition);
        auto definition = result_of(rewritten);
        return std::tuple_cat(bindings_of(std::move(rewritten)),
                              std::tuple{binding<Binding::name, decltype(definition)>{std::move(definition)}});
    }
}

// The rule applied to every binding in order, then to the result.
template <class Rule, operand G>
auto run_pass(const G& g) {
    if constexpr (expression<G>) {
        return rewrite<Rule>(g);
    } else {
        auto bindings = std::apply([](const auto&... b) { return std::tuple_cat(rewrite_binding<Rule>(b)...); },
                                   g.bindings);
        auto result = rewrite<Rule>(g.result);
        auto all = std::tuple_cat(std::move(bindings), bindings_of(result));
        return ctformer::detail::make_graph(std::move(all), result_of(std::move(result)));
    }
}

}  // namespace ctformer::passes
