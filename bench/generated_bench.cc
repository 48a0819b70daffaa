// The generated S2 encoder layer (every Highway target, the best chosen at run time) against
// ctformer::compile of the same declaration (the static target of CTFORMER_ARCH_FLAGS), same run;
// and the generated model held to that same target.
#include CTFORMER_PARAMS_HEADER
#include CTFORMER_MODEL_SOURCE

#include <hwy/targets.h>

#include <ctformer/compile.hpp>
#include <ctformer/reference/random_inputs.hpp>

#include "peak.hpp"
#include "s2_encoder.hpp"

namespace {
const auto graph = ctformer_declare_model<ctformer_model_params>();
constexpr std::size_t batch = 8;

double plan_flops() { return ctf::compile(graph).program().flops({batch}); }

template <class Model>
void run(benchmark::State& state, Model& model) {
    const ctf::tensor_map inputs = ctf::reference::random_inputs(graph, batch);
    model.bind(inputs);
    ctf::host_tensor<float> output;
    for (auto _ : state) {
        model.run(inputs, output, {.threads = static_cast<int>(state.range(0))});
        benchmark::DoNotOptimize(output.data.data());
    }
    state.counters["GFLOP/s"] = gflops(plan_flops());
}

void compiled(benchmark::State& state) {
    auto model = ctf::compile(graph);
    run(state, model);
}

void generated(benchmark::State& state) {
    s2_encoder model;
    state.SetLabel(std::string(model.target()));
    run(state, model);
}

// Limited to ctformer::compile's target, for a like-for-like comparison.
void generated_static_target(benchmark::State& state) {
    hwy::SetSupportedTargetsForTest(HWY_STATIC_TARGET);
    s2_encoder model;
    hwy::SetSupportedTargetsForTest(0);
    state.SetLabel(std::string(model.target()));
    run(state, model);
}
}  // namespace

BENCHMARK(compiled)->Name("ctformer/enc/S2/compile")->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(generated)->Name("ctformer/enc/S2/generated")->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(generated_static_target)
    ->Name("ctformer/enc/S2/generated_static_target")
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime();

BENCHMARK_MAIN();
