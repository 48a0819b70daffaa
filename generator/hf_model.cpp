// The declaration ctformer_add_model(NAME HF_CONFIG config.json [PARAMS ...]) builds, by Hugging
// Face's names, with the parameters ctformer-gen read from the file:
// - a BERT-family model (model_type bert, roberta, xlm-roberta; nn::bert, docs/bert.md):
//   inputs  input_ids [B, L] (token ids), attention_mask [B, L] (bool: true for a real token), and
//           token_type_ids [B, L] when the model has more than one token type (PARAMS
//           token_type_ids=zeros leaves it out: type 0 for every token, as Hugging Face does);
//   output  the last hidden state [B, L, D] (output=hidden), the pooler output [B, D]
//           (output=pooler), or sentence embeddings [B, D] (output=sentence_embedding);
// - a LLaMA-family model (model_type llama, qwen2, mistral; nn::llama, docs/llama.md):
//   input   input_ids [B, L];  output  the logits [B, L, vocabulary], causal.
// L any length up to PARAMS seq. Its name is the one given to ctformer_add_model.
#include <ctformer/generator.hpp>

inline constexpr const char* ctformer_registered_name = ctformer_model_name.data();

template <ctformer::gen::params P>
auto ctformer_declare_bert() {
    namespace gen = ctformer::gen;
    constexpr ctformer::nn::bert_config C = gen::bert_config_of(P);
    auto ids = ctf::id_input<"input_ids", ctf::batch, P.length()>();
    auto mask = ctf::bool_input<"attention_mask", ctf::batch, P.length()>();
    auto hidden = [&] {
        if constexpr (P.token_types > 1 && P.token_type_ids == gen::types_param::input)
            return ctf::nn::bert<C>(ids, mask, ctf::id_input<"token_type_ids", ctf::batch, P.length()>());
        else return ctf::nn::bert<C>(ids, mask);
    }();
    if constexpr (P.output == gen::output_param::pooler) return ctf::nn::bert_pooler<C>(std::move(hidden));
    else if constexpr (P.output == gen::output_param::sentence_embedding)
        return ctf::nn::sentence_embedding(std::move(hidden), mask);
    else return hidden;
}

template <ctformer::gen::params P>
auto ctformer_declare_model() {
    if constexpr (P.family == ctformer::gen::family_param::llama)
        return ctf::nn::llama<ctformer::gen::llama_config_of(P)>(ctf::id_input<"input_ids", ctf::batch, P.length()>());
    else return ctformer_declare_bert<P>();
}
