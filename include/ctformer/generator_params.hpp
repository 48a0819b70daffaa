// The typed parameters of a generated model (ctformer_add_model(... PARAMS seq=128 heads=8)), as a
// structural type: a model declaration takes them as a template argument (<ctformer/generator.hpp>),
//   CTFORMER_REGISTER_MODEL(my_encoder, P) { return ctf::nn::encoder<P.config(), P.layers>(x); }
// They are nn::config's fields, spelled as there (d_model, heads, kv_heads, d_ff, act, norm, eps),
// the generator's own: seq, layers, mask, and a BERT-family model's (nn::bert_config's names: family,
// vocabulary, positions, token_types, padding_idx; and output, token_type_ids) or a LLaMA-family
// model's (rope_theta, rope_scaling and its rope_* numbers, sliding_window, lm_head, bias), which ctformer_add_model(NAME HF_CONFIG config.json) fills from
// the file. param_fields lists them once;
// parsing, ctformer-gen's help, its Markdown table and the C++ of the parameter header all come from it.
// ctformer-gen parses and checks them at build time, before any model is compiled, so a bad one is
// one line naming it; the compile-time checks of the nn blocks stay as the second line of defence.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/fields.hpp"
#include "dsl/nn/config.hpp"
#include "kernels/gemm.hpp"
#include "shape/shape.hpp"

namespace ctformer::gen {

enum class mask_param { none, causal, key_padding };

// A model of HF_CONFIG: the BERT family's (how positions are numbered: nn::bert_family), what it
// returns, and whether token types are an input or all 0 (as Hugging Face takes them when none are
// given); or the LLaMA family's (llama, qwen2, mistral: nn::llama), its LM head and biases.
enum class family_param { bert, roberta, llama };
enum class head_param { own, tied };
enum class bias_param { none, qkv };
enum class output_param { hidden, pooler, sentence_embedding };
enum class types_param { input, zeros };

struct params : nn::config {
    int seq = 128;  // the longest sequence (queries and keys): inputs take any length up to it
    int layers = 1;
    mask_param mask = mask_param::none;
    // A BERT-family model's geometry besides nn::config's (nn::bert_config's names), and its result.
    family_param family = family_param::bert;
    int vocabulary = 30522, positions = 512, token_types = 2, padding_idx = 1;
    output_param output = output_param::hidden;
    types_param token_type_ids = types_param::input;
    // A LLaMA-family model's besides nn::config's (nn::llama_config's meanings).
    double rope_theta = 10000.0;
    rope_type rope_scaling = rope_type::none;  // and its numbers, as core/kinds.hpp's rope_scaling
    double rope_factor = 1.0, rope_low_freq_factor = 1.0, rope_high_freq_factor = 4.0;
    int rope_original_positions = 8192;
    int sliding_window = 0;
    head_param lm_head = head_param::own;
    bias_param bias = bias_param::none;
    kernels::precision precision = kernels::precision::fp32;  // bind()'s, unless its options say

    // The sequence extent to declare inputs with: any length from 1 to seq, at run time.
    constexpr int length() const { return length_extent(seq); }

    constexpr nn::config config() const { return *this; }
};

// Every parameter, in the order ctformer-gen --help lists them; the defaults are params{}'s.
inline constexpr auto param_fields = std::tuple_cat(
    std::tuple{fields::number<params, int>{"seq", &params::seq, 1, 65536,
                                           "longest sequence of queries and keys; any length up to it runs"}},
    nn::config_fields,
    std::tuple{fields::number<params, int>{"layers", &params::layers, 1, 64, "encoder layers"},
               fields::choice<params, mask_param, 3>{
                   "mask",
                   &params::mask,
                   {{{"none", mask_param::none}, {"causal", mask_param::causal}, {"key_padding", mask_param::key_padding}}},
                   "ctformer::gen::mask_param",
                   "attention mask; key_padding adds a bool input \"key_padding\" [B, L]"},
               fields::choice<params, family_param, 3>{
                   "family",
                   &params::family,
                   {{{"bert", family_param::bert}, {"roberta", family_param::roberta}, {"llama", family_param::llama}}},
                   "ctformer::gen::family_param",
                   "HF_CONFIG: roberta (and xlm-roberta) number positions from padding_idx + 1; llama (qwen2, mistral) "
                   "is nn::llama"},
               fields::number<params, int>{"vocabulary", &params::vocabulary, 1, 1 << 24, "HF_CONFIG: vocab_size"},
               fields::number<params, int>{"positions", &params::positions, 1, 65536, "HF_CONFIG: max_position_embeddings"},
               fields::number<params, int>{"token_types", &params::token_types, 1, 65536, "HF_CONFIG: type_vocab_size"},
               fields::number<params, int>{"padding_idx", &params::padding_idx, 0, 1 << 24, "HF_CONFIG: pad_token_id"},
               fields::choice<params, output_param, 3>{
                   "output",
                   &params::output,
                   {{{"hidden", output_param::hidden},
                     {"pooler", output_param::pooler},
                     {"sentence_embedding", output_param::sentence_embedding}}},
                   "ctformer::gen::output_param",
                   "HF_CONFIG: last hidden state [B, L, D], pooler output [B, D], or mean-pooled, L2-normalised [B, D]"},
               fields::choice<params, types_param, 2>{
                   "token_type_ids",
                   &params::token_type_ids,
                   {{{"input", types_param::input}, {"zeros", types_param::zeros}}},
                   "ctformer::gen::types_param",
                   "HF_CONFIG: an id input \"token_type_ids\" [B, L] (when token_types > 1), or type 0 for every token"},
               fields::number<params, double>{"rope_theta", &params::rope_theta, 1.0, 1e12, "HF_CONFIG llama: rope_theta"},
               fields::choice<params, rope_type, 3>{
                   "rope_scaling",
                   &params::rope_scaling,
                   {{{"none", rope_type::none}, {"linear", rope_type::linear}, {"llama3", rope_type::llama3}}},
                   "ctformer::rope_type",
                   "HF_CONFIG llama: rope_scaling's rope_type: none, linear (frequencies / factor), llama3 (Llama 3.1's)"},
               fields::number<params, double>{"rope_factor", &params::rope_factor, 1.0, 1e6, "HF_CONFIG llama: rope_scaling's factor"},
               fields::number<params, double>{"rope_low_freq_factor", &params::rope_low_freq_factor, 1e-6, 1e6,
                                              "HF_CONFIG llama: rope_scaling's low_freq_factor (llama3)"},
               fields::number<params, double>{"rope_high_freq_factor", &params::rope_high_freq_factor, 1e-6, 1e6,
                                              "HF_CONFIG llama: rope_scaling's high_freq_factor (llama3)"},
               fields::number<params, int>{"rope_original_positions", &params::rope_original_positions, 1, 1 << 24,
                                           "HF_CONFIG llama: rope_scaling's original_max_position_embeddings (llama3)"},
               fields::number<params, int>{"sliding_window", &params::sliding_window, 0, 1 << 24,
                                           "HF_CONFIG llama: mistral's sliding_window, each query's last keys (0: none)"},
               fields::choice<params, head_param, 2>{
                   "lm_head",
                   &params::lm_head,
                   {{{"own", head_param::own}, {"tied", head_param::tied}}},
                   "ctformer::gen::head_param",
                   "HF_CONFIG llama: the LM head is lm_head.weight, or model.embed_tokens.weight (tie_word_embeddings)"},
               fields::choice<params, bias_param, 2>{
                   "bias",
                   &params::bias,
                   {{{"none", bias_param::none}, {"qkv", bias_param::qkv}}},
                   "ctformer::gen::bias_param",
                   "HF_CONFIG llama: no linear layer has a bias, or q_proj, k_proj and v_proj have (qwen2)"},
               fields::choice<params, kernels::precision, 2>{
                   "precision",
                   &params::precision,
                   {{{"fp32", kernels::precision::fp32}, {"bf16", kernels::precision::bf16}}},
                   "ctformer::kernels::precision",
                   "the GEMMs' precision bind() uses unless its options give one: bf16 rounds weights and GEMM "
                   "inputs to bf16 and sums in fp32, with AVX512-BF16's dot products where the CPU has them"}});
static_assert(fields::covers<params>(param_fields, 1),
              "param_fields must list every field of gen::params and nn::config, once");

// A parameter given wrongly: what() is the one line ctformer-gen prints.
using param_error = field_error;

// "  seq=1..65536    longest sequence ... (default 128)", one line per parameter.
inline std::string params_help() { return fields::help(param_fields, params{}); }

// The parameters as a Markdown table (ctformer-gen --help-table), for the README.
inline std::string params_table() { return fields::markdown(param_fields, params{}); }

// The rules between parameters, as nn::config_error states them at compile time.
inline void check(const params& p) {
    const auto fail = [](const std::string& why) { throw param_error(why); };
    if (p.d_model % p.heads != 0)
        fail("heads=" + std::to_string(p.heads) + " does not divide d_model=" + std::to_string(p.d_model));
    if (p.kv_heads != 0 && p.heads % p.kv_heads != 0)
        fail("kv_heads=" + std::to_string(p.kv_heads) + " does not divide heads=" + std::to_string(p.heads));
    if (p.rope_scaling == rope_type::llama3 && !(p.rope_low_freq_factor < p.rope_high_freq_factor))
        fail("rope_low_freq_factor=" + fields::detail::number_text(p.rope_low_freq_factor) +
             " must be less than rope_high_freq_factor=" + fields::detail::number_text(p.rope_high_freq_factor));
}

// The positions a BERT-family model of p numbers a sequence from (nn::bert_config::first_position).
constexpr int first_position(const params& p) { return p.family == family_param::roberta ? p.padding_idx + 1 : 0; }

// The rules of an HF_CONFIG model between its parameters: a sequence of seq tokens has positions, a
// BERT-family model's pad token is a word.
inline void check_hf_model(const params& p) {
    const auto fail = [](const std::string& why) { throw param_error(why); };
    const int usable = p.positions - first_position(p);
    if (p.seq > usable)
        fail("seq=" + std::to_string(p.seq) + " is longer than the model's positions allow (" + std::to_string(usable) +
             ": max_position_embeddings " + std::to_string(p.positions) +
             (first_position(p) > 0 ? ", from padding_idx + 1)" : ")"));
    if (p.family != family_param::llama && p.padding_idx >= p.vocabulary)
        fail("padding_idx=" + std::to_string(p.padding_idx) + " is outside the vocabulary (" +
             std::to_string(p.vocabulary) + " words)");
}

// "name=value" words, each name at most once, over `base` (the defaults, or a config.json's);
// throws param_error.
inline params parse(const std::vector<std::string>& words, params base = {}) {
    params p = base;
    std::vector<std::string> seen;
    for (const std::string& word : words) {
        const std::size_t eq = word.find('=');
        if (eq == std::string::npos || eq == 0) throw param_error("'" + word + "': expected name=value");
        const std::string name = word.substr(0, eq);
        if (std::find(seen.begin(), seen.end(), name) != seen.end()) throw param_error(name + " is given twice");
        seen.push_back(name);
        fields::set(param_fields, p, name, std::string_view(word).substr(eq + 1));
    }
    check(p);
    return p;
}

// The C++ expression of p, for the generated parameter header: every field assigned, one per line.
inline std::string to_cpp(const params& p) {
    std::string text = "[] {\n    ctformer::gen::params p;\n";
    fields::for_each(param_fields, [&](const auto& f) { text += "    p." + std::string(f.name) + " = " + fields::cpp(f, p) + ";\n"; });
    return text + "    return p;\n}()";
}

}  // namespace ctformer::gen
