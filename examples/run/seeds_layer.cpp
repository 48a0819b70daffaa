#include "compiled_runner.hpp"

std::unique_ptr<run::model_runner> run::seeds_layer() {
    return compiled(ctf::nn::encoder_layer<seeds>(x<seeds, seeds_sequence>(), keys<seeds_sequence>()));
}
