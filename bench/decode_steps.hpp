// The decoding benchmarks of a model of token ids. prefill_runs: a prompt's run, timed, GFLOP/s.
// decode_steps: per iteration, its prompt (not timed), then `generated` steps of every sequence, each
// the greedy token of the last, on one thread; counters ms/step, tokens/s, and GB/s, the bytes each
// step must read (weights, cached keys and values) over its time.
#pragma once

#include <algorithm>
#include <chrono>

#include <benchmark/benchmark.h>

#include <ctformer/compile.hpp>

#include "gflops.hpp"

namespace bench {

// The prompt's run on state.range(0) threads. The logits go to one tensor, filled once before the
// timing (the overload that takes the output): a fresh 51 MB tensor a call had cost 130 ms of a
// 520 ms GPT-2 prefill in page faults on a Zen 5 VM. The peers allocate theirs each call (PyTorch's
// CPU allocator keeps no cache), as their users must.
template <class Model>
void prefill_runs(benchmark::State& state, const Model& model, const ctf::id_tensor& prompt) {
    const ctf::run_options options{.threads = static_cast<int>(state.range(0))};
    auto decoding = model.start_decoding(prompt.dims[0]);
    const ctf::id_map tokens{{"input_ids", prompt}};
    ctf::host_tensor<float> logits;
    decoding.prefill({}, tokens, logits, options);
    for (auto _ : state) {
        decoding.prefill({}, tokens, logits, options);
        benchmark::DoNotOptimize(logits.data.data());
    }
    state.counters["GFLOP/s"] = gflops(model.program().flops({prompt.dims[0], {prompt.dims[1]}}));
}

template <class Model>
void decode_steps(benchmark::State& state, const Model& model, ctf::precision format, const ctf::id_tensor& prompt,
                  std::size_t generated) {
    const std::size_t batch = prompt.dims[0];
    const ctf::run_options options{.threads = 1};
    auto decoding = model.start_decoding(batch);
    double bytes = 0;
    for (std::size_t t = 0; t < generated; ++t) {
        ctf::extent_values at{batch, {1}};
        at.position = prompt.dims[1] + t;
        bytes += ctf::decoding_work_of(model.program(), decoding.cache().layout(), at, format).bytes;
    }
    double seconds = 0;
    for (auto _ : state) {
        state.PauseTiming();
        ctf::host_tensor<float> logits = decoding.prefill(prompt, options);
        state.ResumeTiming();
        const auto start = std::chrono::steady_clock::now();
        ctf::id_tensor next({batch, 1});
        for (std::size_t t = 0; t < generated; ++t) {
            const std::size_t vocabulary = logits.dims.back();
            for (std::size_t b = 0; b < batch; ++b) {
                const auto row = logits.data.begin() + static_cast<std::ptrdiff_t>((b + 1) * logits.size() / batch - vocabulary);
                next.data[b] = static_cast<std::int32_t>(std::max_element(row, row + static_cast<std::ptrdiff_t>(vocabulary)) - row);
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

}  // namespace bench
