// explain(graph): the tree as declared, after each fusion pass (by name), and the plan of kernel
// steps with shapes, GFLOP and scratch. A pass that found nothing to fuse says so.
#pragma once

#include <cstdio>
#include <string>
#include <type_traits>

#include "../passes/pipeline.hpp"
#include "../plan/plan.hpp"
#include "print.hpp"

namespace ctformer {

namespace detail {
template <std::size_t Pass, operand G>
void trace_passes(const G& g, std::string& text) {
    if constexpr (Pass < passes::pass_count) {
        using rule = std::tuple_element_t<Pass, passes::pipeline>;
        const auto before = passes::run_first<Pass>(g);
        const auto after = passes::run_pass<rule>(before);
        text.append("== after ").append(rule::name);
        if constexpr (std::is_same_v<decltype(before), decltype(after)>) text.append(": nothing to fuse ==\n");
        else text.append(" ==\n").append(to_string(after));
        trace_passes<Pass + 1>(g, text);
    }
}

inline std::string format_row(const char* format, auto... values) {
    char line[512];
    std::snprintf(line, sizeof line, format, values...);
    return line;
}
}  // namespace detail

// The plan table for a batch of `batch_size`.
template <operand G>
std::string plan_table(const G& fused, std::size_t batch_size) {
    std::string text = detail::format_row("%-3s %-30s %-18s %-30s %10s %12s  %s\n", "#", "kernel", "shape", "writes",
                                          "MFLOP", "scratch", "details");
    double total = 0;
    int index = 0;
    for (const plan::step& s : plan::steps(fused, batch_size)) {
        total += s.flops;
        const std::string scratch = s.scratch_bytes ? std::to_string(s.scratch_bytes / 1024) + " KiB/thr" : "-";
        text += detail::format_row("%-3d %-30s %-18s %-30s %10.3f %12s  %s\n", index++, s.kernel.c_str(),
                                   s.shape.c_str(), s.writes.c_str(), s.flops / 1e6, scratch.c_str(), s.detail.c_str());
    }
    return text + detail::format_row("total %.3f MFLOP for B=%zu\n", total / 1e6, batch_size);
}

template <operand G>
std::string explain(const G& g, std::size_t batch_size = 1) {
    std::string text = "== declared ==\n" + to_string(g);
    detail::trace_passes<0>(g, text);
    return text + "== plan ==\n" + plan_table(passes::fuse(g), batch_size);
}

}  // namespace ctformer
