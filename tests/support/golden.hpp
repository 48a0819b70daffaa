// PyTorch golden files (tests/data/golden/, written by tests/data/make_golden.py): weights by
// state_dict name, every one random (biases, LayerNorm gains and shifts, each layer its own), the
// inputs, and PyTorch's outputs as "expected*".
#pragma once

#include <gtest/gtest.h>

#include <string>

#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>
#include <ctformer/reference/evaluate.hpp>
#include <ctformer/runtime/state_dict.hpp>

#include "compare.hpp"

namespace test {

// PyTorch computes in fp32 as ctformer does, in another order: the two differ by rounding alone.
// The outputs compared are O(1) (LayerNorm rows with gains in [0.5, 1.5] and shifts up to ±0.5,
// attention outputs and weights up to about 1), and a few thousand-term fp32 sums round to about
// 1e-6 of that.
inline constexpr tolerance fp32_against_pytorch{.atol = 1e-5, .rtol = 1e-5};

inline ctf::tensor_map golden(const std::string& name) {
    return ctf::load_state_dict(std::string(CTFORMER_GOLDEN_DIR) + "/" + name + ".safetensors");
}

// A golden file holds PyTorch's outputs beside the weights: bound without strictness.
inline constexpr ctf::bind_options with_outputs{.strict = false};

// `graph` compiled, bound to `tensors` and run on them.
template <class Graph>
ctf::host_tensor<float> run_compiled(const Graph& graph, const ctf::tensor_map& tensors) {
    auto model = ctf::compile(graph);
    model.bind(tensors, with_outputs);
    return model.run(tensors, {2});
}

// The reference evaluator's output for `graph` on the golden file's tensors against "expected": the
// semantics of the oracle that every kernel test compares with.
template <class Graph>
void expect_golden_semantics(const Graph& graph, const std::string& name) {
    const ctf::tensor_map tensors = golden(name);
    expect_close(ctf::reference::evaluate(graph, tensors), tensors.at("expected"), fp32_against_pytorch, name + " (reference)");
}

// Compiles `graph`, binds and runs it on the golden file's tensors, compares with "expected".
template <class Graph>
void expect_golden(const Graph& graph, const std::string& name) {
    const ctf::tensor_map tensors = golden(name);
    expect_close(run_compiled(graph, tensors), tensors.at("expected"), fp32_against_pytorch, name);
}

}  // namespace test
