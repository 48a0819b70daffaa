// A batch of sequences of different lengths in one run (run_options::lengths), without padding work.
// Each input of [B, L, ...] comes packed, [T, ...] with the T = Σ lengths tokens one after another
// (FlashAttention's varlen, PyTorch's nested tensors), or padded, [B, Lmax, ...] with sequence b's
// first lengths[b] rows real; the run packs a padded input and then runs the program once over the
// packed tokens (shape/ragged.hpp); token ids (an id_input) likewise. The output is padded, [B, Lmax,
// ...] with the Lmax of the first padded input, when any input is, its padding rows zero (as
// PyTorch's fast path returns them); else packed. A pooled result, [B, ...] without a length, is one
// row per sequence either way. Compiled once, in the ctformer library (src/runtime/mixed_lengths.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "../core/exceptions.hpp"
#include "../plan/program.hpp"
#include "../shape/ragged.hpp"
#include "../core/tensor_check.hpp"

namespace ctformer::runtime {

// Whether a slot's extents are [B, L, static...] with L the first length variable.
bool sequence_rows(const plan::slot& v);

// Whether a slot's extents are [B, static...]: a row per sequence (a pooled value).
bool sequence_vectors(const plan::slot& v);

// Why p cannot run a packed mixed-length batch, or "" when it can.
std::string mixed_lengths_refusal(const plan::program& p);

// The lengths of a right-padded attention mask [B, L] (each row some ones, then zeros: Hugging
// Face's attention_mask), which run_options::lengths takes to run the batch without its padding;
// nullopt when a row is not so (a zero before a one, or no one at all).
std::optional<std::vector<std::size_t>> lengths_of_mask(const host_tensor<float>& mask);

class mixed_batch {
public:
    // In decoding, the sequences start at `starts` in the KV cache's `slots` (shape/ragged.hpp).
    mixed_batch(const plan::program& p, std::span<const std::size_t> lengths, const tensor_map& inputs, const id_map& ids,
                std::span<const std::size_t> starts = {}, std::span<const std::size_t> slots = {});

    // The run's extents: one packed sequence of T tokens.
    plan::extent_values extents() const {
        plan::extent_values at{1, {ragged_.tokens()}};
        at.ragged = &ragged_;
        return at;
    }
    // An input's memory, packed.
    const float* input(plan::slot_id s) const { return given_[s]; }
    const dims_t& output_dims() const { return output_dims_; }
    // Where the packed run's element [0, t, rest...] of input `name` ([B, L, ...] run as one sequence
    // of T tokens) is in the input as it was given: [b, l, rest...] in a padded one, [t, rest...] in a
    // packed one. An error in the run names the user's element, not the packed position.
    dims_t index_as_given(const std::string& name, const dims_t& packed) const;
    // Where the program writes the result: the output itself when packed, else a packed buffer.
    float* result(plan::slot_id s, host_tensor<float>& output) {
        return padded_length_ && !pooled_ ? packed_[s].data() : output.data.data();
    }
    // A padded output filled from the packed result, its padding rows zero.
    void finish(plan::slot_id s, host_tensor<float>& output) const;

private:
    template <class T>
    const T* take(const plan::slot& v, const host_tensor<T>& t, std::size_t longest_allowed, std::vector<T>& into);

    ragged_batch ragged_;
    std::vector<std::vector<float>> packed_;  // per slot: a padded input packed, or the packed result
    std::vector<std::vector<std::int32_t>> packed_ids_;  // per slot: padded token ids packed
    std::vector<const float*> given_;         // per input slot: its packed memory (ids: int32 read back)
    bool pooled_;                             // the result is a row per sequence
    std::optional<std::size_t> padded_length_;  // Lmax of the first padded input: the output is padded too
    std::set<std::string> padded_inputs_;       // the inputs given padded, by name
    dims_t output_dims_;
};

}  // namespace ctformer::runtime
