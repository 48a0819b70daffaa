// A graph compiled, bound and run once, its steps recorded as they ran (run_options::profile): what
// the plan says against what ran (tests/plan/), and the profile of a run (tests/runtime/).
#pragma once

#include <utility>
#include <vector>

#include <ctformer/compile.hpp>
#include <ctformer/reference/random_inputs.hpp>

namespace test {

// `graph` compiled, bound and run once on a batch of `batch`, its steps recorded as they ran.
template <class Graph>
auto recorded_run(const Graph& graph, std::size_t batch, int threads, ctf::runtime::bind_options options = {}) {
    auto model = ctf::compile(graph);
    const ctf::tensor_map inputs = ctf::reference::random_inputs(graph, batch);
    model.bind(inputs, options);
    std::vector<ctf::runtime::step_record> records;
    ctf::host_tensor<float> output;
    model.run(inputs, output, {.threads = threads, .profile = &records});
    return std::pair{std::move(model), std::move(records)};
}

}  // namespace test
