// Printing an expression: one node a line, indented by depth, each with its static shape.
//
//   let attn_weights [B,_8,_10,_10] =
//     softmax [B,_8,_10,_10]
//       scale 0.125 [B,_8,_10,_10]
//         ...
//   result [B,_10,_512] =
//     add [B,_10,_512]
//       matmul [B,_10,_512]
//         merge_heads [B,_10,_512]
//           matmul [B,_8,_10,_64]
//             %attn_weights [B,_8,_10,_10]
//             ...
// A graph prints each binding as a `let`, in the order they are computed, then its result; a bound
// intermediate appears as %name where it is used. A repeat prints its body once, indented:
//
//   let layers.output [B,_10,_512] = repeat ×6 (layers.0. … layers.5.), %input = %layers.input [B,_10,_512]:
//     let norm1 [B,_10,_512] = ...
#pragma once

#include <ostream>
#include <string>
#include <tuple>

#include "../dsl/repeat.hpp"

namespace ctformer {

namespace detail {

// A YAP transform from a tree to its text, `depth` levels deep.
struct tree_printer {
    using terminal_tag = yap::expr_tag<yap::expr_kind::terminal>;
    using call_tag = yap::expr_tag<yap::expr_kind::call>;

    int depth;

    template <fixed_string Name, class Shape, role Role, dtype Dtype>
    std::string operator()(terminal_tag, const tensor<Name, Shape, Role, Dtype>&) const {
        const char* kind = Role == role::weight       ? "weight "
                           : Dtype == dtype::boolean ? "bool input "
                           : Dtype == dtype::i32     ? "id input "
                                                     : "input ";
        return line(std::string(kind).append(Name.view()), to_string<Shape>());
    }

    template <fixed_string Name, class Shape, dtype Dtype>
    std::string operator()(terminal_tag, const bound<Name, Shape, Dtype>&) const {
        return line(std::string("%").append(Name.view()), to_string<Shape>());
    }

    template <class Table, class Shape>
    std::string operator()(terminal_tag, const constant<Table, Shape>&) const {
        return line(std::string("constant ") + Table::name, to_string<Shape>());
    }

    template <class Op, class Shape, class... Children>
    std::string operator()(call_tag, const node<Op, Shape>& n, const Children&... children) const {
        std::string label = Op::name;
        if constexpr (has_detail<Op>) {
            const std::string detail = n.op.detail();
            if (!detail.empty()) label.append(" ").append(detail);
        }
        return (line(label, to_string<Shape>()) + ... + child(children));
    }

    // YAP hands terminal children over as their leaves, other children as expressions.
    template <class Child>
    std::string child(const Child& c) const {
        const tree_printer deeper{depth + 1};
        if constexpr (expression<Child>) return yap::transform(c, deeper);
        else return deeper(terminal_tag{}, c);
    }

    std::string line(const std::string& label, const std::string& shape) const {
        return std::string(2 * depth, ' ') + label + " " + shape + "\n";
    }
};

template <expression E>
std::string tree(const E& e, int depth) {
    return yap::transform(e, tree_printer{depth});
}

template <operand G>
std::string graph_text(const G& g, int depth);

template <class Binding>
std::string let(const Binding& b, int depth) {
    const std::string indent(2 * depth, ' ');
    std::string head = indent + "let " + std::string(b.name.view()) + " ";
    if constexpr (repeated<Binding>) {
        std::string argument = tree(b.argument, 0);
        argument.pop_back();  // its newline
        return head + to_string<shape_of_t<decltype(b.argument)>>() + " = repeat " +
               repeat_label(Binding::prefix.view(), Binding::count) + ", %" +
               std::string(repeat_input_name.view()) + " = " + argument + ":\n" + graph_text(b.body, depth + 1);
    } else {
        return head + to_string<shape_of_t<decltype(b.definition)>>() + " =\n" + tree(b.definition, depth + 1);
    }
}

template <operand G>
std::string graph_text(const G& g, int depth) {
    if constexpr (expression<G>) {
        return tree(g, depth);
    } else {
        std::string text;
        std::apply([&](const auto&... b) { ((text += let(b, depth)), ...); }, g.bindings);
        return text + std::string(2 * depth, ' ') + "result " + to_string<shape_of_t<G>>() + " =\n" +
               tree(g.result, depth + 1);
    }
}

}  // namespace detail

template <operand E>
std::string to_string(const E& e) {
    return detail::graph_text(e, 0);
}

template <operand E>
void print(std::ostream& out, const E& e) {
    out << to_string(e);
}

}  // namespace ctformer
