// Checking a compiled model against the reference evaluator on random inputs and weights.
#pragma once

#include <gtest/gtest.h>

#include <ctformer/ctformer.hpp>
#include <ctformer/reference/evaluate.hpp>
#include <ctformer/reference/random_inputs.hpp>

#include "compare.hpp"

namespace test {

// Inputs uniform in [-1, 1], weights in ±1/√fan-in: a model's outputs are O(1) (LayerNorm rows, or
// attention outputs of a few tenths); fp32 through a few thousand-term sums against the double
// reference stays within 1e-5 + 1e-4·|want|.
inline constexpr tolerance fp32_model{.atol = 1e-5, .rtol = 1e-4};

// Binds `model` to random weights for `graph`, runs it at the run-time extents `at` (a batch, and
// lengths: {2, {10}} is B=2, L=10) and compares; returns the inputs used.
template <class Model, class Graph>
ctf::tensor_map expect_matches_reference(Model& model, const Graph& graph, const ctf::extent_values& at,
                                         unsigned seed = 3, int threads = 1) {
    ctf::tensor_map inputs = ctf::reference::random_inputs(graph, at, seed);
    model.bind(inputs);
    expect_close(model.run(inputs, {threads}), ctf::reference::evaluate(graph, inputs), fp32_model);
    return inputs;
}

// The weights of `bound`, and new random inputs for the graph at the run-time extents `at`.
template <class Graph>
ctf::tensor_map inputs_at(const Graph& graph, ctf::tensor_map bound, const ctf::extent_values& at, unsigned seed) {
    const ctf::tensor_map fresh = ctf::reference::random_inputs(graph, at, seed);
    ctf::for_each_tensor(graph, [&]<class Leaf>(const std::string& name) {
        if constexpr (Leaf::tensor_role == ctf::role::input && Leaf::element != ctf::dtype::i32)
            bound.insert_or_assign(name, fresh.at(name));
    });
    return bound;
}

}  // namespace test
