// Compiled models end to end (ctformer::compile, every step as explain() lists it), against the FP32
// FMA peak measured in the same run. FLOPs are the plan's: 2·M·N·K per GEMM, 2·(d_k + d_v) per
// visible query-key pair of attention, ~8 per element of a LayerNorm.
//   S1 the seeds' example: B=2, L=10, d_model=512, 8 heads, d_ff=2048
//   S2: B=8, L=128, d_model=512, 8 heads, d_ff=2048
#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>
#include <ctformer/reference/random_inputs.hpp>

#include "peak.hpp"

namespace {
constexpr ctf::nn::config base{.d_model = 512, .heads = 8, .d_ff = 2048};

template <int Length>
auto tokens() {
    return ctf::input<"x", ctf::batch, Length, 512>();
}

template <class Graph>
void run_model(benchmark::State& state, const Graph& graph, std::size_t batch) {
    const int threads = static_cast<int>(state.range(0));
    auto model = ctf::compile(graph);
    const ctf::tensor_map inputs = ctf::reference::random_inputs(graph, batch);
    model.bind(inputs);
    ctf::host_tensor<float> output;
    for (auto _ : state) {
        model.run(inputs, output, {.threads = threads});
        benchmark::DoNotOptimize(output.data.data());
    }
    state.counters["GFLOP/s"] = gflops(model.program().flops({batch}));
}

void s1_mha(benchmark::State& state) { run_model(state, ctf::nn::multi_head_attention<base>(tokens<10>()), 2); }
void s1_encoder(benchmark::State& state) { run_model(state, ctf::nn::encoder_layer<base>(tokens<10>()), 2); }
void s2_mha(benchmark::State& state) { run_model(state, ctf::nn::multi_head_attention<base>(tokens<128>()), 8); }
void s2_encoder(benchmark::State& state) { run_model(state, ctf::nn::encoder_layer<base>(tokens<128>()), 8); }
void s4_encoder(benchmark::State& state) {
    run_model(state, ctf::nn::encoder_layer<base>(tokens<128>(), ctf::causal), 8);
}
}  // namespace

BENCHMARK(s1_mha)->Name("ctformer/mha/S1")->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(s1_encoder)->Name("ctformer/enc/S1")->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(s2_mha)->Name("ctformer/mha/S2")->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(s2_encoder)->Name("ctformer/enc/S2")->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(s4_encoder)->Name("ctformer/enc/S4_causal")->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();

BENCHMARK_MAIN();
