// Buffer reuse, a pass of its own over the program (Halide's storage folding): each value slot lives
// from the first step that writes it to the last that reads it, and is placed in one workspace arena,
// first fit, in the space of slots already dead. So the arena is the run's peak activation memory.
//
// A repeat's body runs many times: a slot made before the repeat and read inside it lives to the
// repeat's end, and so do the two buffers the iterations alternate between (its value and spare);
// the body's own slots die and are reused within one iteration. Inputs, weights, constants and the
// result belong to the caller and take no arena space. Compiled once, in the ctformer library
// (src/plan/allocation.cpp).
#pragma once

#include <cstddef>
#include <vector>

#include "program.hpp"

namespace ctformer::plan {

struct lifetime {
    std::size_t first = static_cast<std::size_t>(-1), last = 0;  // steps; first = -1: never written
    bool in_arena = false;
};

// Each slot's life: from the step that writes it to the last that reads it, stretched to the end of
// a repeat it is read in.
std::vector<lifetime> lifetimes(const program& p);

// Where each value slot lives for a run of the given extents, and how large the arena is.
struct allocation {
    static constexpr std::size_t align_floats = 32;  // 128-byte aligned starts
    std::vector<std::size_t> offset;                  // in floats, per slot (value slots only)
    std::size_t floats = 0;
    std::size_t bytes() const { return floats * sizeof(float); }
};

// Each value slot placed first fit, in the space of the slots dead by its first step.
allocation allocate(const program& p, const extent_values& at);

// How many sequences of a batch of `at` a chunk takes for its activations to stay within `limit`
// bytes (every step treats a batch's sequences apart, so a large batch runs in chunks).
std::size_t chunk_sequences(const program& p, const extent_values& at, std::size_t limit);

// The activations a run may hold at once unless run_options::max_activation_bytes says otherwise:
// a batch that needs more runs in chunks of sequences that fit.
inline constexpr std::size_t default_max_activation_bytes = std::size_t{256} << 20;

// What a run of a batch takes besides its inputs and the weights: the activations of one chunk,
// each thread's scratch, and the output.
struct run_memory {
    std::size_t chunk = 0, activations = 0, scratch_per_thread = 0, output = 0;
    std::size_t total(int threads) const { return activations + scratch_per_thread * threads + output; }
};

run_memory memory_of_run(const program& p, const extent_values& at, std::size_t max_activation_bytes);

}  // namespace ctformer::plan
