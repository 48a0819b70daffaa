// A compiled model: the declared graph, fused by the passes at compile time and lowered to its
// program (plan/), with weights packed at bind time; run() runs the program's steps in order.
// Per-target code (the steps' kernels and the packed panels are this target's); <ctformer/compile.hpp>
// instantiates it for the static target, generated models for every target.
//
//   auto model = compile(graph);   model.bind(weights);   model.run(inputs, output, {.threads = 2});
//   model.run(inputs, output, {.keep = {{"attn_weights", &weights}}});   // an intermediate too
//   model.run(inputs, {{"input_ids", ids}}, output);                      // token ids (id_input) too
//   auto decoding = model.start_decoding(1);                              // token by token, a KV cache
//   logits = decoding.prefill(prompt);   logits = decoding.step(next);
//   std::unique_ptr<any_model> m = make_any_model(graph);                 // the same, its type forgotten
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

#include <hwy/highway.h>

#include "../inspect/decoding.hpp"
#include "../inspect/explain.hpp"
#include "../inspect/profile.hpp"
#include "../kernels/bf16_dot.hpp"
#include "../kernels/peak-inl.h"
#include "../passes/pipeline.hpp"
#include "../plan/lowering-inl.h"
#include "any_model.hpp"
#include "run.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::runtime::HWY_NAMESPACE {

template <operand Graph>
class any_model_of;

template <operand Graph>
class model {
    friend class any_model_of<Graph>;  // decodes when only_ids

    template <class... Leaves>
    static constexpr std::size_t count_inputs(leaf_set<Leaves...>) {
        return (std::size_t{0} + ... + std::size_t{has_role<Leaves, role::input>});
    }
    struct input_leaf {
        std::string_view name;
        dtype element = dtype::f32;
    };
    template <class... Leaves>
    static constexpr input_leaf first_input(leaf_set<Leaves...>) {
        input_leaf first;
        ((has_role<Leaves, role::input> && first.name.empty() ? (first = {Leaves::name.view(), Leaves::element}, 0) : 0), ...);
        return first;
    }
    static constexpr std::size_t input_count = count_inputs(leaves_t<Graph>{});
    static constexpr input_leaf first = first_input(leaves_t<Graph>{});
    static constexpr bool one_float_input = input_count == 1 && first.element != dtype::i32;
    static constexpr bool only_ids = input_count == 1 && first.element == dtype::i32;

    struct workspace_return {
        workspace_pool* pool;
        void operator()(workspace* w) const { pool->give_back(std::unique_ptr<workspace>(w)); }
    };

public:
    using fused_type = decltype(passes::fuse(std::declval<const Graph&>()));

    // One run, step by step: what run() does, and what generated code calls, a comment per step.
    //   auto run = model.start(inputs, output, options);
    //   while (run.next_chunk()) { run.step(0); ... }
    //   run.finish();
    class run_steps : public program_run {
    public:
        run_steps(const model& m, const tensor_map& inputs, const id_map& ids, host_tensor<float>& output,
                  const run_options& options)
            : run_steps(m, inputs, ids, output, options, m.pool_->take()) {}

    private:
        run_steps(const model& m, const tensor_map& inputs, const id_map& ids, host_tensor<float>& output,
                  const run_options& options, std::unique_ptr<workspace> ws)
            : program_run(m.program_, m.weights_, inputs, ids, output, options, *ws), ws_(ws.release(), {m.pool_.get()}) {}
        std::unique_ptr<workspace, workspace_return> ws_;
    };

    // Token-by-token decoding of `batch` sequences, with a KV cache as long as the result's length may
    // be (upto<N>: N positions): prefill runs a prompt from position 0, each step the next tokens
    // (one, or a few) of every sequence at the position after the last, over the cache. Each call's
    // result is its new tokens' rows; an input of another length (an encoder's memory) is given
    // whole each call. With run_options::sequences a run takes some of the sequences, each at its
    // own position, and with run_options::lengths prompts of different lengths (packed or padded):
    //   decoding.prefill(ids, {.lengths = {5, 2, 7}});      // three prompts, one packed run
    //   decoding.step(next, {.sequences = {0, 2}});          // sequence 1 has stopped
    //   decoding.prefill(prompt, {.sequences = {1}});        // its slot takes a new prompt
    class decoding {
    public:
        decoding(const model& m, std::size_t batch) : model_(&m), cache_(m.program_, batch) {}

        void prefill(const tensor_map& inputs, const id_map& ids, host_tensor<float>& output, run_options options = {}) {
            cache_.restarted(options.sequences, [&] { step(inputs, ids, output, options); });
        }
        void step(const tensor_map& inputs, const id_map& ids, host_tensor<float>& output, run_options options = {}) {
            options.cache = &cache_;
            model_->run(inputs, ids, output, options);
        }
        host_tensor<float> prefill(const id_tensor& ids, run_options options = {})
            requires only_ids
        {
            return cache_.restarted(options.sequences, [&] { return step(ids, options); });
        }
        host_tensor<float> step(const id_tensor& ids, run_options options = {})
            requires only_ids
        {
            host_tensor<float> output;
            step({}, id_map{{std::string(first.name), ids}}, output, options);
            return output;
        }

        std::size_t position() const { return cache_.position(); }  // positions decoded, the most of any sequence
        std::size_t position(std::size_t sequence) const { return cache_.position(sequence); }
        std::size_t capacity() const { return cache_.capacity(); }
        const kv_cache& cache() const { return cache_; }

        // The plan of the next step (`tokens` new ones per sequence, every sequence at position()), its
        // FLOPs and bytes per token.
        std::string explain(std::size_t tokens = 1) const {
            return decoding_table(model_->program_, cache_.layout(), cache_.position(), step_extents(tokens), hwy::TargetName(HWY_TARGET),
                                  model_->gemms(1));
        }

        // Where the time of the last step (`tokens` new ones per sequence) went, from what
        // run_options::profile collected in it, as model::profile, the keys and values it read from
        // the cache counted in its bytes.
        //   decoding.step(ids, {.profile = &records});   std::cout << decoding.profile(records);
        std::string profile(const std::vector<step_record>& records, std::size_t tokens = 1, int threads = 1) const {
            if (tokens > cache_.position())
                throw invalid_option("decoding profile's tokens", std::to_string(tokens),
                                     "at most the " + std::to_string(cache_.position()) + " positions decoded");
            if (cache_.last_run_packed())
                throw invalid_option("decoding profile of the last step", "a packed run (some sequences, or each at its own position)",
                                     "a step of every sequence at one position");
            plan::extent_values at = step_extents(tokens);
            at.position = cache_.position() - tokens;
            return decoding_profile(model_->program_, cache_.layout(), records, at, model_->peak_gflops(threads),
                                    thread_count(threads), hwy::TargetName(HWY_TARGET), model_->gemms(threads));
        }

    private:
        plan::extent_values step_extents(std::size_t tokens) const {
            plan::extent_values at{cache_.batch()};
            at.lengths[length_variable(cache_.stream())] = tokens;
            return at;
        }

        const model* model_;
        kv_cache cache_;
    };

    explicit model(Graph g)
        : graph_(std::make_shared<const Graph>(std::move(g))),
          fused_(std::make_shared<const fused_type>(passes::fuse(*graph_))),
          program_(plan::HWY_NAMESPACE::lower(*fused_)) {}

    // Checks every weight by name against its declared shape and packs the GEMM panels; a strict bind
    // (the default) also refuses tensors the model does not read.
    void bind(const weight_source& weights, const bind_options& options = {}) { weights_.bind(program_, weights, options); }
    void bind(const tensor_map& weights, const bind_options& options = {}) { bind(tensor_map_source(weights), options); }

    run_steps start(const tensor_map& inputs, const id_map& ids, host_tensor<float>& output, const run_options& options) const {
        return run_steps(*this, inputs, ids, output, options);
    }
    run_steps start(const tensor_map& inputs, host_tensor<float>& output, const run_options& options) const {
        return start(inputs, no_ids(), output, options);
    }

    // The inputs by name, token ids (id_input) among the ids; output takes the result's shape (or must
    // already have it).
    void run(const tensor_map& inputs, const id_map& ids, host_tensor<float>& output, run_options options = {}) const {
        run_steps run = start(inputs, ids, output, options);
        while (run.next_chunk()) program_.for_each_run([&](std::size_t k, int iteration) { run.step(k, iteration); });
        run.finish();
    }
    void run(const tensor_map& inputs, host_tensor<float>& output, run_options options = {}) const {
        run(inputs, no_ids(), output, options);
    }

    host_tensor<float> run(const tensor_map& inputs, const id_map& ids, run_options options = {}) const {
        host_tensor<float> output;
        run(inputs, ids, output, options);
        return output;
    }
    host_tensor<float> run(const tensor_map& inputs, run_options options = {}) const { return run(inputs, no_ids(), options); }

    // For a graph with one input: that input, floats or token ids.
    void run(const host_tensor<float>& input, host_tensor<float>& output, run_options options = {}) const
        requires one_float_input
    {
        run(tensor_map{{std::string(first.name), input}}, output, options);
    }
    void run(const id_tensor& ids, host_tensor<float>& output, run_options options = {}) const
        requires only_ids
    {
        run({}, id_map{{std::string(first.name), ids}}, output, options);
    }
    host_tensor<float> run(const id_tensor& ids, run_options options = {}) const
        requires only_ids
    {
        host_tensor<float> output;
        run(ids, output, options);
        return output;
    }

    decoding start_decoding(std::size_t batch) const { return decoding(*this, batch); }

    // The tree before and after each fusion pass, and the plan, for a run of `at` (a batch, and
    // lengths: {4, {10}} is B=4, L=10; the lengths' maxima when not given).
    std::string explain(const extent_values& at = {}) const {
        return ctformer::explain(*graph_, program_, at, heading());
    }

    // explain()'s heading: the target, and the GEMMs' precision and unit once bound in bf16.
    std::string heading() const {
        const kernels::gemm_unit unit = weights_.unit();
        return std::string(hwy::TargetName(HWY_TARGET)) + (unit == kernels::gemm_unit::fp32 ? "" : std::string(", GEMMs ") + kernels::unit_name(unit));
    }

    // Where the time of one run went, from what run_options::profile collected in it: each step's
    // time, GFLOP/s, bytes moved, and share of the FMA peak of the cores it ran on, of the run's
    // `threads` (0: every hardware thread), one core's peak measured on the first call.
    //   std::vector<step_record> records;   model.run(inputs, output, {.profile = &records});
    //   std::cout << model.profile(records, batch);      // or {batch, {length}}: the run's extents
    std::string profile(const std::vector<step_record>& records, const extent_values& at, int threads = 1) const {
        return ctformer::profile_table(program_, records, at, peak_gflops(threads), thread_count(threads),
                                       hwy::TargetName(HWY_TARGET), gemms(threads));
    }

    // What the bound GEMMs compute in and run on (bind_options::precision, chosen by what the CPU
    // has), and that unit's peak of `threads` cores: bf16's dot products' measured on the first call.
    gemm_units gemms(int threads) const {
        if (weights_.unit() != kernels::gemm_unit::bf16_dot) return {weights_.precision(), weights_.unit()};
        static const double one_core = kernels::bf16_dot::dot_peak_gflops();
        return {weights_.precision(), weights_.unit(), one_core * thread_count(threads)};
    }

    // The FMA peak of `threads` cores (0: every hardware thread), one core's measured on the first call.
    static double peak_gflops(int threads) {
        static const double one_core = kernels::HWY_NAMESPACE::fma_peak_gflops();
        return one_core * thread_count(threads);
    }

    // The bytes a run of `at` (a batch of sequences, and lengths) takes besides its inputs and weights.
    std::size_t run_bytes(const extent_values& at, int threads, const run_options& options = {}) const {
        return plan::memory_of_run(program_, at, options.max_activation_bytes).total(thread_count(threads));
    }

    const Graph& graph() const { return *graph_; }
    const fused_type& fused() const { return *fused_; }
    const plan::program& program() const { return program_; }

private:
    std::shared_ptr<const Graph> graph_;
    std::shared_ptr<const fused_type> fused_;  // the program's steps point into it
    plan::program program_;
    bound_weights weights_;
    std::unique_ptr<workspace_pool> pool_ = std::make_unique<workspace_pool>();
};

template <operand Graph>
model<Graph> compile(Graph g) {
    return model<Graph>(std::move(g));
}

// A compiled model behind the plain interface of runtime/any_model.hpp, which ctformer-run and
// generated models hold: make_any_model(graph) is compile(graph), its type forgotten. Its explain()
// prints the pass trace with `trace`: a generated model's is compiled once for all its targets.
template <operand Graph>
class any_model_of final : public any_model {
public:
    using trace_function = std::string (*)(const Graph&);
    any_model_of(model<Graph> m, trace_function trace) : model_(std::move(m)), trace_(trace) {}

    using any_model::bind;
    void bind(const weight_source& weights, const bind_options& options) override { model_.bind(weights, options); }
    void run(const tensor_map& inputs, const id_map& ids, host_tensor<float>& output, const run_options& options) const override {
        model_.run(inputs, ids, output, options);
    }
    std::unique_ptr<any_run> start(const tensor_map& inputs, const id_map& ids, host_tensor<float>& output,
                                   const run_options& options) const override {
        return std::make_unique<typename model<Graph>::run_steps>(model_, inputs, ids, output, options);
    }
    const plan::program& program() const override { return model_.program(); }
    std::string explain(const extent_values& at) const override {
        return trace_(model_.graph()) + plan_text(model_.program(), at, model_.heading());
    }
    std::string profile(const std::vector<step_record>& records, const extent_values& at, int threads) const override {
        return model_.profile(records, at, threads);
    }
    std::size_t run_bytes(const extent_values& at, int threads) const override { return model_.run_bytes(at, threads); }
    std::string_view target() const override { return hwy::TargetName(HWY_TARGET); }
    std::unique_ptr<any_decoding> start_decoding(std::size_t batch) const override {
        if constexpr (model<Graph>::only_ids) return std::make_unique<decoding_of>(model_, batch);
        else throw invalid_option("start_decoding", "a model whose one input is not token ids", "one input, of token ids");
    }

private:
    class decoding_of final : public any_decoding {
    public:
        decoding_of(const model<Graph>& m, std::size_t batch) : decoding_(m, batch) {}
        host_tensor<float> prefill(const id_tensor& ids, const run_options& options) override { return decoding_.prefill(ids, options); }
        host_tensor<float> step(const id_tensor& ids, const run_options& options) override { return decoding_.step(ids, options); }
        std::size_t position() const override { return decoding_.position(); }
        std::size_t position(std::size_t sequence) const override { return decoding_.position(sequence); }
        std::size_t capacity() const override { return decoding_.capacity(); }
        std::string explain(std::size_t tokens) const override { return decoding_.explain(tokens); }

    private:
        typename model<Graph>::decoding decoding_;
    };

    model<Graph> model_;
    trace_function trace_;
};

template <operand Graph>
std::unique_ptr<any_model> make_any_model(Graph g, typename any_model_of<Graph>::trace_function trace = &ctformer::pass_trace<Graph>) {
    return std::make_unique<any_model_of<Graph>>(model<Graph>(std::move(g)), trace);
}

}  // namespace ctformer::runtime::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_RUNTIME_MODEL_INL_H_ toggle
