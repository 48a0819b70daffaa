// llama_tiny: generated from tests/data/hf/llama_tiny/config.json alone (ctformer_add_model HF_CONFIG;
// no declaration written), against a LLaMA written in plain PyTorch by LlamaForCausalLM's names (the
// golden file of tests/data/make_golden.py, llama_cases: GQA, rotate_half, Llama 3.1's rope_scaling,
// an lm_head of its own). On
// every Highway target compiled in: the prompt's logits and 8 greedy steps, by the full forward and
// decoded with the KV cache, fp32 and with bf16 GEMM weights; generate() greedy, to a stop id, and
// sampled (the same tokens on every target), of one prompt and of prompts of different lengths
// together; weights swapped between their places fail the
// comparison. And bind_directory of a sharded checkpoint (model.safetensors.index.json and its
// shards), F32, and BF16 widened one tensor at a time as it is bound.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include <ctformer/runtime/checkpoint.hpp>
#include <ctformer/runtime/generation.hpp>
#include <ctformer/runtime/hf_config.hpp>

#include "generated_targets.hpp"
#include "llama_tiny.hpp"
#include "support/generation_check.hpp"
#include "support/temp_path.hpp"

namespace {

const std::string golden_path = std::string(CTFORMER_GOLDEN_DIR) + "/llama_2_layers.safetensors";

// The prompt's (or any ids') logits by the full forward.
auto logits_of(const llama_tiny& model) {
    return [&model](const ctf::id_tensor& ids) {
        ctf::host_tensor<float> logits;
        model.run({}, {{"input_ids", ids}}, logits);
        return logits;
    };
}

TEST(GeneratedLlama, GreedyGenerationFromConfigJsonOnEveryTarget) {
    const ctf::safetensors_file file(golden_path);
    const ctf::tensor_map golden = file.tensors();
    int targets = 0;
    for (const std::int64_t target : test::generated_model_targets()) {
        hwy::SetSupportedTargetsForTest(target);
        llama_tiny model;
        SCOPED_TRACE(std::string(model.target()));
        for (const std::string prefix : {"", "bf16_"}) {
            model.bind(golden, {.strict = false,
                                .precision = prefix.empty() ? ctf::kernels::precision::fp32 : ctf::kernels::precision::bf16});
            test::expect_pytorch_forward_generation(logits_of(model), file, golden, prefix);
            test::expect_pytorch_decoding(*model.start_decoding(), file, golden, prefix);
        }
        ++targets;
    }
    hwy::SetSupportedTargetsForTest(0);
    EXPECT_GE(targets, 2) << "a SIMD target and the portable one, at least";
}

// config.json's rope_scaling (llama3, θ 500000) gives Hugging Face's rotary frequencies to the bit (the
// golden's inverse_frequencies, as _compute_llama3_parameters makes them), scaled: of the four pairs
// one keeps θ's, one is a mix and two are θ's / 32. (Without the scaling the golden logits move by 0.02.)
TEST(GeneratedLlama, RotaryFrequenciesAreHuggingFacesLlama3) {
    const ctf::hf_config c = ctf::read_hf_config(std::string(CTFORMER_HF_DIR) + "/llama_tiny/config.json");
    const ctf::rotary_spec scaled{.head_dim = 8, .theta = c.rope_theta, .scaling = c.rope};
    const ctf::rotary_spec plain{.head_dim = 8, .theta = c.rope_theta};
    const std::vector<float> want = ctf::safetensors_file(golden_path).tensors().at("inverse_frequencies").data;
    ASSERT_EQ(want.size(), 4u);
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(scaled.frequency(i), want[i]) << "pair " << i;
    EXPECT_EQ(scaled.frequency(0), plain.frequency(0));
    EXPECT_GT(scaled.frequency(1), plain.frequency(1) / 32);
    EXPECT_LT(scaled.frequency(1), plain.frequency(1));
    for (std::size_t i : {2, 3}) EXPECT_EQ(scaled.frequency(i), plain.frequency(i) / 32.0f) << "pair " << i;
}

// Llama 3.2 1B's config.json (heads of 64, θ 500000, 8192 original positions): its 32 frequencies,
// 3 of them mixed, PyTorch's to the bit (the mixing's products rounded before they are summed, as
// PyTorch's are, never fused into one multiply-add).
TEST(GeneratedLlama, Llama32FrequenciesArePyTorchs) {
    const ctf::hf_config c = ctf::read_hf_config(std::string(CTFORMER_HF_DIR) + "/config_cases/llama-3.2-1b.json");
    const ctf::rotary_spec spec{.head_dim = c.hidden_size / c.num_attention_heads, .theta = c.rope_theta, .scaling = c.rope};
    const std::vector<float> want = ctf::safetensors_file(golden_path).tensors().at("llama_3_2_inverse_frequencies").data;
    ASSERT_EQ(want.size(), 32u);
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(spec.frequency(i), want[i]) << "pair " << i;
}

// generate(): greedy is PyTorch's greedy; a stop id ends the sequence, kept; a seeded sampling draws
// the same tokens on every target; prompts of different lengths generated together, and decoded
// together each at its own position, give each what it gives alone.
TEST(GeneratedLlama, GenerateGreedyToAStopAndSampled) {
    const ctf::safetensors_file file(golden_path);
    const std::vector<std::int32_t> prompt = file.ids("prompt").data, greedy = file.ids("expected_tokens").data;
    std::vector<std::vector<std::int32_t>> sampled;
    for (const std::int64_t target : test::generated_model_targets()) {
        hwy::SetSupportedTargetsForTest(target);
        llama_tiny model;
        SCOPED_TRACE(std::string(model.target()));
        model.bind(file.tensors(), {.strict = false});
        const auto decoding = model.start_decoding();
        EXPECT_EQ(ctf::generate(*decoding, prompt, {.tokens = 8}), greedy);
        EXPECT_EQ(ctf::generate(*decoding, prompt, {.tokens = 8, .stop = {greedy[3]}}),
                  std::vector(greedy.begin(), greedy.begin() + 4));
        sampled.push_back(ctf::generate(*decoding, prompt, {.tokens = 20, .sample = {.temperature = 1.5, .top_k = 20, .seed = 11}}));
        EXPECT_EQ(sampled.back().size(), 20u) << "to the cache's end: 5 + 19 positions, the 20th token from the last";
        EXPECT_EQ(sampled.back(), sampled.front());
        const auto together = model.start_decoding(3);
        test::expect_generated_together_as_alone(*together, *decoding, {prompt, {7, 1}, {2, 9, 4, 4, 1, 3, 8, 6}});
        test::expect_decoding_together_as_alone(*together, *decoding, 61);
    }
    hwy::SetSupportedTargetsForTest(0);
    EXPECT_NE(std::vector(sampled.front().begin(), sampled.front().begin() + 8), greedy) << "sampled as greedy";
}

// Two of the golden weights swapped (test::swapped) fail the comparison of the prompt's logits.
TEST(GeneratedLlama, SwappedWeightsFailTheComparison) {
    const ctf::safetensors_file file(golden_path);
    const std::pair<const char*, const char*> swaps[] = {
        {"model.layers.0.mlp.gate_proj.weight", "model.layers.0.mlp.up_proj.weight"},
        {"model.layers.1.self_attn.q_proj.weight", "model.layers.1.self_attn.k_proj.weight"},
        {"model.layers.0.self_attn.o_proj.weight", "model.layers.1.self_attn.o_proj.weight"},
        {"model.layers.1.input_layernorm.weight", "model.layers.1.post_attention_layernorm.weight"},
    };
    llama_tiny model;
    for (const auto& [a, b] : swaps) {
        const ctf::tensor_map golden = test::swapped(file.tensors(), a, b);
        model.bind(golden, {.strict = false});
        EXPECT_FALSE(test::compare(logits_of(model)(file.ids("prompt")), golden.at("expected"), test::against_pytorch).ok())
            << a << " and " << b;
    }
}

// The golden model's weights saved as Hugging Face saves a large model, in two shards and their index,
// F32 or BF16 (each value rounded to the nearest).
std::filesystem::path sharded(const ctf::tensor_map& golden, ctf::stored_as dtype) {
    const std::filesystem::path dir = test::temp_path(dtype == ctf::stored_as::f32 ? "llama_sharded" : "llama_sharded_bf16");
    std::filesystem::create_directories(dir);
    ctf::tensor_map shards[2];
    nlohmann::json index{{"metadata", nlohmann::json::object()}, {"weight_map", nlohmann::json::object()}};
    for (const auto& [name, t] : golden) {
        if (!name.starts_with("model.") && !name.starts_with("lm_head.")) continue;
        const int shard = name.starts_with("model.layers.1.") || name.starts_with("lm_head.") ? 1 : 0;
        shards[shard].emplace(name, t);
        index["weight_map"][name] = "model-0000" + std::to_string(shard + 1) + "-of-00002.safetensors";
    }
    for (int shard = 0; shard < 2; ++shard)
        ctf::write_safetensors(dir / ("model-0000" + std::to_string(shard + 1) + "-of-00002.safetensors"), shards[shard], {}, dtype);
    std::ofstream(dir / "model.safetensors.index.json") << index.dump();
    return dir;
}

// bind_directory reads each tensor from the shard the index names, and widens a BF16 one only as it
// binds it: the same logits as the checkpoint loaded whole as fp32 and bound, bit for bit.
TEST(GeneratedLlama, BindsAShardedDirectory) {
    const ctf::safetensors_file file(golden_path);
    const ctf::tensor_map golden = file.tensors();
    llama_tiny model;
    model.bind_directory(sharded(golden, ctf::stored_as::f32));  // strict: every tensor of the checkpoint is the model's
    test::expect_close(logits_of(model)(file.ids("prompt")), golden.at("expected"), test::against_pytorch, "sharded");

    const std::filesystem::path bf16 = sharded(golden, ctf::stored_as::bf16);
    for (const auto format : {ctf::kernels::precision::fp32, ctf::kernels::precision::bf16}) {
        model.bind(ctf::load_checkpoint(bf16), {.precision = format});
        const ctf::host_tensor<float> whole = logits_of(model)(file.ids("prompt"));
        model.bind_directory(bf16, {.precision = format});
        test::expect_close(logits_of(model)(file.ids("prompt")), whole, test::bitwise, "a BF16 checkpoint, bound as read");
        EXPECT_FALSE(test::compare(whole, golden.at("expected"), test::against_pytorch).ok()) << "BF16 values, not the fp32 ones";
    }
}

}  // namespace
