#include "compiled_runner.hpp"

std::unique_ptr<ctf::any_model> run::seeds_layer_with_weights() {
    return compiled(ctf::nn::encoder_layer_with_weights<seeds>(x<seeds, seeds_sequence>()));
}
