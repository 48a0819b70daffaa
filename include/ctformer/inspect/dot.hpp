// to_dot(program, extents): the program for Graphviz (`dot -Tsvg`): a box per step (kernel, shape,
// what it writes, MFLOP at that batch), an ellipse per input, and an arrow from the step that writes
// a slot to each step that reads it: the data flow, nothing else. A repeat's body is drawn once, in
// a frame with its label; its input comes from the argument and, dashed, from the body's own output
// (the next iteration). Weights and constant tables are bound, not computed: not drawn.
#pragma once

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "../plan/program.hpp"

namespace ctformer {

namespace detail {
inline std::string dot_quoted(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + '"';
}

inline std::string step_label(const plan::program& p, const plan::step& s, const plan::extent_values& at) {
    char flops[32];
    std::snprintf(flops, sizeof flops, "%.3f MFLOP", s.flops(at) / 1e6);
    std::string label = s.kernel + "\n" + p.slots[s.writes].shape_text() + "\n-> " + p.display_name(s.writes) + "\n" + flops;
    if (!s.detail.empty()) label += "\n" + s.detail;
    return label;
}
}  // namespace detail

// The (producer, consumer) pairs the picture draws, producer -1 - i for input slot i: what a test
// checks against the slots the steps read and write.
inline std::vector<std::pair<long, std::size_t>> data_flow(const plan::program& p) {
    std::map<plan::slot_id, long> writer;
    for (std::size_t k = 0; k < p.steps.size(); ++k) writer[p.steps[k].writes] = static_cast<long>(k);
    for (const plan::repeat_block& r : p.repeats) {  // the body's input: the argument, then its own output
        if (writer.contains(r.argument)) writer[r.input] = writer[r.argument];
        writer[r.value] = writer[r.output];
    }
    std::vector<std::pair<long, std::size_t>> edges;
    const auto add = [&](long from, std::size_t to) {
        if (std::find(edges.begin(), edges.end(), std::pair{from, to}) == edges.end()) edges.emplace_back(from, to);
    };
    for (std::size_t k = 0; k < p.steps.size(); ++k)
        for (const plan::operand_slot& o : p.steps[k].reads) {
            const plan::slot& read = p.slots[o.slot];
            if (read.kind == plan::slot_kind::input) add(-1 - static_cast<long>(o.slot), k);
            else if (writer.contains(o.slot)) add(writer[o.slot], k);
            else if (read.kind == plan::slot_kind::carried)  // the argument of iteration 0 is an input
                for (const plan::repeat_block& r : p.repeats)
                    if (r.input == o.slot) add(-1 - static_cast<long>(r.argument), k);
        }
    return edges;
}

inline std::string to_dot(const plan::program& p, const plan::extent_values& at = {}) {
    std::string text = "digraph program {\n  rankdir=TB;\n  node [fontname=\"monospace\", fontsize=10];\n";
    const auto id = [](long node) { return node < 0 ? "in" + std::to_string(-1 - node) : "s" + std::to_string(node); };
    for (plan::slot_id s = 0; s < p.slots.size(); ++s)
        if (p.slots[s].kind == plan::slot_kind::input)
            text += "  " + id(-1 - static_cast<long>(s)) + " [shape=ellipse, label=" + detail::dot_quoted(p.slots[s].name) + "];\n";
    for (std::size_t k = 0; k < p.steps.size(); ++k) {
        const plan::step& s = p.steps[k];
        if (s.repeat >= 0 && k == p.repeats[s.repeat].first)
            text += "  subgraph cluster_" + std::to_string(s.repeat) + " {\n  label=" +
                    detail::dot_quoted(p.repeats[s.repeat].label()) + ";\n  style=rounded;\n";
        text += "  " + id(static_cast<long>(k)) + " [shape=box, label=" + detail::dot_quoted(detail::step_label(p, s, at)) + "];\n";
        if (s.repeat >= 0 && k + 1 == p.repeats[s.repeat].end) text += "  }\n";
    }
    for (const auto& [from, to] : data_flow(p)) text += "  " + id(from) + " -> " + id(static_cast<long>(to)) + ";\n";
    for (const plan::repeat_block& r : p.repeats)  // the next iteration's input
        for (std::size_t k = r.first; k < r.end; ++k)
            for (const plan::operand_slot& o : p.steps[k].reads)
                if (o.slot == r.input && r.count > 1)
                    for (std::size_t w = r.first; w < r.end; ++w)
                        if (p.steps[w].writes == r.output)
                            text += "  " + id(static_cast<long>(w)) + " -> " + id(static_cast<long>(k)) +
                                    " [style=dashed, label=\"next\"];\n";
    return text + "}\n";
}

}  // namespace ctformer
