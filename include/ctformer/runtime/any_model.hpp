// A compiled model behind a plain, non-template interface: what generated models and ctformer-run
// hold, so that code using them needs neither Highway nor Boost. One object runs one Highway target,
// chosen when it was made.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "../core/host_tensor.hpp"
#include "../shape/shape.hpp"
#include "run_options.hpp"
#include "weight_source.hpp"

namespace ctformer {

namespace plan {
struct program;
}

// One run of a model, step by step (runtime/run.hpp's program_run):
//   while (run->next_chunk()) { run->step(0);  for (int layer = 0; layer < 6; ++layer) run->step(1, layer); }
//   run->finish();
class any_run {
public:
    virtual ~any_run() = default;
    // The next chunk of the batch's sequences; false when every sequence has run.
    virtual bool next_chunk() = 0;
    // Step k of the program, in iteration `iteration` of its repeat (-1 outside one).
    virtual void step(std::size_t k, int iteration = -1) = 0;
    // Every step ran as the program says; the output complete.
    virtual void finish() const = 0;
};

// Token-by-token decoding of a model whose one input is token ids (model::decoding): prefill runs a
// prompt from position 0, each step the next tokens of every sequence over the KV cache (or of the
// run_options::sequences named, each at its own position); each call returns its new tokens' rows.
class any_decoding {
public:
    virtual ~any_decoding() = default;
    virtual host_tensor<float> prefill(const id_tensor& ids, const runtime::run_options& options = {}) = 0;
    virtual host_tensor<float> step(const id_tensor& ids, const runtime::run_options& options = {}) = 0;
    virtual std::size_t position() const = 0;  // positions decoded, the most of any sequence
    virtual std::size_t position(std::size_t sequence) const = 0;
    virtual std::size_t capacity() const = 0;
    // The plan of the next step (`tokens` new ones per sequence), its FLOPs and bytes per token.
    virtual std::string explain(std::size_t tokens = 1) const = 0;
};

class any_model {
public:
    virtual ~any_model() = default;
    // Checks every weight by name and shape, and packs them; strictly, refuses tensors it does not read.
    virtual void bind(const weight_source& weights, const runtime::bind_options& options) = 0;
    void bind(const tensor_map& weights, const runtime::bind_options& options) { bind(tensor_map_source(weights), options); }
    // The inputs by name, token ids (int32) among the ids; output takes the result's shape (or must
    // already have it).
    virtual void run(const tensor_map& inputs, const id_map& ids, host_tensor<float>& output,
                     const runtime::run_options& options) const = 0;
    // A model without token ids.
    void run(const tensor_map& inputs, host_tensor<float>& output, const runtime::run_options& options) const {
        run(inputs, id_map{}, output, options);
    }
    // One run, step by step: what run() does, and what a generated model's run() writes out, one
    // call per step.
    virtual std::unique_ptr<any_run> start(const tensor_map& inputs, const id_map& ids, host_tensor<float>& output,
                                           const runtime::run_options& options) const = 0;
    // The steps it runs (plan/program.hpp).
    virtual const plan::program& program() const = 0;
    // The tree before and after each fusion pass, and the plan, for a run of `at` (a batch, lengths).
    virtual std::string explain(const extent_values& at) const = 0;
    // Where the time of one run of `at` went, from the records run_options::profile collected in
    // it: each step's time, GFLOP/s, bytes moved and share of the FMA peak of `threads` cores.
    virtual std::string profile(const std::vector<runtime::step_record>& records, const extent_values& at,
                                int threads) const = 0;
    // The bytes a run of `at` on `threads` threads takes besides its inputs and weights.
    virtual std::size_t run_bytes(const extent_values& at, int threads) const = 0;
    // The Highway target it runs on, e.g. "AVX2".
    virtual std::string_view target() const = 0;
    // Decoding `batch` sequences with a KV cache; an error for a model whose one input is not token
    // ids or that cannot decode (its attention sees later positions).
    virtual std::unique_ptr<any_decoding> start_decoding(std::size_t batch) const = 0;
};

}  // namespace ctformer
