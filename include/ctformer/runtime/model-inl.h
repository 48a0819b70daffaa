// A compiled model: the declared graph, fused by the passes at compile time, with weights packed
// at bind time and its steps run by the executor. Per-target code (the packed panels depend on the
// vector width); <ctformer/compile.hpp> instantiates it for the static target.
//
//   auto model = compile(graph);   model.bind(weights);   model.run(inputs, output, {.threads = 2});
//   model.run(inputs, output, {.keep = {{"attn_weights", &weights}}});   // an intermediate too
//
// run() may be called from several threads at once: each run takes its own workspace.
// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_RUNTIME_MODEL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_RUNTIME_MODEL_INL_H_
#undef CTFORMER_RUNTIME_MODEL_INL_H_
#else
#define CTFORMER_RUNTIME_MODEL_INL_H_
#endif

#include <memory>
#include <optional>

#include "../inspect/explain.hpp"
#include "../passes/pipeline.hpp"
#include "../plan/walk.hpp"
#include "execute-inl.h"
#include "run_options.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::runtime::HWY_NAMESPACE {

template <operand Graph>
class model {
    template <class... Leaves>
    static constexpr std::size_t count_inputs(leaf_set<Leaves...>) {
        return (std::size_t{0} + ... + std::size_t{has_role<Leaves, role::input>});
    }
    template <class... Leaves>
    static constexpr std::string_view first_input(leaf_set<Leaves...>) {
        std::string_view name;
        ((has_role<Leaves, role::input> && name.empty() ? (name = Leaves::name.view(), 0) : 0), ...);
        return name;
    }
    template <class... Leaves>
    static constexpr bool has_weights(leaf_set<Leaves...>) {
        return (false || ... || has_role<Leaves, role::weight>);
    }
    static constexpr std::size_t input_count = count_inputs(leaves_t<Graph>{});
    static constexpr std::string_view single_input_name() { return first_input(leaves_t<Graph>{}); }

public:
    using fused_type = decltype(passes::fuse(std::declval<const Graph&>()));
    static constexpr std::size_t binding_count = [] {
        if constexpr (expression<fused_type>) return std::size_t{0};
        else return std::tuple_size_v<decltype(fused_type::bindings)>;
    }();

    explicit model(Graph g) : graph_(std::move(g)), fused_(passes::fuse(graph_)) {}

    // Checks every weight against its declared shape and packs the GEMM panels.
    void bind(const tensor_map& weights) {
        weight_store store;
        store.bind(leaves_t<fused_type>{}, weights);
        packed_weights packed;
        plan::for_each_node(fused_, [&](const auto& e) {
            if constexpr (is_gemm<std::decay_t<decltype(e)>>) pack(e, weights, packed);
        });
        weights_ = std::move(store);
        packed_ = std::move(packed);
        bound_ = true;
    }

    class run_steps;

    // One run, step by step: what run() does, and what generated code calls, a comment per step.
    //   auto steps = model.start(inputs, output, options);  steps.binding<0>(); ...  steps.finish();
    run_steps start(const tensor_map& inputs, host_tensor<float>& output, const run_options& options) const {
        return run_steps(*this, inputs, output, options);
    }

    // The inputs by name; output takes the result's shape (or must already have it).
    void run(const tensor_map& inputs, host_tensor<float>& output, run_options options = {}) const {
        run_steps steps = start(inputs, output, options);
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (steps.template binding<I>(), ...);
        }(std::make_index_sequence<binding_count>{});
        steps.finish();
    }

    host_tensor<float> run(const tensor_map& inputs, run_options options = {}) const {
        host_tensor<float> output;
        run(inputs, output, options);
        return output;
    }

    // For a graph with one input: that input.
    void run(const host_tensor<float>& input, host_tensor<float>& output, run_options options = {}) const
        requires(input_count == 1)
    {
        run(tensor_map{{std::string(single_input_name()), input}}, output, options);
    }

    std::string explain(std::size_t batch_size = 1) const { return ctformer::explain(graph_, batch_size); }

    const Graph& graph() const { return graph_; }
    const fused_type& fused() const { return fused_; }

private:
    template <class... Leaves>
    static void check_inputs(leaf_set<Leaves...>, const tensor_map& inputs, std::optional<std::size_t>& batch_size) {
        (check_input<Leaves>(inputs, batch_size), ...);
    }
    template <class Leaf>
    static void check_input(const tensor_map& inputs, std::optional<std::size_t>& batch_size) {
        if constexpr (has_role<Leaf, role::input>) checked_tensor<typename Leaf::shape>(inputs, Leaf::name.view(), batch_size);
    }

    // W (and the bias) of a gemm node, evaluated from the weights (a concat stacks them), packed.
    template <class E>
    static void pack(const E& e, const tensor_map& weights, packed_weights& packed) {
        using W = child_t<E, 1>;
        constexpr std::size_t n = extents_of<W>[0], k = last(extents_of<W>);
        const auto narrow = [](const reference::value& v) { return std::vector<float>(v.data.begin(), v.data.end()); };
        const std::vector<float> w = narrow(reference::evaluate(child<1>(e), weights));
        std::vector<float> bias;
        if constexpr (epilogue_of<E>::bias) bias = narrow(reference::evaluate(child<2>(e), weights));
        packed.insert_or_assign(gemm_key<E>(), kt::pack_weight<n, k>(w.data(), bias.empty() ? nullptr : bias.data()));
    }

    struct workspace_return {
        workspace_pool* pool;
        void operator()(workspace* w) const { pool->give_back(std::unique_ptr<workspace>(w)); }
    };

    Graph graph_;
    fused_type fused_;
    weight_store weights_;
    packed_weights packed_;
    bool bound_ = !has_weights(leaves_t<Graph>{});
    std::unique_ptr<workspace_pool> pool_ = std::make_unique<workspace_pool>();
};

template <operand Graph>
class model<Graph>::run_steps {
public:
    run_steps(const model& m, const tensor_map& inputs, host_tensor<float>& output, const run_options& options)
        : model_(m), output_(output), options_(options), batch_(checked_batch(m, inputs, output)),
          ws_(m.pool_->take().release(), {m.pool_.get()}),
          ex_(m.weights_, m.packed_, inputs, *ws_, batch_, thread_count(options.threads)) {}

    // Binding I into its buffer, or straight into the output when it is the result.
    template <std::size_t I>
    void binding() {
        const auto& b = std::get<I>(model_.fused_.bindings);
        if constexpr (I + 1 == binding_count && result_is_last_binding())
            ex_.compute_binding(b, output_.data.data());
        else
            ex_.compute_binding(b, ex_.template buffer<shape_of_t<decltype(b.definition)>>());
    }

    // The result (unless the last binding was it), then the intermediates options.keep asks for.
    void finish() {
        if constexpr (expression<fused_type>) ex_.compute(model_.fused_, output_.data.data());
        else if constexpr (!result_is_last_binding()) ex_.compute(model_.fused_.result, output_.data.data());
        for (const auto& [name, into] : options_.keep) ex_.copy_bound(name, *into);
    }

private:
    static std::size_t checked_batch(const model& m, const tensor_map& inputs, host_tensor<float>& output) {
        if (!m.bound_) throw error("ctformer: run() before bind(): the model's weights are not given yet");
        std::optional<std::size_t> batch_size;
        check_inputs(leaves_t<fused_type>{}, inputs, batch_size);
        const dims_t expected = dims_of<shape_of_t<fused_type>>(batch_size.value_or(1));
        if (output.dims.empty()) output = host_tensor<float>(expected);
        if (output.dims != expected) throw shape_mismatch("output", to_string(expected), to_string(output.dims));
        return batch_size.value_or(1);
    }

    static constexpr bool result_is_last_binding() {
        if constexpr (binding_count == 0) {
            return false;
        } else {
            using last = std::tuple_element_t<binding_count - 1, decltype(fused_type::bindings)>;
            return std::is_same_v<typename fused_type::result_type, terminal_t<typename last::leaf>>;
        }
    }

    const model& model_;
    host_tensor<float>& output_;
    const run_options& options_;
    std::size_t batch_;
    std::unique_ptr<workspace, workspace_return> ws_;
    executor ex_;
};

template <operand Graph>
model<Graph> compile(Graph g) {
    return model<Graph>(std::move(g));
}

}  // namespace ctformer::runtime::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_RUNTIME_MODEL_INL_H_ toggle
