// to_dot(fused, batch): the fused graph for Graphviz (`dot -Tsvg`): one box per kernel step with its
// kernel, shape, what it writes and MFLOP at that batch; an ellipse per input; an arrow for each
// tensor a step reads (inputs, bound intermediates, and the temporaries inside one binding). Weights
// are packed into the GEMMs and not drawn.
#pragma once

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "../passes/match.hpp"
#include "../plan/plan.hpp"
#include "../plan/walk.hpp"

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

// The names of the inputs and bound intermediates e reads, in order of first use.
template <expression E>
std::vector<std::string> names_read(const E& e) {
    std::vector<std::string> names;
    plan::for_each_node(e, [&](const auto& node) {
        using N = std::decay_t<decltype(node)>;
        if constexpr (is_leaf<N> && !is_weight<N> && !is_constant<N>) {
            std::string name(head_t<N>::name.view());
            if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
        }
    });
    return names;
}

inline std::string step_label(const plan::step& s) {
    char flops[32];
    std::snprintf(flops, sizeof flops, "%.3f MFLOP", s.flops / 1e6);
    std::string label = s.kernel + "\n" + s.shape + "\n-> " + s.writes + "\n" + flops;
    if (!s.detail.empty()) label += "\n" + s.detail;
    return label;
}
}  // namespace detail

template <operand G>
std::string to_dot(const G& fused, std::size_t batch_size = 1) {
    const std::vector<std::vector<plan::step>> groups = plan::steps_by_binding(fused, batch_size);
    std::vector<std::vector<std::string>> reads;
    if constexpr (expression<G>) {
        reads.push_back(detail::names_read(fused));
    } else {
        std::apply([&](const auto&... b) { (reads.push_back(detail::names_read(b.definition)), ...); }, fused.bindings);
        reads.push_back(detail::names_read(fused.result));
    }
    std::string text = "digraph fused {\n  rankdir=TB;\n  node [fontname=\"monospace\", fontsize=10];\n";
    std::map<std::string, std::string> producer;  // tensor name -> the node that writes it
    for (std::size_t b = 0; b < groups.size(); ++b) {
        std::string previous;
        for (std::size_t i = 0; i < groups[b].size(); ++i) {
            const std::string id = "s" + std::to_string(b) + "_" + std::to_string(i);
            text += "  " + id + " [shape=box, label=" + detail::dot_quoted(detail::step_label(groups[b][i])) + "];\n";
            if (i == 0) {
                for (const std::string& name : reads[b]) {
                    if (!producer.contains(name)) {
                        producer[name] = "in_" + std::to_string(producer.size());
                        text += "  " + producer[name] + " [shape=ellipse, label=" + detail::dot_quoted(name) + "];\n";
                    }
                    text += "  " + producer[name] + " -> " + id + ";\n";
                }
            } else {
                text += "  " + previous + " -> " + id + ";\n";
            }
            previous = id;
        }
        if (!previous.empty() && !groups[b].empty()) producer[groups[b].back().writes] = previous;
    }
    return text + "}\n";
}

}  // namespace ctformer
