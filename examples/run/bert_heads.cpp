// The pooled results of each --model geometry's hidden state: the pooler and sentence embeddings.
#include "bert_graphs.hpp"

std::unique_ptr<ctf::any_model> run::bert_base_pooler() { return compiled(bert_pooler_head<ctf::nn::bert_base>()); }
std::unique_ptr<ctf::any_model> run::bert_base_sentence_embedding() {
    return compiled(sentence_embedding_head<ctf::nn::bert_base>());
}
std::unique_ptr<ctf::any_model> run::minilm_l6_pooler() { return compiled(bert_pooler_head<ctf::nn::minilm_l6>()); }
std::unique_ptr<ctf::any_model> run::minilm_l6_sentence_embedding() {
    return compiled(sentence_embedding_head<ctf::nn::minilm_l6>());
}
