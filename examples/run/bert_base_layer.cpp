#include "compiled_runner.hpp"

std::unique_ptr<ctf::any_model> run::bert_base_layer() {
    return compiled(ctf::nn::encoder_layer<bert_base>(x<bert_base, bert_sequence>()));
}
