// Made-up values for every tensor a graph reads, for demos and tests: inputs uniform in [-1, 1],
// weights uniform in ±1/sqrt(fan-in) (fan-in: the last extent), boolean masks all true.
#pragma once

#include <cmath>
#include <random>

#include "../dsl/repeat.hpp"
#include "../tensor_check.hpp"

namespace ctformer::reference {

// Every tensor the graph reads, a repeat's weights once per iteration ("layers.3.linear1.weight"),
// at the run-time extents `at` (a batch, alone or with lengths: 0 for their maxima).
template <operand E>
tensor_map random_inputs(const E& e, const extent_values& at, unsigned seed = 1) {
    tensor_map tensors;
    std::mt19937 rng(seed);
    for_each_tensor(e, [&]<class Leaf>(const std::string& name) {
        using shape = typename Leaf::shape;
        const dims_t dims = dims_of<shape>(at);
        const double bound = Leaf::tensor_role == role::weight ? 1.0 / std::sqrt(double(dims.back())) : 1.0;
        std::uniform_real_distribution<float> uniform(-bound, bound);
        host_tensor<float> t(dims);
        for (float& v : t.data) v = Leaf::element == dtype::boolean ? 1.0f : uniform(rng);
        tensors.insert_or_assign(name, std::move(t));
    });
    return tensors;
}

}  // namespace ctformer::reference
