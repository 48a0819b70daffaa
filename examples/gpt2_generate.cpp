// Greedy generation with GPT-2 small from its checkpoint, by Hugging Face's names (model.safetensors of
// "gpt2", F32 or BF16 or F16), the prompt given as token ids (GPT-2's tokenizer is not ctformer's):
//   gpt2_generate model.safetensors 464 2068 7586 21831 --tokens 20
// Each new token is the argmax of the last position's logits, from the full causal forward of the
// prompt and the tokens so far (the sequence's length is a run-time extent up to 1024).
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>
#include <ctformer/runtime/state_dict.hpp>

namespace ctf = ctformer;

namespace {

constexpr ctf::nn::gpt2_config small{};  // 12 layers, 768 wide, 12 heads, vocabulary 50257, 1024 positions

// The next `count` tokens after `prompt`, greedily.
template <class Model>
std::vector<std::int32_t> generate(const Model& model, std::vector<std::int32_t> tokens, int count) {
    const std::size_t prompt = tokens.size();
    for (int i = 0; i < count && tokens.size() < std::size_t(small.positions); ++i) {
        const ctf::host_tensor<float> logits = model.run(ctf::id_tensor({1, tokens.size()}, tokens));
        const auto last = logits.data.end() - small.vocabulary;
        tokens.push_back(static_cast<std::int32_t>(std::max_element(last, logits.data.end()) - last));
    }
    return {tokens.begin() + static_cast<std::ptrdiff_t>(prompt), tokens.end()};
}

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
    for (int i = 2; i < argc; ++i) {
        if (std::string(argv[i]) == "--tokens" && i + 1 < argc) count = std::atoi(argv[++i]);
        else prompt.push_back(std::atoi(argv[i]));
    }
    if (argc < 3 || prompt.empty()) {
        std::cerr << "usage: gpt2_generate model.safetensors ID... [--tokens N]\n";
        return 2;
    }
    try {
        auto model = ctf::compile(ctf::nn::gpt2<small>(ctf::id_input<"input_ids", ctf::batch, ctf::upto<small.positions>>()));
        model.bind(gpt2_weights(argv[1]), {.strict = false});  // the file may hold lm_head and attn.bias buffers too
        for (std::int32_t token : generate(model, prompt, count)) std::cout << token << ' ';
        std::cout << '\n';
    } catch (const ctf::error& e) {
        std::cerr << e.what() << '\n';
        return 1;
    }
}
