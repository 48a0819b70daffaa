#include "compiled_runner.hpp"

std::unique_ptr<run::model_runner> run::bert_base_layer_with_weights() {
    return compiled(
        ctf::nn::encoder_layer_with_weights<bert_base>(x<bert_base, bert_sequence>(), keys<bert_sequence>()));
}
