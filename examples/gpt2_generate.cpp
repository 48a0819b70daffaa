// Greedy generation with GPT-2 small from its checkpoint, by Hugging Face's names (model.safetensors of
// "gpt2", F32 or BF16 or F16), the prompt given as token ids (GPT-2's tokenizer is not ctformer's):
//   gpt2_generate model.safetensors 464 2068 7586 21831 --tokens 20 [--bf16]
// The prompt runs once (prefill), then each new token is one decoding step over the KV cache (1024
// positions), the argmax of its logits (ctf::generate). --bf16 computes the GEMMs in bf16
// (docs/precision.md): half the bytes each step reads (a BF16 checkpoint's values exactly).
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>
#include <ctformer/runtime/generation.hpp>
#include <ctformer/runtime/state_dict.hpp>

namespace ctf = ctformer;

namespace {

constexpr ctf::nn::gpt2_config small{};  // 12 layers, 768 wide, 12 heads, vocabulary 50257, 1024 positions

// The checkpoint's tensors by GPT2LMHeadModel's names: the hub's "gpt2" file was saved from GPT2Model,
// without the "transformer." prefix.
ctf::tensor_map gpt2_weights(const std::string& path) {
    ctf::tensor_map weights = ctf::load_state_dict(path);
    if (weights.contains("transformer.wte.weight")) return weights;
    ctf::tensor_map prefixed;
    for (auto& [name, t] : weights) prefixed.emplace("transformer." + name, std::move(t));
    return prefixed;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::int32_t> prompt;
    int count = 20;
    ctf::precision format = ctf::precision::fp32;
    for (int i = 2; i < argc; ++i) {
        if (std::string(argv[i]) == "--tokens" && i + 1 < argc) count = std::atoi(argv[++i]);
        else if (std::string(argv[i]) == "--bf16") format = ctf::precision::bf16;
        else prompt.push_back(std::atoi(argv[i]));
    }
    if (argc < 3 || prompt.empty()) {
        std::cerr << "usage: gpt2_generate model.safetensors ID... [--tokens N] [--bf16]\n";
        return 2;
    }
    try {
        auto model = ctf::compile(ctf::nn::gpt2<small>(ctf::id_input<"input_ids", ctf::batch, ctf::upto<small.positions>>()));
        // The file may hold lm_head and attn.bias buffers too.
        model.bind(gpt2_weights(argv[1]), {.strict = false, .precision = format});
        auto decoding = model.start_decoding(1);
        for (std::int32_t token : ctf::generate(decoding, prompt, {.tokens = count})) std::cout << token << ' ';
        std::cout << '\n';
    } catch (const ctf::error& e) {
        std::cerr << e.what() << '\n';
        return 1;
    }
}
