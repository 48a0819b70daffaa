#include "compiled_runner.hpp"

std::unique_ptr<ctf::any_model> run::seeds_encoder_6() {
    return compiled(ctf::nn::encoder<seeds, 6>(x<seeds, seeds_sequence>()));
}
