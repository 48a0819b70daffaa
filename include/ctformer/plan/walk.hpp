// Visiting every node of a tree or graph, children before parents, bindings in order.
#pragma once

#include <tuple>

#include <boost/hana/drop_front.hpp>
#include <boost/hana/for_each.hpp>

#include "../dsl/bind.hpp"

namespace ctformer::plan {

template <expression E, class F>
void for_each_node(const E& e, F&& f) {
    if constexpr (!is_leaf<E>)
        hana::for_each(hana::drop_front(e.elements), [&](const auto& c) { for_each_node(c, f); });
    f(e);
}

template <class Result, class... Bindings, class F>
void for_each_node(const graph<Result, Bindings...>& g, F&& f) {
    std::apply([&](const auto&... b) { (for_each_node(b.definition, f), ...); }, g.bindings);
    for_each_node(g.result, f);
}

}  // namespace ctformer::plan
