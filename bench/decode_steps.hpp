// The decoding benchmark of a model of token ids: per iteration, its prompt (not timed), then
// `generated` steps of every sequence, each the greedy token of the last, on one thread. Counters:
// ms/step, tokens/s, and GB/s, the bytes each step must read (weights, cached keys and values) over
// its time.
#pragma once

#include <algorithm>
#include <chrono>

#include <benchmark/benchmark.h>

#include <ctformer/compile.hpp>

namespace bench {

template <class Model>
void decode_steps(benchmark::State& state, const Model& model, ctf::weight_format format, const ctf::id_tensor& prompt,
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
