// Compiled by encoder_compile_time.sh with -DLAYERS=N: declares the seeds' encoder with N layers,
// prints it and evaluates it, so every template the DSL, the printer and the evaluator need is made.
#include <iostream>

#include <ctformer/ctformer.hpp>
#include <ctformer/inspect/print.hpp>
#include <ctformer/reference/random_inputs.hpp>

constexpr ctf::nn::config seeds{.d_model = 512, .heads = 8, .d_ff = 2048};

int main() {
    auto x = ctf::input<"x", ctf::batch, 10, 512>();
    auto encoder = ctf::nn::encoder<seeds, LAYERS>(ctf::nn::add_positional_encoding(x));
    std::cout << ctf::to_string(encoder).size() << " characters printed\n";
    const auto y = ctf::reference::evaluate(encoder, ctf::reference::random_inputs(encoder, 2));
    std::cout << ctf::to_string(y.dims) << "\n";
}
