// GPT-2 small decoding, issue 17's target (bench/decode.sh runs it with the PyTorch peer,
// bench/pytorch_decode.py): 12 layers, 768 wide, 12 heads, a vocabulary of 50257, random weights;
// the prefill of a 256-token prompt (GFLOP/s against the FMA peak), then 64 tokens generated one
// step at a time for batch 1 and 8 (per-token time, and the bytes each step must read, weights and
// cached keys and values, over its time against this core's read bandwidth, measured here too),
// with the GEMMs' weights in fp32 and in bf16.
#include <algorithm>
#include <chrono>
#include <memory>

#include <hwy/cache_control.h>

#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>
#include <ctformer/reference/random_inputs.hpp>

#include "peak.hpp"

namespace {
namespace hn = hwy::HWY_NAMESPACE;

constexpr ctf::nn::gpt2_config gpt2_small{.vocabulary = 50257, .positions = 1024, .d_model = 768, .heads = 12, .layers = 12};
constexpr std::size_t prompt = 256, generated = 64;

auto graph() { return ctf::nn::gpt2<gpt2_small>(ctf::id_input<"input_ids", ctf::batch, ctf::upto<1024>>()); }
using model_type = decltype(ctf::compile(graph()));

std::unique_ptr<model_type> bound(ctf::weight_format format) {
    auto compiled = std::make_unique<model_type>(ctf::compile(graph()));
    compiled->bind(ctf::reference::random_inputs(compiled->graph(), {1, {prompt}}), {.strict = false, .gemm_weights = format});
    return compiled;
}

// The same random weights, the GEMMs' W kept in `format`.
const model_type& model(ctf::weight_format format = ctf::weight_format::fp32) {
    static const std::unique_ptr<model_type> fp32 = bound(ctf::weight_format::fp32);
    if (format == ctf::weight_format::fp32) return *fp32;
    static const std::unique_ptr<model_type> bf16 = bound(ctf::weight_format::bf16);
    return *bf16;
}

ctf::id_tensor ids(std::size_t batch, std::size_t length, unsigned seed) {
    return ctf::reference::random_ids(model().graph(), {batch, {length}}, gpt2_small.vocabulary, seed).at("input_ids");
}

// One core reading 1 GiB once per iteration, four vector sums, each line prefetched 4 KiB ahead as
// the GEMMs do: the bandwidth a decoding step can have.
void read_bandwidth(benchmark::State& state) {
    const std::size_t floats = std::size_t{1} << 28;
    const auto data = hwy::AllocateAligned<float>(floats);
    std::fill_n(data.get(), floats, 1.0f);
    const hn::ScalableTag<float> d;
    const std::size_t lanes = hn::Lanes(d);
    for (auto _ : state) {
        auto s0 = hn::Zero(d), s1 = s0, s2 = s0, s3 = s0;
        for (std::size_t i = 0; i < floats; i += 4 * lanes) {
            for (std::size_t line = 0; line < 4 * lanes; line += 16) hwy::Prefetch(data.get() + i + line + 1024);
            s0 = hn::Add(s0, hn::Load(d, data.get() + i));
            s1 = hn::Add(s1, hn::Load(d, data.get() + i + lanes));
            s2 = hn::Add(s2, hn::Load(d, data.get() + i + 2 * lanes));
            s3 = hn::Add(s3, hn::Load(d, data.get() + i + 3 * lanes));
        }
        benchmark::DoNotOptimize(hn::GetLane(hn::Add(hn::Add(s0, s1), hn::Add(s2, s3))));
    }
    state.counters["GB/s"] = benchmark::Counter(double(floats * sizeof(float)) / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

// The logits go to one tensor, filled once before the timing (the overload that takes the output):
// a fresh 51 MB tensor a call had cost 130 ms of a 520 ms prefill in page faults on a Zen 5 VM. The
// peer allocates its logits each call (PyTorch's CPU allocator keeps no cache), as its users must.
void prefill(benchmark::State& state) {
    const ctf::run_options options{.threads = static_cast<int>(state.range(0))};
    auto decoding = model().start_decoding(1);
    const ctf::id_map tokens{{"input_ids", ids(1, prompt, 1)}};
    ctf::host_tensor<float> logits;
    decoding.prefill({}, tokens, logits, options);
    for (auto _ : state) {
        decoding.prefill({}, tokens, logits, options);
        benchmark::DoNotOptimize(logits.data.data());
    }
    state.counters["GFLOP/s"] = gflops(model().program().flops({1, {prompt}}));
}

// Per iteration: the prompt (not timed), then the 64 steps, each the greedy token of the last.
template <ctf::weight_format format>
void decode(benchmark::State& state) {
    const std::size_t batch = static_cast<std::size_t>(state.range(0));
    const ctf::run_options options{.threads = 1};
    auto decoding = model(format).start_decoding(batch);
    const ctf::id_tensor tokens = ids(batch, prompt, 2);
    double bytes = 0;
    for (std::size_t t = 0; t < generated; ++t) {
        ctf::extent_values at{batch, {1}};
        at.position = prompt + t;
        bytes += ctf::decoding_work_of(model().program(), decoding.cache().layout(), at, format).bytes;
    }
    double seconds = 0;
    for (auto _ : state) {
        state.PauseTiming();
        ctf::host_tensor<float> logits = decoding.prefill(tokens, options);
        state.ResumeTiming();
        const auto start = std::chrono::steady_clock::now();
        ctf::id_tensor next({batch, 1});
        for (std::size_t t = 0; t < generated; ++t) {
            for (std::size_t b = 0; b < batch; ++b) {
                const auto row = logits.data.begin() + static_cast<std::ptrdiff_t>((b + 1) * logits.size() / batch - gpt2_small.vocabulary);
                next.data[b] = static_cast<std::int32_t>(std::max_element(row, row + gpt2_small.vocabulary) - row);
            }
            logits = decoding.step(next, options);
        }
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    const double steps = double(generated) * double(state.iterations());
    state.counters["ms/step"] = seconds / steps * 1e3;
    state.counters["tokens/s"] = steps * double(batch) / seconds;
    state.counters["GB/s"] = bytes / double(generated) * steps / seconds / 1e9;
}
}  // namespace

BENCHMARK(read_bandwidth)->Name("peak/read_bandwidth/threads:1")->Iterations(8)->UseRealTime();
BENCHMARK(prefill)->Name("ctformer/gpt2_small/prefill256")->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(decode<ctf::weight_format::fp32>)->Name("ctformer/gpt2_small/decode64_after256")->ArgName("batch")->Arg(1)->Arg(8)->Iterations(2)->UseRealTime();
BENCHMARK(decode<ctf::weight_format::bf16>)->Name("ctformer/gpt2_small_bf16/decode64_after256")->ArgName("batch")->Arg(1)->Arg(8)->Iterations(2)->UseRealTime();

BENCHMARK_MAIN();
