// A batch of sequences of mixed lengths (issue 15): batch 16, lengths drawn uniformly from 16..256
// (by bench/mixed_lengths.sh, which passes them in CTFORMER_MIXED_LENGTHS so that the PyTorch peer
// runs the same), S2 widths (d_model 512, 8 heads, d_ff 2048), one encoder layer and a 6-layer
// stack. "padded" runs the padded [16, 256, 512] input with a key-padding mask, the whole padded
// work; "mixed" the same input and mask with run_options::lengths, over the real tokens only (the
// packing included). GFLOP/s count the real tokens' work in both, so their ratio is the speed-up.
#include <cstdlib>
#include <sstream>

#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>
#include <ctformer/reference/random_inputs.hpp>

#include "peak.hpp"

namespace {
constexpr ctf::nn::config s2{.d_model = 512, .heads = 8, .d_ff = 2048};
constexpr int longest = 256;

std::vector<std::size_t> lengths() {
    static const std::vector<std::size_t> given = [] {
        std::vector<std::size_t> l;
        std::istringstream text(std::getenv("CTFORMER_MIXED_LENGTHS") ? std::getenv("CTFORMER_MIXED_LENGTHS") : "");
        for (std::size_t n; text >> n;) l.push_back(n);
        if (l.empty()) l = {144, 36, 221, 92, 256, 17, 180, 63, 128, 240, 75, 199, 16, 111, 167, 48};
        return l;
    }();
    return given;
}

auto x() { return ctf::input<"x", ctf::batch, ctf::upto<longest>, 512>(); }
auto keys() { return ctf::key_padding(ctf::bool_input<"pad", ctf::batch, ctf::upto<longest>>()); }

template <class Graph>
void run(benchmark::State& state, const Graph& graph, bool mixed) {
    const int threads = static_cast<int>(state.range(0));
    const std::vector<std::size_t> l = lengths();
    auto model = ctf::compile(graph);
    ctf::tensor_map inputs = ctf::reference::random_inputs(graph, ctf::extent_values{l.size(), {longest}});
    for (std::size_t b = 0; b < l.size(); ++b)
        std::fill_n(inputs.at("pad").data.begin() + b * longest + l[b], longest - l[b], 0.0f);
    model.bind(inputs);
    ctf::host_tensor<float> output;
    const ctformer::runtime::run_options options{.threads = threads, .lengths = mixed ? l : std::vector<std::size_t>{}};
    for (auto _ : state) {
        model.run(inputs, output, options);
        benchmark::DoNotOptimize(output.data.data());
    }
    double real_work = 0;
    for (std::size_t n : l) real_work += model.program().flops({1, {n}});
    state.counters["GFLOP/s"] = gflops(real_work);
}

void layer(benchmark::State& state, bool mixed) { run(state, ctf::nn::encoder_layer<s2>(x(), keys()), mixed); }
void stack(benchmark::State& state, bool mixed) { run(state, ctf::nn::encoder<s2, 6>(x(), keys()), mixed); }
}  // namespace

BENCHMARK_CAPTURE(layer, padded, false)->Name("padded/enc/S2mixed")->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK_CAPTURE(layer, mixed, true)->Name("mixed/enc/S2mixed")->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK_CAPTURE(stack, padded, false)->Name("padded/enc6/S2mixed")->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK_CAPTURE(stack, mixed, true)->Name("mixed/enc6/S2mixed")->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();

BENCHMARK_MAIN();
