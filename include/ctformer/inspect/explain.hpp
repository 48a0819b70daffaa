// explain(graph, program, extents, target): the tree as declared and after each fusion pass, by name
// (pass_trace), and the program that runs (plan/program.hpp) as a table (plan_text): each step's
// kernel, shape, the slots it reads and writes, MFLOP and scratch, a repeat's body once under its
// label; then the total work and the peak activation memory of a run of that batch. A pass that
// found nothing to fuse says so.
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>
#include <type_traits>

#include "../passes/pipeline.hpp"
#include "../plan/allocation.hpp"
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

inline std::string format_row(const char* format, auto... values) {
    char line[512];
    std::snprintf(line, sizeof line, format, values...);
    return line;
}

inline std::string mebibytes(std::size_t bytes) { return format_row("%.2f MiB", bytes / 1048576.0); }

// A slot's name in the plan's table: a repeat body's as the body calls it, under the body's heading.
inline std::string table_name(const plan::program& p, plan::slot_id s) { return p.slots[s].name; }

// The slots a step reads, each once, weights left out (they are bound, not computed).
inline std::string reads_text(const plan::program& p, const plan::step& s,
                              std::string (*name)(const plan::program&, plan::slot_id) = table_name) {
    std::vector<plan::slot_id> seen;
    std::string text;
    for (const plan::operand_slot& o : s.reads) {
        if (p.slots[o.slot].kind == plan::slot_kind::weight || std::find(seen.begin(), seen.end(), o.slot) != seen.end())
            continue;
        seen.push_back(o.slot);
        if (!text.empty()) text += ' ';
        text += name(p, o.slot);
    }
    return text.empty() ? "-" : text;
}
}  // namespace detail

// What a run of that batch needs besides its inputs and weights (run_options' default chunking).
inline std::string memory_text(const plan::program& p, const plan::extent_values& at) {
    const plan::run_memory m = plan::memory_of_run(p, at, plan::default_max_activation_bytes);
    const std::string chunks = m.chunk < at.batch ? ", in chunks of " + std::to_string(m.chunk) + " sequences" : "";
    return detail::format_row("activations %s for %s (value slots reused once dead%s); scratch %zu KiB per thread; "
                              "output %s\n",
                              detail::mebibytes(m.activations).c_str(), p.extents_text(at).c_str(), chunks.c_str(),
                              (m.scratch_per_thread + 1023) / 1024, detail::mebibytes(m.output).c_str());
}

// The program's table for a run of extents `at`.
inline std::string plan_table(const plan::program& p, const plan::extent_values& at) {
    using detail::format_row;
    std::string text = format_row("%-3s %-32s %-16s %-42s %-28s %10s %11s  %s\n", "#", "kernel", "shape", "reads",
                                  "writes", "MFLOP", "scratch", "details");
    for (std::size_t k = 0; k < p.steps.size(); ++k) {
        const plan::step& s = p.steps[k];
        const bool body = s.repeat >= 0;
        if (body && k == p.repeats[s.repeat].first)
            text += "    " + p.repeats[s.repeat].label() + ", each reading " + p.repeats[s.repeat].prefix +
                    "{i}.* weights; input = " + p.display_name(p.repeats[s.repeat].argument) +
                    ", then the previous iteration's output:\n";
        const std::string scratch = s.scratch_bytes ? std::to_string((s.scratch_bytes + 1023) / 1024) + " KiB/thr" : "-";
        text += format_row("%-3zu %-32s %-16s %-42s %-28s %10.3f %11s  %s\n", k, ((body ? "  " : "") + s.kernel).c_str(),
                           p.slots[s.writes].shape_text().c_str(), detail::reads_text(p, s).c_str(),
                           detail::table_name(p, s.writes).c_str(), s.flops(at) / 1e6, scratch.c_str(), s.detail.c_str());
        if (body && k + 1 == p.repeats[s.repeat].end)
            text += "    (end of " + p.repeats[s.repeat].label() + "; the last iteration's output is " +
                    p.display_name(p.repeats[s.repeat].value) + ")\n";
    }
    return text + format_row("total %.3f MFLOP for %s\n", p.flops(at) / 1e6, p.extents_text(at).c_str()) + memory_text(p, at);
}


// The tree as declared and after each pass. Printing a dozen trees costs a translation unit about
// what one target's kernels do (BERT-base: 4-5 s): a generated model compiles it once, not in each
// of its halves (generator/model_targets.cpp).
template <operand G>
std::string pass_trace(const G& g) {
    std::string text = "== declared ==\n" + to_string(g);
    detail::trace_passes<0>(g, text);
    return text;
}

// The plan of `target`'s program under its heading.
inline std::string plan_text(const plan::program& p, const plan::extent_values& at, std::string_view target) {
    return "== plan (" + std::string(target) + ") ==\n" + plan_table(p, at);
}

// The tree before and after each pass, then the plan of `target`'s program.
template <operand G>
std::string explain(const G& g, const plan::program& p, const plan::extent_values& at, std::string_view target) {
    return pass_trace(g) + plan_text(p, at, target);
}

}  // namespace ctformer
