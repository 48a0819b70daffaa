// TinyLlama-1.1B, issue 42's targets (bench/llama.sh runs it with the PyTorch peer,
// bench/pytorch_llama.py): 22 layers, 2048 wide, 32 heads, 4 KV heads, d_ff 5632, a vocabulary of
// 32000, random weights; the prefill of a 512-token prompt in fp32 and in bf16 precision (GFLOP/s
// against the FMA peak, and bf16's dot products' where the CPU has them), then 32 tokens generated
// one step at a time after a 128-token prompt, batch 1 and 8, in bf16 (per-token time, and the bytes each step must read, weights and cached
// keys and values, over its time against this core's read bandwidth, measured here too).
#include <memory>

#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>
#include <ctformer/reference/random_inputs.hpp>

#include "decode_steps.hpp"
#include "peak.hpp"

namespace {

constexpr ctf::nn::llama_config tiny_llama{};  // tests/data/hf/config_cases/tinyllama.json's sizes
constexpr std::size_t prefill_length = 512, prompt = 128, generated = 32;

auto graph() { return ctf::nn::llama<tiny_llama>(ctf::id_input<"input_ids", ctf::batch, ctf::upto<2048>>()); }
using model_type = decltype(ctf::compile(graph()));

// Random weights (uniform in ±1/√fan-in), the GEMMs' W kept in `format`.
std::unique_ptr<model_type> bound(ctf::precision format) {
    auto compiled = std::make_unique<model_type>(ctf::compile(graph()));
    compiled->bind(ctf::reference::random_inputs(compiled->graph(), {1, {1}}), {.precision = format});
    return compiled;
}

const model_type& model(ctf::precision format) {
    if (format == ctf::precision::fp32) {
        static const std::unique_ptr<model_type> fp32 = bound(format);
        return *fp32;
    }
    static const std::unique_ptr<model_type> bf16 = bound(format);
    return *bf16;
}

ctf::id_tensor ids(std::size_t batch, std::size_t length, unsigned seed) {
    return ctf::reference::random_ids(graph(), {batch, {length}}, tiny_llama.vocabulary, seed).at("input_ids");
}

template <ctf::precision P>
void prefill(benchmark::State& state) {
    bench::prefill_runs(state, model(P), ids(1, prefill_length, 1));
}

void decode(benchmark::State& state) {
    constexpr ctf::precision bf16 = ctf::precision::bf16;
    bench::decode_steps(state, model(bf16), bf16, ids(static_cast<std::size_t>(state.range(0)), prompt, 2), generated);
}
}  // namespace

BENCHMARK(bench::HWY_NAMESPACE::read_bandwidth)->Name("peak/read_bandwidth/threads:1")->Iterations(8)->UseRealTime();
BENCHMARK(prefill<ctf::precision::fp32>)->Name("ctformer/tinyllama/prefill512")->ArgName("threads")->Arg(1)->Arg(2)->Iterations(2)->UseRealTime();
BENCHMARK(prefill<ctf::precision::bf16>)->Name("ctformer/tinyllama_bf16/prefill512")->ArgName("threads")->Arg(1)->Arg(2)->Iterations(2)->UseRealTime();
BENCHMARK(decode)->Name("ctformer/tinyllama_bf16/decode32_after128")->ArgName("batch")->Arg(1)->Arg(8)->Iterations(1)->UseRealTime();

BENCHMARK_MAIN();
