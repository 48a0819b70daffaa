#include "compiled_runner.hpp"

std::unique_ptr<ctf::any_model> run::seeds_layer() {
    return compiled(ctf::nn::encoder_layer<seeds>(x<seeds, seeds_sequence>()));
}
