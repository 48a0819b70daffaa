// nn::llama against a LLaMA written in plain PyTorch by Hugging Face's names (a golden file of
// tests/data/make_golden.py, llama_cases), on every Highway target compiled in: a Qwen2 with what
// LLaMA lacks (q/k/v biases, the head tied to the embeddings) and the rotary forms LLaMA's own
// (tests/generator/llama_tiny_test.cpp: GQA, rotate_half, from its config.json) leaves out (MQA,
// GPT-J's interleaved pairs on 6 of 8 dimensions, θ 1e6), and a Mistral v0.1 whose sliding window is 3
// keys. The prompt's logits and 8 greedy steps, by the full forward and with the KV cache, fp32 and
// with bf16 GEMM weights; weights swapped between their places fail the comparison. Prompts of
// different lengths decode together as each alone.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/model_llama_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>
#include <hwy/tests/hwy_gtest.h>

#include <ctformer/ctformer.hpp>
#include <ctformer/runtime/model-inl.h>

#include "support/generation_check.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::tests::HWY_NAMESPACE {
namespace rt = ctformer::runtime::HWY_NAMESPACE;

constexpr nn::llama_config tiny_qwen2{.vocabulary = 61, .d_model = 32, .heads = 4, .kv_heads = 1, .layers = 2, .d_ff = 48,
                                      .eps = 1e-6, .theta = 1e6, .rotary_dims = 6,
                                      .pairing = rotary_pairing::interleaved, .tied = true, .qkv_bias = true};

constexpr nn::llama_config tiny_mistral{.vocabulary = 61, .d_model = 32, .heads = 4, .kv_heads = 2, .layers = 2, .d_ff = 48,
                                        .sliding_window = 3};

const std::string golden_path = std::string(CTFORMER_GOLDEN_DIR) + "/qwen2_2_layers.safetensors";

// The prompt's logits with two of the golden weights swapped fail the comparison.
template <class Model>
void expect_swap_fails(Model& model, const std::string& a, const std::string& b) {
    const tensor_map golden = test::swapped(load_state_dict(golden_path), a, b);
    model.bind(golden, {.strict = false});
    const host_tensor<float> logits = model.run(safetensors_file(golden_path).ids("prompt"));
    EXPECT_FALSE(test::compare(logits, golden.at("expected"), test::against_pytorch).ok()) << a << " and " << b;
}

// The golden file at `path` against the model, fp32, then with every GEMM weight in bf16 (against the
// same model with those weights rounded to bf16 in the file: the tolerance stays fp32's); the model
// is left bound to its fp32 weights.
template <class Model>
void expect_against_pytorch(Model& model, const std::string& path) {
    const safetensors_file file(path);
    const tensor_map golden = load_state_dict(path);
    model.bind(golden, {.strict = false, .precision = kernels::precision::bf16});
    test::expect_pytorch_generation(model, file, golden, "bf16_");
    model.bind(golden, {.strict = false});
    test::expect_pytorch_generation(model, file, golden, "");
}

void TestQwen2AgainstPyTorch() {
    auto model = rt::compile(nn::llama<tiny_qwen2>(id_input<"input_ids", batch, upto<24>>()));
    expect_against_pytorch(model, golden_path);
    expect_swap_fails(model, "model.layers.1.self_attn.q_proj.bias", "model.layers.0.self_attn.q_proj.bias");
    expect_swap_fails(model, "model.layers.0.self_attn.q_proj.bias", "model.layers.0.self_attn.k_proj.bias");
    expect_swap_fails(model, "model.layers.0.mlp.gate_proj.weight", "model.layers.0.mlp.up_proj.weight");
}

// Prompts of different lengths, decoded together and generated together, give each sequence what it
// gives alone, bit for bit: rotary angles, the cache's slots and each sequence's attention are its own.
void TestQwen2DecodesSequencesAtTheirOwnPositions() {
    auto model = rt::compile(nn::llama<tiny_qwen2>(id_input<"input_ids", batch, upto<24>>()));
    model.bind(load_state_dict(golden_path), {.strict = false});
    auto together = model.start_decoding(3), alone = model.start_decoding(1);
    test::expect_decoding_together_as_alone(together, alone, tiny_qwen2.vocabulary);
    test::expect_generated_together_as_alone(together, alone, {{3, 1, 4, 1, 5}, {9, 2}, {6, 5, 3, 5, 8, 9, 7}});
    auto fresh = model.start_decoding(2);
    test::expect_prompt_beside_a_step_as_alone(fresh, alone);
}

// The sliding window: the prompt's queries and every step past position 2 see their last 3 keys
// (without the window the golden logits move by 0.67), by the flash kernel, over the cache, and packed
// with prompts of different lengths.
void TestMistralSlidingWindowAgainstPyTorch() {
    auto model = rt::compile(nn::llama<tiny_mistral>(id_input<"input_ids", batch, upto<24>>()));
    EXPECT_NE(model.explain().find("causal window=3"), std::string::npos) << model.explain();
    expect_against_pytorch(model, std::string(CTFORMER_GOLDEN_DIR) + "/mistral_2_layers.safetensors");
    auto together = model.start_decoding(3), alone = model.start_decoding(1);
    test::expect_decoding_together_as_alone(together, alone, tiny_mistral.vocabulary);
}

}  // namespace ctformer::tests::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ctformer::tests {
HWY_BEFORE_TEST(Llama);
HWY_EXPORT_AND_TEST_P(Llama, TestQwen2AgainstPyTorch);
HWY_EXPORT_AND_TEST_P(Llama, TestQwen2DecodesSequencesAtTheirOwnPositions);
HWY_EXPORT_AND_TEST_P(Llama, TestMistralSlidingWindowAgainstPyTorch);
}  // namespace ctformer::tests
#endif
