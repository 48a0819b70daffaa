// Lowering: a fused graph becomes its program (program.hpp), the one list of steps that runs.
//
// Every call node is one step that writes its value to a slot, except views, which a step reads
// through (split_heads / expand_heads / columns under the steps that read heads, merge_heads over one
// that writes them). Leaves are slots already: inputs, weights, constants, bound values. Which step a
// node becomes is decided once, by the one step of kernel_steps below that takes it; what the step
// is (the nodes it takes, operands, name, FLOPs, scratch, launch) is written beside its kernel, in
// steps/. A repeat's body is lowered once, its steps marked with the repeat they run in.
// Per-target code (the steps' launch functions are this target's): include once per target.
// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_PLAN_LOWERING_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_PLAN_LOWERING_INL_H_
#undef CTFORMER_PLAN_LOWERING_INL_H_
#else
#define CTFORMER_PLAN_LOWERING_INL_H_
#endif

#include <map>
#include <string>
#include <vector>

#include <hwy/highway.h>

#include "../dsl/repeat.hpp"
#include "steps/attention-inl.h"
#include "steps/elementwise-inl.h"
#include "steps/embedding-inl.h"
#include "steps/gemm-inl.h"
#include "steps/matmul-inl.h"
#include "steps/rows-inl.h"
#include "steps/views-inl.h"

HWY_BEFORE_NAMESPACE();
namespace ctformer::plan::HWY_NAMESPACE {

// Every kernel's step, each taking the fused nodes its requires-clause names (steps/): a new kernel
// is a new entry here. Exactly one step takes each node.
template <template <class> class... Steps>
struct step_list;
using kernel_steps = step_list<copy_step, gemm_step, attention_step, probabilities_step, batched_matmul_step,
                               norm_step, l2_normalize_step, rotary_step, pool_step, softmax_step, binary_step, scale_step,
                               activation_step, mask_step, embedding_step, embedding_layer_norm_step, table_rows_step,
                               transpose_step, columns_step, heads_step, merge_step>;

template <template <class> class Step, class E>
concept takes = requires { typename Step<E>; };

template <class E>
inline constexpr bool no_kernel = false;

// The step of E among Steps: an operation without one is a compile error, never a slow path
// (every operation of the DSL has one; only a fused op misplaced by a pass could lack it).
template <class E, template <class> class... Steps>
struct step_among {
    static_assert(no_kernel<E>, "CTF_OPERATION_HAS_NO_KERNEL: no step computes this operation (op_t<E>)");
};
template <class E, template <class> class Step, template <class> class... Rest>
struct step_among<E, Step, Rest...> : step_among<E, Rest...> {};
template <class E, template <class> class Step, template <class> class... Rest>
    requires takes<Step, E>
struct step_among<E, Step, Rest...> : Step<E> {
    static_assert(!(takes<Rest, E> || ...), "ctformer: internal error, please report: two steps take one node");
};

template <class E, class List>
struct step_in;
template <class E, template <class> class... Steps>
struct step_in<E, step_list<Steps...>> : step_among<E, Steps...> {};

// The step a node becomes.
template <class E>
using step_of = step_in<E, kernel_steps>;

template <class E>
concept is_bound_leaf = is_leaf<E> && requires { head_t<E>::name; } && !requires { head_t<E>::tensor_role; };

template <class Shape>
std::vector<int> extents_vector() {
    return {Shape::extents.begin(), Shape::extents.end()};
}

class lowering {
public:
    explicit lowering(program& p) : p_(p) {}

    // The graph's bindings, in order, then its result into the result slot.
    template <operand G>
    void graph(const G& g) {
        if constexpr (graph_type<G>) {
            std::apply([&](const auto&... b) { (binding(b), ...); }, g.bindings);
            result(g.result);
        } else {
            result(g);
        }
    }

    // The slot holding e's value: a leaf's own, or a new one that the steps computing e write.
    template <expression E>
    slot_id value(const E& e) {
        if constexpr (is_leaf<E>) {
            return leaf(e.elements[hana::size_c<0>]);
        } else {
            const slot_id out = add_slot("", slot_kind::value, extents_vector<shape_of_t<E>>(), repeat_);
            emit(e, out);
            return out;
        }
    }

    // A weight a step packs: one weight leaf or the transpose of one, or a concat of them.
    template <expression W>
    packed_use packed(const W& w) {
        packed_use use;
        const auto add = [&]<class Part>(const Part& part) {
            const auto add_leaf = [&]<class Leaf>(const Leaf&, bool transposed) {
                use.parts.emplace_back(Leaf::name.view());
                use.part_extents.push_back(extents_vector<typename Leaf::shape>());
                use.part_transposed.push_back(transposed);
            };
            if constexpr (is_op<Part, transpose_op>) add_leaf(child<0>(part).elements[hana::size_c<0>], true);
            else add_leaf(part.elements[hana::size_c<0>], false);
        };
        if constexpr (is_leaf<W> || is_op<W, transpose_op>) add(w);
        else [&]<std::size_t... I>(std::index_sequence<I...>) {
            (add(child<I>(w)), ...);
        }(std::make_index_sequence<arity<W>>{});
        return use;
    }

private:
    slot_id add_slot(std::string name, slot_kind kind, std::vector<int> extents, int repeat) {
        p_.slots.push_back({std::move(name), kind, std::move(extents), repeat, nullptr});
        return p_.slots.size() - 1;
    }

    // Names in scope: the repeat body's own, then the graph's.
    slot_id* find(const std::string& name) {
        for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope)
            if (const auto found = scope->find(name); found != scope->end()) return &found->second;
        return nullptr;
    }

    // Inputs are the run's, the same for every repeat; a weight is its repeat's, named per iteration.
    template <fixed_string Name, class Shape, role Role, dtype Dtype>
    slot_id leaf(const tensor<Name, Shape, Role, Dtype>&) {
        constexpr bool input = Role == role::input;
        std::map<std::string, slot_id>& names = input ? scopes_.front() : scopes_.back();
        const std::string key = (input ? "input:" : "weight:") + std::string(Name.view());
        if (const auto found = names.find(key); found != names.end()) return found->second;
        const slot_id s = add_slot(std::string(Name.view()), input ? slot_kind::input : slot_kind::weight,
                                   extents_vector<Shape>(), input ? -1 : repeat_);
        p_.slots[s].element = Dtype;
        return names[key] = s;
    }

    template <fixed_string Name, class Shape, dtype Dtype>
    slot_id leaf(const bound<Name, Shape, Dtype>&) {
        if (const slot_id* s = find(std::string(Name.view()))) return *s;
        throw error("ctformer: internal error, please report: " + std::string(Name.view()) + " used before it was computed");
    }

    template <class Table, class Shape>
    slot_id leaf(const constant<Table, Shape>&) {
        const std::string key = std::string("constant:") + Table::name + to_string<Shape>();
        if (const slot_id* s = find(key)) return *s;
        const slot_id s = add_slot(Table::name, slot_kind::constant, extents_vector<Shape>(), -1);
        p_.slots[s].constant = constant_table<Table, Shape>();
        return scopes_.front()[key] = s;
    }

    // The values of a table known at compile time, made once.
    template <class Table, class Shape>
    static const float* constant_table() {
        static const std::vector<float> table = [] {
            constexpr int rows = maximum(Shape::extents[0]), cols = Shape::extents[1];  // a length's maximum
            std::vector<float> values(rows * cols);
            for (int r = 0; r < rows; ++r)
                for (int c = 0; c < cols; ++c) values[r * cols + c] = static_cast<float>(Table::at(r, c, cols));
            return values;
        }();
        return table.data();
    }

    // The step computing e into `out`, after the steps of its operands.
    template <expression E>
    void emit(const E& e, slot_id out) {
        using kind = step_of<E>;
        step s;
        kind::lower(e, *this, s);
        s.kernel = kind::kernel();
        s.detail = kind::detail(e);
        s.writes = out;
        s.repeat = repeat_;
        s.scratch_bytes = kind::scratch_bytes();
        s.flops_of = &kind::flops;
        s.launch = &kind::launch;
        if constexpr (requires { &kind::pack; }) s.pack = &kind::pack;
        if constexpr (requires { kind::mixed_lengths; }) s.mixed_lengths = kind::mixed_lengths;
        if constexpr (requires { kind::decodes; }) s.decodes = kind::decodes;
        else s.decodes = s.mixed_lengths;  // row by row is token by token
        if constexpr (requires { kind::cached; })
            if constexpr (kind::cached) {
                s.cache_floats = &kind::cache_floats;
                s.cache_floats_read = &kind::cache_floats_read;
            }
        s.node = &e;
        p_.steps.push_back(std::move(s));
        if (p_.slots[out].name.empty()) (p_.slots[out].name = "#") += std::to_string(p_.steps.size() - 1);  // not "#" + …: GCC 12's false -Wrestrict
    }

    template <class B>
    void binding(const B& b) {
        if constexpr (repeated<B>) {
            repeat(b);
        } else {
            const slot_id s = add_slot(std::string(B::name.view()), slot_kind::value,
                                       extents_vector<shape_of_t<decltype(b.definition)>>(), repeat_);
            emit(b.definition, s);
            scopes_.back()[std::string(B::name.view())] = s;
        }
    }

    // The graph's result, or a repeat body's output: computed into `kind` of slot. A bound value
    // that is a step's output becomes that slot itself; anything else is computed (or copied) there.
    template <expression R>
    slot_id computed_into(const R& r, slot_kind kind) {
        if constexpr (is_bound_leaf<R>) {
            const slot_id s = leaf(r.elements[hana::size_c<0>]);
            if (p_.slots[s].kind == slot_kind::value && p_.slots[s].repeat == repeat_) {
                p_.slots[s].kind = kind;
                return s;
            }
        }
        const slot_id out = add_slot(kind == slot_kind::result ? "result" : "output", kind,
                                     extents_vector<shape_of_t<R>>(), repeat_);
        emit(r, out);
        return out;
    }

    template <expression R>
    void result(const R& r) {
        p_.result = computed_into(r, slot_kind::result);
    }

    template <class B>
    void repeat(const B& b) {
        const std::vector<int> extents = extents_vector<shape_of_t<decltype(b.argument)>>();
        repeat_block block{std::string(B::prefix.view()), B::count};
        block.argument = value(b.argument);
        block.first = p_.steps.size();
        repeat_ = static_cast<int>(p_.repeats.size());
        p_.repeats.push_back(block);
        scopes_.emplace_back();
        const slot_id input = add_slot(std::string(repeat_input_name.view()), slot_kind::carried, extents, repeat_);
        scopes_.back()[std::string(repeat_input_name.view())] = input;
        std::apply([&](const auto&... inner) { (binding(inner), ...); }, b.body.bindings);
        const slot_id output = computed_into(b.body.result, slot_kind::carried);
        scopes_.pop_back();
        repeat_ = -1;
        repeat_block& r = p_.repeats.back();
        r.input = input;
        r.output = output;
        r.end = p_.steps.size();
        r.value = add_slot(std::string(B::name.view()), slot_kind::value, extents, -1);
        r.spare = add_slot(std::string(B::name.view()) + " (alternate)", slot_kind::value, extents, -1);
        scopes_.back()[std::string(B::name.view())] = r.value;
    }

    program& p_;
    int repeat_ = -1;
    std::vector<std::map<std::string, slot_id>> scopes_{1};
};

// The program of a fused graph; its steps point into `fused`, which must outlive it.
template <operand G>
program lower(const G& fused) {
    program p;
    lowering(p).graph(fused);
    return p;
}

}  // namespace ctformer::plan::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_PLAN_LOWERING_INL_H_ toggle
