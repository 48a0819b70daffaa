// ctformer-gen: checks a model's parameters and writes them as a C++ header, the first step of
// ctformer_add_model (the model's own generator, built from that header and the declaration, writes
// the sources). With --hf-config, the parameters come from a Hugging Face config.json (a BERT-family
// model; PARAMS apply over them). A bad parameter, or a bad file or field, is one line naming it,
// and exit status 2.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <ctformer/generator_params.hpp>
#include <ctformer/runtime/hf_config.hpp>

namespace {

void print_help(std::ostream& out) {
    out << "usage: ctformer-gen --name NAME --source FILE --output-dir DIR [PARAM=VALUE ...]\n"
           "       ctformer-gen --name NAME --hf-config config.json --output-dir DIR [PARAM=VALUE ...]\n"
           "       ctformer-gen --help-table   (the parameters as a Markdown table)\n\n"
           "Checks the parameters of model NAME, declared in FILE with CTFORMER_REGISTER_MODEL, and\n"
           "writes DIR/NAME.params.hpp. ctformer_add_model(NAME SOURCE FILE PARAMS ...) runs it, then\n"
           "builds NAME's generator, which writes NAME.hpp, NAME.cpp, NAME.plan.txt and NAME.dot\n"
           "(CTFORMER_GEN_DEBUG=1|2|3: fused groups | trees after each pass | generated source).\n"
           "--hf-config reads a Hugging Face config.json (model_type bert, roberta, xlm-roberta: nn::bert;\n"
           "llama, qwen2, mistral: nn::llama): its geometry, then the PARAMS over it (seq defaults to its\n"
           "positions, at most 512 for the BERT family, 2048 for the LLaMA family)\n"
           "(ctformer_add_model(NAME HF_CONFIG config.json PARAMS ...)).\n\n"
           "parameters:\n"
        << ctformer::gen::params_help();
}

bool is_identifier(const std::string& name) {
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
    for (char c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    return true;
}

int fail(const std::string& message) {
    std::cerr << "ctformer-gen: " << message << "\n";
    return 2;
}

// A ctformer error's message without its "ctformer: " (ctformer-gen's own prefix stands for it).
std::string problem_of(const ctformer::error& e) {
    const std::string_view text = e.what(), prefix = "ctformer: ";
    return std::string(text.starts_with(prefix) ? text.substr(prefix.size()) : text);
}

// The parameters a config.json gives: its geometry, seq its usable positions (at most 512 for an
// encoder, 2048 for a decoder: each position takes room in the KV cache).
ctformer::gen::params params_of(const ctformer::hf_config& c) {
    namespace gen = ctformer::gen;
    gen::params p;
    p.family = c.decoder ? gen::family_param::llama : c.model_type == "bert" ? gen::family_param::bert : gen::family_param::roberta;
    p.vocabulary = c.vocab_size;
    p.positions = c.max_position_embeddings;
    p.token_types = c.type_vocab_size;
    p.padding_idx = c.pad_token_id;
    p.d_model = c.hidden_size;
    p.heads = c.num_attention_heads;
    p.d_ff = c.intermediate_size;
    p.layers = c.num_hidden_layers;
    p.act = c.hidden_act;
    p.eps = c.norm_eps;
    p.norm = c.decoder ? ctformer::nn::norm_position::pre : ctformer::nn::norm_position::post;
    p.kv_heads = c.num_key_value_heads;
    p.rope_theta = c.rope_theta;
    p.rope_scaling = c.rope.type;
    p.rope_factor = c.rope.factor;
    p.rope_low_freq_factor = c.rope.low_freq_factor;
    p.rope_high_freq_factor = c.rope.high_freq_factor;
    p.rope_original_positions = c.rope.original_positions;
    p.sliding_window = c.sliding_window;
    p.lm_head = c.tie_word_embeddings ? gen::head_param::tied : gen::head_param::own;
    p.bias = c.qkv_bias ? gen::bias_param::qkv : gen::bias_param::none;
    p.seq = std::clamp(p.positions - gen::first_position(p), 1, c.decoder ? 2048 : 512);
    return p;
}

// The checkpoint's prefix of a family's base model ("bert.", "roberta."; XLM-R's is RoBERTa's); a
// LLaMA's names are LlamaForCausalLM's, the model itself.
std::string checkpoint_prefix(const ctformer::gen::params& p) {
    switch (p.family) {
    case ctformer::gen::family_param::bert: return "bert.";
    case ctformer::gen::family_param::roberta: return "roberta.";
    case ctformer::gen::family_param::llama: return "";
    }
    return "";
}

}  // namespace

int main(int argc, char** argv) {
    std::string name, source, dir, hf_config;
    std::vector<std::string> words;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            print_help(std::cout);
            return 0;
        }
        if (arg == "--help-table") {
            std::cout << ctformer::gen::params_table();
            return 0;
        }
        std::string* value = arg == "--name"         ? &name
                             : arg == "--source"     ? &source
                             : arg == "--output-dir" ? &dir
                             : arg == "--hf-config"  ? &hf_config
                                                     : nullptr;
        if (value && i + 1 < argc) *value = argv[++i];
        else if (value) return fail(arg + " needs a value");
        else if (arg.starts_with("--")) return fail("unknown option " + arg + " (see --help)");
        else words.push_back(arg);
    }
    if (name.empty() || source.empty() == hf_config.empty() || dir.empty())
        return fail("--name, --source or --hf-config (one of them), and --output-dir are needed (see --help)");
    if (!is_identifier(name)) return fail("model name '" + name + "' is not a C++ identifier");
    try {
        const bool hf = !hf_config.empty();
        const ctformer::gen::params p =
            hf ? ctformer::gen::parse(words, params_of(ctformer::read_hf_config(hf_config))) : ctformer::gen::parse(words);
        if (hf) ctformer::gen::check_hf_model(p);
        // What the generated files say they come from: the declaration, or the config.json and its folder.
        const std::filesystem::path from = hf ? std::filesystem::path(hf_config) : std::filesystem::path(source);
        const std::string from_text =
            hf ? (from.parent_path().filename() / from.filename()).string() : from.filename().string();
        std::string given;
        for (const std::string& w : words) given += (given.empty() ? "" : " ") + w;
        std::filesystem::create_directories(dir);
        std::ofstream out(std::filesystem::path(dir) / (name + ".params.hpp"));
        out << "// " << name << "'s parameters, checked and written by ctformer-gen.\n#pragma once\n\n"
            << "#include <string_view>\n\n#include <ctformer/generator_params.hpp>\n\n"
            << "inline constexpr ctformer::gen::params ctformer_model_params = " << ctformer::gen::to_cpp(p) << ";\n"
            << "inline constexpr std::string_view ctformer_model_name = \"" << name << "\";\n"
            << "inline constexpr std::string_view ctformer_model_source = \"" << from_text << "\";\n"
            << "// The prefix a checkpoint of the model with a head puts before its names (bind_directory drops it).\n"
            << "inline constexpr std::string_view ctformer_model_checkpoint_prefix = \"" << (hf ? checkpoint_prefix(p) : "")
            << "\";\n"
            << "inline constexpr std::string_view ctformer_model_params_text = \""
            << (given.empty() ? "default parameters" : given) << "\";\n";
        if (!out) return fail("cannot write " + dir + "/" + name + ".params.hpp");
        return 0;
    } catch (const ctformer::gen::param_error& e) {
        return fail(e.what());
    } catch (const ctformer::error& e) {  // config.json: config_error, file_error
        return fail(problem_of(e));
    }
}
