// Checking a compiled model against the reference evaluator on random inputs and weights.
// Tolerance: |got - want| <= 1e-5 + 1e-4·|want| (fp32 against the double reference), the bar.
#pragma once

#include <gtest/gtest.h>

#include <cmath>

#include <ctformer/ctformer.hpp>
#include <ctformer/reference/random_inputs.hpp>

namespace test {

inline void expect_close(const ctf::host_tensor<float>& got, const ctf::host_tensor<double>& want) {
    ASSERT_EQ(got.dims, want.dims);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < want.size(); ++i)
        if (!(std::abs(got[i] - want[i]) <= 1e-5 + 1e-4 * std::abs(want[i])) && bad++ < 5)
            ADD_FAILURE() << "at flat index " << i << ": got " << got[i] << ", want " << want[i];
}

// Binds `model` to random weights for `graph`, runs it and compares; returns the inputs used.
template <class Model, class Graph>
ctf::tensor_map expect_matches_reference(Model& model, const Graph& graph, std::size_t batch, unsigned seed = 3,
                                         int threads = 1) {
    ctf::tensor_map inputs = ctf::reference::random_inputs(graph, batch, seed);
    model.bind(inputs);
    expect_close(model.run(inputs, {threads}), ctf::reference::evaluate(graph, inputs));
    return inputs;
}

}  // namespace test
