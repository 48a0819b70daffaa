// The executor: one run of a program (plan/program.hpp), step by step. It resolves every slot to
// memory (inputs and the output in place, values in the workspace arena, weights per iteration),
// then launches each step it is asked for with its operands, in the program's order:
//
//   program_run run(program, weights, inputs, ids, output, options, workspace);
//   while (run.next_chunk()) {
//       run.step(0);  for (int layer = 0; layer < 6; ++layer) { run.step(1, layer); ... }
//   }
//   run.finish();
//
// Every step treats the sequences of a batch apart, so a large batch runs in chunks of sequences,
// the program once per chunk, to keep the activations under run_options::max_activation_bytes.
// model::run does exactly that, from program::for_each_run; the generator writes it out. A decoding
// run (run_options::cache) is the same list over its new tokens, at the cache's position, or packed
// with each sequence at its own.
// Compiled once, in the ctformer library (src/runtime/run.cpp), not in every model's code.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../plan/program.hpp"
#include "../core/parallel.hpp"
#include "any_model.hpp"
#include "run_options.hpp"
#include "../core/tensor_check.hpp"
#include "kv_cache.hpp"
#include "mixed_lengths.hpp"
#include "weights.hpp"
#include "workspace.hpp"

namespace ctformer::runtime {

class program_run : public any_run {
public:
    program_run(const plan::program& p, const bound_weights& weights, const tensor_map& inputs, const id_map& ids,
                host_tensor<float>& output, const run_options& options, workspace& ws);

    // The next chunk of the batch's sequences, its slots resolved; false when every one has run.
    bool next_chunk() override;
    // The most sequences a chunk takes.
    std::size_t chunk_sequences() const { return chunk_; }
    // Step k, in iteration `iteration` of its repeat (-1 outside one).
    void step(std::size_t k, int iteration = -1) override;
    // Every step ran as the program says, for every chunk (the generator's calls included); a
    // mixed-length batch's padded output filled in; a decoding run's tokens added to its cache.
    void finish() const override;

    const plan::extent_values& extents() const { return at_; }

private:
    static bool batched(const plan::slot& v);
    bool batched_input(const std::string& name) const;
    void keep(const plan::slot& v, const float* data, host_tensor<float>& into) const;
    bool has_weights() const;
    plan::extent_values checked_inputs(const tensor_map& inputs, const id_map& ids) const;
    plan::extent_values decoding_extents(kv_cache& cache, const tensor_map& inputs, const id_map& ids);
    const float* memory(plan::slot_id s, int iteration) const;
    void enter(const plan::repeat_block& r, int i);
    void resolve_keeps();
    std::pair<plan::slot_id, int> find_value(const std::string& name) const;

    const plan::program& p_;
    const bound_weights& weights_;
    const run_options& options_;
    int threads_;
    std::unique_ptr<mixed_batch> mixed_;         // a mixed-length batch, packed (run_options::lengths); the
                                                 // extents point into it, so it does not move with the run
    host_tensor<float>* output_ = nullptr;
    plan::extent_values whole_;                   // the whole batch's extents
    std::size_t chunk_ = 0;                       // the most sequences a chunk takes
    std::size_t first_ = 0, chunk_first_ = 0, chunks_run_ = 0;
    plan::extent_values at_;                      // this chunk's
    float* arena_ = nullptr;
    const std::vector<std::size_t>* offsets_ = nullptr;
    std::vector<float*> outside_;  // the memory of inputs, constants and the result, whole-batch
    std::vector<float*> where_;    // every slot's memory for this chunk
    std::vector<std::byte*> scratch_;
    std::vector<const float*> reads_;
    std::map<std::pair<std::size_t, int>, std::vector<host_tensor<float>*>> keeps_;
    std::size_t steps_run_ = 0;
};

}  // namespace ctformer::runtime
