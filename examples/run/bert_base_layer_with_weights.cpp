#include "compiled_runner.hpp"

std::unique_ptr<ctf::any_model> run::bert_base_layer_with_weights() {
    return compiled(ctf::nn::encoder_layer_with_weights<bert_base>(x<bert_base, bert_sequence>()));
}
