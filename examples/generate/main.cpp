// Text generation with a LLaMA-family model generated from its config.json, with no declaration
// written: ctformer_add_model(tinyllama HF_CONFIG config.json) in examples/CMakeLists.txt builds
// TinyLlama-1.1B's geometry (22 layers, 2048 wide, 32 heads, 4 KV heads, vocabulary 32000) for every
// SIMD target. Prompt ids in, generated ids out, and the decoding speed. Several prompts, of any
// lengths, generate together: one run of all of them, then a step per token of those still going,
// each at its own position.
//
// Tokenization stays outside ctformer: give the ids the model's tokenizer makes (TinyLlama's: 1 is
// <s>). A sequence ends at config.json's eos_token_id (TinyLlama's 2, </s>), or after --tokens.
//
//   generate [DIR] [--prompt 1 450 4996 ... [--prompt 1 15043 ...]] [--tokens 32] [--temperature 0.8 --top-k 50 --top-p 0.95
//            --seed 1] [--fp32] [--threads 1]
//   greedy unless --temperature is given; --top-k 0 and --top-p 1 (the defaults) keep every token
//   DIR    a Hugging Face directory (model.safetensors, or shards and their index) whose config.json
//          is this build's; without one, random weights (the tokens then mean nothing)
//   --fp32 computes the GEMMs in fp32 (default: bf16, half the bytes a token reads; docs/precision.md)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <ctformer/runtime/generation.hpp>
#include <ctformer/runtime/hf_config.hpp>

#include "tinyllama.hpp"

namespace {

struct options {
    std::string dir;
    std::vector<std::vector<std::int32_t>> prompts;  // none given: {1, 450, 4996, 17354, 1701, 432}
    ctformer::generation generation{.tokens = 32, .threads = 1};
    ctformer::kernels::precision weights = ctformer::kernels::precision::bf16;
};

// The command line over the defaults (greedy, 32 tokens, bf16 GEMMs, one thread).
options parse(int argc, char** argv) {
    options o;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const auto value = [&] {
            if (i + 1 >= argc) throw ctformer::invalid_option(arg, "nothing", "a value after it");
            return std::string(argv[++i]);
        };
        if (arg == "--prompt") {
            o.prompts.emplace_back();
            while (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0) o.prompts.back().push_back(std::stoi(argv[++i]));
        } else if (arg == "--tokens") o.generation.tokens = std::stoi(value());
        else if (arg == "--temperature") o.generation.sample.temperature = std::stod(value());
        else if (arg == "--top-k") o.generation.sample.top_k = std::stoi(value());
        else if (arg == "--top-p") o.generation.sample.top_p = std::stod(value());
        else if (arg == "--seed") o.generation.sample.seed = std::stoull(value());
        else if (arg == "--threads") o.generation.threads = std::stoi(value());
        else if (arg == "--fp32") o.weights = ctformer::kernels::precision::fp32;
        else if (arg.rfind("--", 0) == 0) throw ctformer::invalid_option("option", arg, "one of those in the usage");
        else o.dir = arg;
    }
    if (o.prompts.empty()) o.prompts.push_back({1, 450, 4996, 17354, 1701, 432});
    return o;
}

// Every weight of a LlamaForCausalLM of `c`'s sizes, uniform in ±1/√fan-in (norm gains 1).
ctformer::tensor_map random_weights(const ctformer::hf_config& c) {
    const std::size_t d = c.hidden_size, f = c.intermediate_size, v = c.vocab_size;
    const std::size_t kv = d / c.num_attention_heads * c.num_key_value_heads;
    std::minstd_rand random(1);
    const auto matrix = [&](std::size_t rows, std::size_t columns) {
        ctformer::host_tensor<float> t({rows, columns});
        std::uniform_real_distribution<float> uniform(-1.0f / std::sqrt(float(columns)), 1.0f / std::sqrt(float(columns)));
        for (float& x : t.data) x = uniform(random);
        return t;
    };
    const auto gain = [&] { return ctformer::host_tensor<float>({d}, std::vector<float>(d, 1.0f)); };
    ctformer::tensor_map w{{"model.embed_tokens.weight", matrix(v, d)}, {"model.norm.weight", gain()}};
    if (!c.tie_word_embeddings) w.emplace("lm_head.weight", matrix(v, d));
    for (int i = 0; i < c.num_hidden_layers; ++i) {
        const std::string layer = "model.layers." + std::to_string(i) + ".";
        for (const auto& [name, rows, columns] : {std::tuple{"self_attn.q_proj", d, d}, {"self_attn.k_proj", kv, d},
                                                  {"self_attn.v_proj", kv, d}, {"self_attn.o_proj", d, d},
                                                  {"mlp.gate_proj", f, d}, {"mlp.up_proj", f, d}, {"mlp.down_proj", d, f}})
            w.emplace(layer + name + ".weight", matrix(rows, columns));
        w.emplace(layer + "input_layernorm.weight", gain());
        w.emplace(layer + "post_attention_layernorm.weight", gain());
    }
    return w;
}

}  // namespace

int main(int argc, char** argv) try {
    options o = parse(argc, argv);
    const ctformer::hf_config built = ctformer::read_hf_config(CTFORMER_GENERATE_CONFIG);
    ctformer::hf_config given = built;
    tinyllama model;
    if (o.dir.empty()) {
        model.bind(random_weights(built), {.precision = o.weights});
    } else {
        given = ctformer::read_hf_config(std::filesystem::path(o.dir) / "config.json");
        if (given.summary() != built.summary())
            throw ctformer::config_error(o.dir + "/config.json", "", given.summary() + " is not this build's model (" +
                                                                         built.summary() + ")");
        model.bind_directory(o.dir, {.precision = o.weights});
    }
    o.generation.stop.assign(given.eos_token_ids.begin(), given.eos_token_ids.end());
    std::printf("%s on %s, %s weights\n", built.summary().c_str(), std::string(model.target()).c_str(),
                ctformer::kernels::precision_name(o.weights));

    const auto decoding = model.start_decoding(o.prompts.size());
    const auto start = std::chrono::steady_clock::now();
    const std::vector<std::vector<std::int32_t>> tokens = ctformer::generate(*decoding, o.prompts, o.generation);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::size_t generated = 0, prompted = 0;
    for (std::size_t s = 0; s < tokens.size(); ++s) {
        for (const std::int32_t t : tokens[s]) std::printf("%d ", t);
        std::printf("\n");
        generated += tokens[s].size();
        prompted += o.prompts[s].size();
    }
    std::printf("%zu tokens after %zu prompt tokens in %.2f s, the prompts' run included: %.1f tokens/s\n", generated,
                prompted, seconds, static_cast<double>(generated) / seconds);
} catch (const std::exception& e) {
    std::fprintf(stderr, "generate: %s\n", e.what());
    return 1;
}
