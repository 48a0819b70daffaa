// Uses the generated my_attention through its plain header: binds weights, runs, checks the output,
// and shows that a missing weight is a typed error naming it.
#include <cmath>
#include <cstdio>
#include <iostream>

#include "my_attention.hpp"

int main() {
    constexpr std::size_t d = 64;
    ctformer::tensor_map weights;
    for (const char* name : {"q_proj", "k_proj", "v_proj"}) {
        ctformer::host_tensor<float> w({d, d});
        for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.05f * std::sin(float(i));
        weights[std::string(name) + "_weight"] = w;
        weights[std::string(name) + "_bias"] = ctformer::host_tensor<float>({d});
    }
    // With out_proj zero, every output row is out_proj.bias, whatever the attention computes.
    weights["out_proj.weight"] = ctformer::host_tensor<float>({d, d});
    ctformer::host_tensor<float> bias({d});
    for (std::size_t i = 0; i < d; ++i) bias[i] = 0.01f * float(i);
    weights["out_proj.bias"] = bias;

    my_attention model;
    model.bind(weights);
    ctformer::host_tensor<float> x({2, 16, d}), y;
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::cos(float(i));
    model.run({{"x", x}}, y);
    for (std::size_t i = 0; i < y.size(); ++i)
        if (y[i] != bias[i % d]) return std::printf("wrong output at %zu: %g\n", i, y[i]), 1;
    std::cout << model.explain(2);
    std::printf("my_attention on %s: output [2,16,64] as expected\n", std::string(model.target()).c_str());

    weights.erase("k_proj_weight");
    try {
        my_attention().bind(weights);
    } catch (const ctformer::missing_tensor& e) {
        std::printf("%s\n", e.what());
        return 0;
    }
    return 1;
}
