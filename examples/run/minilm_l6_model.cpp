// MiniLM-L6's encoder (all-MiniLM-L6-v2: 6 layers, 384 wide): ids to the last hidden state.
#include "bert_graphs.hpp"

std::unique_ptr<ctf::any_model> run::minilm_l6_encoder() { return compiled(bert_encoder<ctf::nn::minilm_l6>()); }
