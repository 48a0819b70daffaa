// The seeds' example: multi-head attention with batch 2, sequence 10, d_model 512 and 8 heads.
// Compiles it (fusion at compile time, Highway kernels for the target of the build flags), prints
// explain() — the tree before and after each pass, and the plan — checks the result against the
// reference evaluator and prints the time per call of both, and where one run's time goes.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <vector>

#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>
#include <ctformer/reference/evaluate.hpp>
#include <ctformer/reference/random_inputs.hpp>

constexpr ctf::nn::config seeds{.d_model = 512, .heads = 8};

// Microseconds per call of f, the best of several rounds.
template <class F>
double microseconds_per_call(F f, int calls) {
    double best = 1e300;
    for (int round = 0; round < 5; ++round) {
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < calls; ++i) f();
        const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
        best = std::min(best, took.count() / calls);
    }
    return best;
}

int main() {
    auto x = ctf::input<"x", ctf::batch, 10, 512>();
    auto graph = ctf::nn::multi_head_attention<seeds>(x);
    auto model = ctf::compile(graph);
    std::cout << model.explain(/*batch=*/2) << "\n";

    const ctf::tensor_map inputs = ctf::reference::random_inputs(graph, /*batch=*/2);
    model.bind(inputs);
    ctf::host_tensor<float> output;
    model.run(inputs, output, {.threads = 1});
    const ctf::host_tensor<double> want = ctf::reference::evaluate(graph, inputs);
    double worst = 0;
    for (std::size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::abs(output[i] - want[i]));
    std::printf("output %s, largest difference from the reference evaluator: %.2e\n",
                ctf::to_string(output.dims).c_str(), worst);
    std::printf("output[0, 0, :5] = [%.5f, %.5f, %.5f, %.5f, %.5f]\n", output[0], output[1], output[2], output[3],
                output[4]);

    const double reference_us = microseconds_per_call([&] { ctf::reference::evaluate(graph, inputs); }, 1);
    const double one_thread_us = microseconds_per_call([&] { model.run(inputs, output, {.threads = 1}); }, 200);
    const double all_threads_us = microseconds_per_call([&] { model.run(inputs, output); }, 200);
    std::printf("time per call: reference evaluator %.0f us, compiled %.1f us on 1 thread, %.1f us on %d threads\n",
                reference_us, one_thread_us, all_threads_us, ctf::thread_count(0));

    // Where one run's time goes, step by step, against this core's FMA peak.
    std::vector<ctf::runtime::step_record> records;
    model.run(inputs, output, {.threads = 1, .profile = &records});
    std::cout << "\n" << model.profile(records, /*batch=*/2);
    return worst <= 1e-4 ? 0 : 1;
}
