// The reference evaluator: a Boost.YAP transform that computes any expression in double precision,
// one operation at a time, with the formulas of ops.hpp. Inputs and weights come by name; the batch
// and the lengths are read from the inputs (and must agree among them); each bound intermediate is
// computed once. A repeat runs its body once per iteration, with that iteration's weights; the
// body's intermediates are kept under their full names ("layers.3.norm1").
//
//   ctf::tensor_map inputs{{"x", x}, {"W", w}};
//   ctf::host_tensor<double> y = ctf::reference::evaluate(expr, inputs);
//   y = ctf::reference::evaluate(expr, inputs, {{"input_ids", ids}});    // token ids (id_input) too
#pragma once

#include <optional>
#include <tuple>

#include "../dsl/repeat.hpp"
#include "../core/tensor_check.hpp"
#include "fused_ops.hpp"
#include "ops.hpp"

namespace ctformer::reference {

class evaluator {
public:
    explicit evaluator(const tensor_map& inputs, const id_map& ids = no_ids()) : inputs_(inputs), ids_(ids) {}
    explicit evaluator(tensor_map&&, const id_map& = no_ids()) = delete;  // the inputs must outlive the evaluator
    evaluator(const tensor_map&, id_map&&) = delete;

    template <expression E>
    value operator()(const E& e) {
        return yap::transform(e, transform{*this});
    }

    // Each binding once, in order, then the result.
    template <class Result, class... Bindings>
    value operator()(const graph<Result, Bindings...>& g) {
        std::apply([&](const auto&... b) { (compute(b), ...); }, g.bindings);
        return (*this)(g.result);
    }

    // A bound intermediate computed by an earlier call, e.g. "attn_weights".
    const value& intermediate(std::string_view name) const {
        const auto found = bound_.find(name);
        if (found == bound_.end()) throw missing_tensor(std::string(name), "(a bound intermediate)");
        return found->second;
    }

private:
    // A repeat's iteration: the same inputs, batch and lengths, weights under `weight_prefix`.
    evaluator(const evaluator& outer, std::string weight_prefix)
        : inputs_(outer.inputs_), ids_(outer.ids_), seen_(outer.seen_), weight_prefix_(std::move(weight_prefix)), outer_(&outer) {}

    // A bound value: of this scope, or of the graph around a repeat's body.
    const value& bound_value(std::string_view name) const {
        const auto found = bound_.find(name);
        if (found != bound_.end()) return found->second;
        if (outer_) return outer_->bound_value(name);
        throw error("ctformer: internal error, please report: " + std::string(name) + " read before it was computed");
    }

    template <class Binding>
    void compute(const Binding& b) {
        if constexpr (repeated<Binding>) {
            value carried = (*this)(b.argument);
            for (int i = 0; i < Binding::count; ++i) {
                evaluator iteration(*this, weight_prefix_ + Binding::prefix_of(i));
                iteration.bound_.emplace(std::string(repeat_input_name.view()), std::move(carried));
                carried = iteration(b.body);
                for (auto& [name, v] : iteration.bound_)
                    if (name != repeat_input_name.view()) bound_.insert_or_assign(Binding::prefix_of(i) + name, std::move(v));
            }
            bound_.insert_or_assign(std::string(b.name.view()), std::move(carried));
        } else {
            bound_.insert_or_assign(std::string(b.name.view()), (*this)(b.definition));
        }
    }

    using terminal_tag = yap::expr_tag<yap::expr_kind::terminal>;
    using call_tag = yap::expr_tag<yap::expr_kind::call>;

    struct transform {
        evaluator& self;

        template <fixed_string Name, class Shape, role Role, dtype Dtype>
        value operator()(terminal_tag, const tensor<Name, Shape, Role, Dtype>&) const {
            if constexpr (Role == role::weight) return self.read<Shape>(self.inputs_, self.weight_prefix_ + std::string(Name.view()));
            else if constexpr (Dtype == dtype::i32) return self.read<Shape>(self.ids_, Name.view());
            else return self.read<Shape>(self.inputs_, Name.view());
        }

        template <fixed_string Name, class Shape, dtype Dtype>
        value operator()(terminal_tag, const bound<Name, Shape, Dtype>&) const {
            return self.bound_value(Name.view());  // computed before: graphs are in order
        }

        template <class Table, int Rows, int Cols>
        value operator()(terminal_tag, const constant<Table, shape<Rows, Cols>>&) const {
            const std::size_t rows = self.seen_.values().of(Rows);  // a length's rows: this run's
            value table({rows, std::size_t(Cols)});
            for (std::size_t r = 0; r < rows; ++r)
                for (int c = 0; c < Cols; ++c) table[r * Cols + c] = Table::at(static_cast<int>(r), c, Cols);
            return table;
        }

        template <class Op, class Shape, class... Children>
        value operator()(call_tag, const node<Op, Shape>& n, const Children&... children) const {
            // Operands first, left to right: they set the run-time extents the result's dims need.
            std::tuple<decltype(operand(children))...> operands{operand(children)...};
            const auto apply_op = [&](const auto&... v) { return apply(n.op, self.dims<Shape>(), v...); };
            return std::apply(apply_op, operands);
        }

        // YAP hands terminal children over as their leaves, other children as expressions.
        template <class Child>
        value operand(const Child& child) const {
            if constexpr (expression<Child>) return self(child);
            else return (*this)(terminal_tag{}, child);
        }
    };

    template <class Shape>
    dims_t dims() const {
        return dims_of<Shape>(seen_.values());
    }

    template <class Shape, class T>
    value read(const std::map<std::string, host_tensor<T>, std::less<>>& tensors, std::string_view name) {
        const host_tensor<T>& given = checked_tensor<Shape>(tensors, name, seen_);
        return value(given.dims, {given.data.begin(), given.data.end()});
    }

    const tensor_map& inputs_;
    const id_map& ids_;
    extents_seen seen_;  // the batch and lengths, as the inputs read so far set them
    std::string weight_prefix_;  // "layers.3." inside iteration 3 of a repeat
    const evaluator* outer_ = nullptr;
    std::map<std::string, value, std::less<>> bound_;
};

template <operand E>
value evaluate(const E& e, const tensor_map& inputs, const id_map& ids = no_ids()) {
    return evaluator(inputs, ids)(e);
}

}  // namespace ctformer::reference
