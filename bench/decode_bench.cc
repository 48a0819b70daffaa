// GPT-2 small decoding, issue 17's target (bench/decode.sh runs it with the PyTorch peer,
// bench/pytorch_decode.py): 12 layers, 768 wide, 12 heads, a vocabulary of 50257, random weights;
// the prefill of a 256-token prompt (GFLOP/s against the FMA peak), then 64 tokens generated one
// step at a time for batch 1 and 8 (per-token time, and the bytes each step must read, weights and
// cached keys and values, over its time against this core's read bandwidth, measured here too),
// with the GEMMs' weights in fp32 and in bf16.
#include <memory>

#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>
#include <ctformer/reference/random_inputs.hpp>

#include "decode_steps.hpp"
#include "peak.hpp"

namespace {

constexpr ctf::nn::gpt2_config gpt2_small{.vocabulary = 50257, .positions = 1024, .d_model = 768, .heads = 12, .layers = 12};
constexpr std::size_t prompt = 256, generated = 64;

auto graph() { return ctf::nn::gpt2<gpt2_small>(ctf::id_input<"input_ids", ctf::batch, ctf::upto<1024>>()); }
using model_type = decltype(ctf::compile(graph()));

std::unique_ptr<model_type> bound(ctf::precision format) {
    auto compiled = std::make_unique<model_type>(ctf::compile(graph()));
    compiled->bind(ctf::reference::random_inputs(compiled->graph(), {1, {prompt}}), {.strict = false, .precision = format});
    return compiled;
}

// The same random weights, the GEMMs' W kept in `format`.
const model_type& model(ctf::precision format = ctf::precision::fp32) {
    static const std::unique_ptr<model_type> fp32 = bound(ctf::precision::fp32);
    if (format == ctf::precision::fp32) return *fp32;
    static const std::unique_ptr<model_type> bf16 = bound(ctf::precision::bf16);
    return *bf16;
}

ctf::id_tensor ids(std::size_t batch, std::size_t length, unsigned seed) {
    return ctf::reference::random_ids(model().graph(), {batch, {length}}, gpt2_small.vocabulary, seed).at("input_ids");
}

void prefill(benchmark::State& state) { bench::prefill_runs(state, model(), ids(1, prompt, 1)); }

template <ctf::precision format>
void decode(benchmark::State& state) {
    bench::decode_steps(state, model(format), format, ids(static_cast<std::size_t>(state.range(0)), prompt, 2), generated);
}
}  // namespace

BENCHMARK(bench::HWY_NAMESPACE::read_bandwidth)->Name("peak/read_bandwidth/threads:1")->Iterations(8)->UseRealTime();
BENCHMARK(prefill)->Name("ctformer/gpt2_small/prefill256")->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(decode<ctf::precision::fp32>)->Name("ctformer/gpt2_small/decode64_after256")->ArgName("batch")->Arg(1)->Arg(8)->Iterations(2)->UseRealTime();
BENCHMARK(decode<ctf::precision::bf16>)->Name("ctformer/gpt2_small_bf16/decode64_after256")->ArgName("batch")->Arg(1)->Arg(8)->Iterations(2)->UseRealTime();

BENCHMARK_MAIN();
