// BERT-base's encoder (12 layers, 768 wide): ids to the last hidden state.
#include "bert_graphs.hpp"

std::unique_ptr<ctf::any_model> run::bert_base_encoder() { return compiled(bert_encoder<ctf::nn::bert_base>()); }
