// Made-up values for every tensor a graph reads, for demos and tests: inputs uniform in [-1, 1],
// weights uniform in ±1/sqrt(fan-in) (fan-in: the last extent), boolean masks all true; token ids
// (random_ids) uniform in [0, vocabulary).
#pragma once

#include <cmath>
#include <random>

#include "../dsl/repeat.hpp"
#include "../core/tensor_check.hpp"

namespace ctformer::reference {

// Every tensor the graph reads, a repeat's weights once per iteration ("layers.3.linear1.weight"),
// at the run-time extents `at` (a batch, alone or with lengths: 0 for their maxima).
template <operand E>
tensor_map random_inputs(const E& e, const extent_values& at, unsigned seed = 1) {
    tensor_map tensors;
    std::mt19937 rng(seed);
    for_each_tensor(e, [&]<class Leaf>(const std::string& name) {
        if constexpr (Leaf::element == dtype::i32) return;
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

// The graph's token ids (its id_inputs) at the run-time extents `at`.
template <operand E>
id_map random_ids(const E& e, const extent_values& at, std::size_t vocabulary, unsigned seed = 1) {
    id_map ids;
    std::mt19937 rng(seed);
    std::uniform_int_distribution<std::int32_t> uniform(0, static_cast<std::int32_t>(vocabulary) - 1);
    for_each_tensor(e, [&]<class Leaf>(const std::string& name) {
        if constexpr (Leaf::element == dtype::i32) {
            id_tensor t(dims_of<typename Leaf::shape>(at));
            for (std::int32_t& id : t.data) id = uniform(rng);
            ids.insert_or_assign(name, std::move(t));
        }
    });
    return ids;
}

}  // namespace ctformer::reference
