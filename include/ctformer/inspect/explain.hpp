// explain(graph, program, extents, target): the tree as declared and after each fusion pass, by name
// (pass_trace), and the program that runs (plan/program.hpp) as a table (plan_text.hpp). A pass that
// found nothing to fuse says so.
#pragma once

#include <string>
#include <type_traits>

#include "../passes/pipeline.hpp"
#include "plan_text.hpp"
#include "print.hpp"

namespace ctformer {

namespace detail {
// The tree after each pass from Pass on, `before` being the tree Pass starts from: each pass run
// once, on the tree the one before it made.
template <std::size_t Pass, operand G>
void trace_passes(const G& before, std::string& text) {
    if constexpr (Pass < passes::pass_count) {
        using rule = std::tuple_element_t<Pass, passes::pipeline>;
        const auto after = passes::run_pass<rule>(before);
        text.append("== after ").append(rule::name);
        if constexpr (std::is_same_v<G, std::remove_const_t<decltype(after)>>) text.append(": nothing to fuse ==\n");
        else text.append(" ==\n").append(to_string(after));
        trace_passes<Pass + 1>(after, text);
    }
}
}  // namespace detail

// The tree as declared and after each pass. Printing a dozen trees costs a translation unit about
// what one target's kernels do (BERT-base: 4-5 s): a generated model compiles it once, not in each
// of its halves (generator/model_targets.cpp).
template <operand G>
std::string pass_trace(const G& g) {
    std::string text = "== declared ==\n" + to_string(g);
    detail::trace_passes<0>(g, text);
    return text;
}

// The tree before and after each pass, then the plan of `target`'s program.
template <operand G>
std::string explain(const G& g, const plan::program& p, const plan::extent_values& at, std::string_view target) {
    return pass_trace(g) + plan_text(p, at, target);
}

}  // namespace ctformer
