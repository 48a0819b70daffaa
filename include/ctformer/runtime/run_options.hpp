// What one bind, and one run, of a compiled model may ask for besides its tensors.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "../core/host_tensor.hpp"
#include "../kernels/gemm.hpp"
#include "../plan/allocation.hpp"

namespace ctformer::runtime {

struct bind_options {
    // Refuse given tensors the model does not read (its inputs aside), as PyTorch's strict
    // load_state_dict does: a checkpoint of another model, or a name misspelt, fails loudly.
    bool strict = true;
    // What every GEMM computes in (kernels/gemm.hpp, docs/precision.md): bf16 rounds W (a BF16
    // file's values are kept exactly) and the GEMM's input to the nearest bfloat16 and sums in fp32,
    // with AVX512-BF16's dot products where the CPU has them; half the bytes read per token in
    // decoding. Biases, norms, embeddings and the attention stay fp32.
    kernels::precision precision = kernels::precision::fp32;
};

using plan::step_record;

class kv_cache;

struct run_options {
    int threads = 0;  // 0: every hardware thread
    // Bound intermediates to copy out after the run, by name: {"attn_weights", &weights}; a repeat's
    // by its iteration's name, "layers.3.norm1".
    std::vector<std::pair<std::string, host_tensor<float>*>> keep = {};
    // Where to record every step as it runs, in order.
    std::vector<step_record>* profile = nullptr;
    // A batch whose activations would take more runs in chunks of sequences that fit.
    std::size_t max_activation_bytes = plan::default_max_activation_bytes;
    // A batch of sequences of different lengths: sequence b has lengths[b] tokens, and each input
    // of [B, L, ...] comes packed [T, ...] or padded [B, Lmax, ...] (runtime/mixed_lengths.hpp). It
    // runs over the real tokens only, in one chunk. In a decoding run: the new tokens of each sequence.
    std::vector<std::size_t> lengths = {};
    // A decoding run (model::start_decoding does it): the tokens of the run are the next positions
    // of the cache's sequences, their keys and values appended to it (runtime/kv_cache.hpp).
    kv_cache* cache = nullptr;
    // In a decoding run, the cache's sequences its rows are, in order (none: every one). Each runs at
    // its own position, with `lengths` or the input's length of new tokens; the others wait, and a
    // sequence that has stopped is simply never named again (prefill gives its slot a new prompt).
    std::vector<std::size_t> sequences = {};
};

}  // namespace ctformer::runtime
