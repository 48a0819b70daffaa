// nn.Transformer, 6 encoder and 6 decoder layers at the seeds' widths (d_model 512, 8 heads, d_ff
// 2048), B = 8, source and target 128 long, the decoder's self-attention causal (issue 17's target;
// bench/transformer.sh runs it with the PyTorch peer, bench/pytorch_transformer.py).
#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>
#include <ctformer/reference/random_inputs.hpp>

#include "peak.hpp"

namespace {
constexpr ctf::nn::config seeds{.d_model = 512, .heads = 8, .d_ff = 2048};
constexpr std::size_t batch = 8;

void transformer(benchmark::State& state) {
    auto src = ctf::input<"src", ctf::batch, 128, 512>();
    auto tgt = ctf::input<"tgt", ctf::batch, 128, 512>();
    const auto graph = ctf::nn::transformer<seeds, 6, 6>(src, tgt, ctf::nn::tgt_masks(ctf::causal));
    auto model = ctf::compile(graph);
    const ctf::tensor_map inputs = ctf::reference::random_inputs(graph, batch);
    model.bind(inputs);
    ctf::host_tensor<float> output;
    const ctformer::runtime::run_options options{.threads = static_cast<int>(state.range(0))};
    for (auto _ : state) {
        model.run(inputs, output, options);
        benchmark::DoNotOptimize(output.data.data());
    }
    state.counters["GFLOP/s"] = gflops(model.program().flops({batch}));
}
}  // namespace

BENCHMARK(transformer)->Name("ctformer/transformer6+6/seeds")->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();

BENCHMARK_MAIN();
