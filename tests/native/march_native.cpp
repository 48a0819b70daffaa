// A user's own file built with `g++ -march=native`, without CMake (tests/CMakeLists.txt builds it
// so): ctformer's headers make Highway 1.0.3 accept the flags on an AVX-512 host, and the model runs
// on the host's own target, matching the reference evaluator to 1e-5 + 1e-4·|want| (NaN fails).
#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>
#include <ctformer/reference/evaluate.hpp>
#include <ctformer/reference/random_inputs.hpp>

#include <cmath>
#include <cstdio>

int main() {
    constexpr ctf::nn::config cfg{.d_model = 32, .heads = 4, .d_ff = 64};
    auto graph = ctf::nn::encoder_layer<cfg>(ctf::input<"x", ctf::batch, 9, 32>(), ctf::causal);
    auto model = ctf::compile(graph);
    const ctf::tensor_map in = ctf::reference::random_inputs(graph, 2, 5);
    model.bind(in);
    const ctf::host_tensor<float> got = model.run(in, {1});
    const ctf::host_tensor<double> want = ctf::reference::evaluate(graph, in);
    for (std::size_t i = 0; i < want.size(); ++i)
        if (!(std::abs(got[i] - want[i]) <= 1e-5 + 1e-4 * std::abs(want[i]))) {
            std::printf("element %zu: %g, want %g\n", i, double(got[i]), want[i]);
            return 1;
        }
    std::printf("-march=native: compiled for %s, matches the reference\n", hwy::TargetName(HWY_STATIC_TARGET));
}
