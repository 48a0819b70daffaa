// The seeds' example: multi-head attention with batch 2, sequence 10, d_model 512 and 8 heads.
// Declares it, prints the expression tree and shapes, and evaluates it with the reference evaluator.
#include <chrono>
#include <cstdio>
#include <iostream>

#include <ctformer/ctformer.hpp>
#include <ctformer/inspect/print.hpp>
#include <ctformer/reference/random_inputs.hpp>

constexpr ctf::nn::config seeds{.d_model = 512, .heads = 8};

int main() {
    auto x = ctf::input<"x", ctf::batch, 10, 512>();
    auto mha = ctf::nn::multi_head_attention_with_weights<seeds>(x, x, x);

    std::cout << ctf::to_string(mha.output) << "\n";
    std::cout << "output shape " << ctf::to_string<ctf::shape_of_t<decltype(mha.output)>>()
              << ", attention weights " << ctf::to_string<ctf::shape_of_t<decltype(mha.weights)>>() << "\n\n";

    const ctf::tensor_map inputs = ctf::reference::random_inputs(mha.output, /*batch=*/2);
    const auto start = std::chrono::steady_clock::now();
    ctf::reference::evaluator evaluate(inputs);
    const auto output = evaluate(mha.output);
    const auto& weights = evaluate.intermediate("attn_weights");
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;

    std::cout << "reference evaluator (double precision), batch 2: output " << ctf::to_string(output.dims)
              << ", attention weights " << ctf::to_string(weights.dims) << ", " << took.count() << " ms\n";
    std::printf("output[0, 0, :5] = [%.5f, %.5f, %.5f, %.5f, %.5f]\n", output[0], output[1], output[2],
                output[3], output[4]);
    double row_sum = 0;
    for (int key = 0; key < 10; ++key) row_sum += weights[key];
    std::printf("attention weights of sequence 0, head 0, query 0 sum to %.6f\n", row_sum);
}
