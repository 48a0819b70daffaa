// One model for any length against models compiled for exactly one (issue 15's length table): the
// S2 encoder layer (d_model 512, 8 heads, d_ff 2048, B=8) declared for up to 512 positions and run at
// L = 10, 128 and 512, beside the same layer compiled for exactly that L, and the FMA peak.
#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>
#include <ctformer/reference/random_inputs.hpp>

#include "peak.hpp"

namespace {
constexpr ctf::nn::config s2{.d_model = 512, .heads = 8, .d_ff = 2048};
constexpr std::size_t batch = 8;

template <int Length>
auto layer() {
    return ctf::nn::encoder_layer<s2>(ctf::input<"x", ctf::batch, Length, 512>());
}

template <class Graph>
void run_at(benchmark::State& state, const Graph& graph, std::size_t length) {
    const int threads = static_cast<int>(state.range(0));
    auto model = ctf::compile(graph);
    const ctf::extent_values at{batch, {length}};
    const ctf::tensor_map inputs = ctf::reference::random_inputs(graph, at);
    model.bind(inputs);
    ctf::host_tensor<float> output;
    for (auto _ : state) {
        model.run(inputs, output, {.threads = threads});
        benchmark::DoNotOptimize(output.data.data());
    }
    state.counters["GFLOP/s"] = gflops(model.program().flops(at));
}

template <int Length>
void exact(benchmark::State& state) {
    run_at(state, layer<Length>(), Length);
}

template <int Length>
void up_to_512(benchmark::State& state) {
    run_at(state, layer<ctf::upto<512>>(), Length);
}
}  // namespace

#define CTF_LENGTH_CASE(L)                                                                                         \
    BENCHMARK(exact<L>)->Name("exact/enc/S2/L:" #L)->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();            \
    BENCHMARK(up_to_512<L>)->Name("upto512/enc/S2/L:" #L)->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();
CTF_LENGTH_CASE(10)
CTF_LENGTH_CASE(128)
CTF_LENGTH_CASE(512)

BENCHMARK_MAIN();
