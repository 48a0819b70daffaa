// Made-up values for every tensor a graph reads, for demos and tests: inputs uniform in [-1, 1],
// weights uniform in ±1/sqrt(fan-in) (fan-in: the last extent), boolean masks all true.
#pragma once

#include <cmath>
#include <random>

#include "../dsl/bind.hpp"
#include "../runtime/host_tensor.hpp"

namespace ctformer::reference {

template <class Leaf>
void add_random(tensor_map& tensors, std::size_t batch_size, std::mt19937& rng) {
    if constexpr (requires { Leaf::tensor_role; }) {
        using shape = typename Leaf::shape;
        dims_t dims;
        for (int e : shape::extents) dims.push_back(e == batch ? batch_size : static_cast<std::size_t>(e));
        const double bound = Leaf::tensor_role == role::weight ? 1.0 / std::sqrt(double(dims.back())) : 1.0;
        std::uniform_real_distribution<float> uniform(-bound, bound);
        host_tensor<float> t(dims);
        for (float& v : t.data) v = Leaf::element == dtype::boolean ? 1.0f : uniform(rng);
        tensors.insert_or_assign(std::string(Leaf::name.view()), std::move(t));
    }
}

template <class... Leaves>
void add_all_random(leaf_set<Leaves...>, tensor_map& tensors, std::size_t batch_size, std::mt19937& rng) {
    (add_random<Leaves>(tensors, batch_size, rng), ...);
}

template <operand E>
tensor_map random_inputs(const E&, std::size_t batch_size, unsigned seed = 1) {
    tensor_map tensors;
    std::mt19937 rng(seed);
    add_all_random(leaves_t<E>{}, tensors, batch_size, rng);
    return tensors;
}

}  // namespace ctformer::reference
