// nn::llama against a LLaMA written in plain PyTorch by Hugging Face's names (golden files of
// tests/data/make_golden.py, llama_cases), on every Highway target compiled in: LLaMA's own form
// (GQA, rotate_half, an lm_head of its own) and a Qwen2 with what LLaMA lacks (q/k/v biases, the head
// tied to the embeddings) and the other rotary forms (MQA, GPT-J's interleaved pairs on 6 of 8
// dimensions). The prompt's logits and 8 greedy steps, by the full forward and with the KV cache, fp32
// and with bf16 GEMM weights; weights swapped between their places fail the comparison.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/model_llama_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>
#include <hwy/tests/hwy_gtest.h>

#include <ctformer/runtime/model-inl.h>

#include "support/generation_check.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::tests::HWY_NAMESPACE {
namespace rt = ctformer::runtime::HWY_NAMESPACE;

constexpr nn::llama_config tiny_llama{.vocabulary = 61, .d_model = 32, .heads = 4, .kv_heads = 2, .layers = 2, .d_ff = 48};
constexpr nn::llama_config tiny_qwen2{.vocabulary = 61, .d_model = 32, .heads = 4, .kv_heads = 1, .layers = 2, .d_ff = 48,
                                      .eps = 1e-6, .theta = 1e6, .rotary_dims = 6,
                                      .pairing = rotary_pairing::interleaved, .tied = true, .qkv_bias = true};

template <nn::llama_config C>
auto compiled() {
    return rt::compile(nn::llama<C>(id_input<"input_ids", batch, upto<24>>()));
}

std::string golden_path(const std::string& name) { return std::string(CTFORMER_GOLDEN_DIR) + "/" + name + ".safetensors"; }

// The golden file's generation, fp32 and then with every GEMM weight in bf16 (against the same model
// with those weights rounded to bf16 in the file: the tolerance stays fp32's).
template <class Model>
void expect_generation(Model& model, const std::string& name) {
    const safetensors_file file(golden_path(name));
    const tensor_map golden = load_state_dict(golden_path(name));
    model.bind(golden, {.strict = false});
    test::expect_pytorch_generation(model, file, golden, "");
    model.bind(golden, {.strict = false, .gemm_weights = kernels::weight_format::bf16});
    test::expect_pytorch_generation(model, file, golden, "bf16_");
}

// The prompt's logits with two of the golden weights swapped (as far as the shorter goes: q's first
// rows with k's) fail the comparison.
template <class Model>
void expect_swap_fails(Model& model, const std::string& name, const std::string& a, const std::string& b) {
    tensor_map golden = load_state_dict(golden_path(name));
    std::vector<float>&x = golden.at(a).data, &y = golden.at(b).data;
    std::swap_ranges(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(std::min(x.size(), y.size())), y.begin());
    model.bind(golden, {.strict = false});
    const host_tensor<float> logits = model.run(safetensors_file(golden_path(name)).ids("prompt"));
    EXPECT_FALSE(test::compare(logits, golden.at("expected"), test::against_pytorch).ok()) << a << " and " << b;
}

// A layer is five steps: q, k and v one GEMM that turns q and k, the attention, o_proj adding the
// residual, gate and up one GEMM that gates, down_proj adding the residual; no rotary or multiply step.
void TestLlamaAgainstPyTorch() {
    auto model = compiled<tiny_llama>();
    std::vector<std::string> kernels;
    for (const plan::step& s : model.program().steps) kernels.push_back(s.kernel + " " + s.detail);
    const std::vector<std::string> layer{"rms_norm eps=1e-05",
                                         "gemm epilogue: rotary(columns 0:48 head_dim=8 dims=8 theta=10000 half)",
                                         "fused_attention (heads merged) scale=0.353553 causal",
                                         "gemm epilogue: +residual",
                                         "rms_norm eps=1e-05",
                                         "gemm epilogue: silu ·up",
                                         "gemm epilogue: +residual"};
    EXPECT_EQ(std::vector(kernels.begin() + 1, kernels.begin() + 8), layer);
    EXPECT_EQ(kernels.size(), 10u);
    expect_generation(model, "llama_2_layers");
    expect_swap_fails(model, "llama_2_layers", "model.layers.0.mlp.gate_proj.weight", "model.layers.0.mlp.up_proj.weight");
    expect_swap_fails(model, "llama_2_layers", "model.layers.1.self_attn.q_proj.weight", "model.layers.1.self_attn.k_proj.weight");
    expect_swap_fails(model, "llama_2_layers", "model.layers.1.input_layernorm.weight",
                      "model.layers.1.post_attention_layernorm.weight");
    expect_swap_fails(model, "llama_2_layers", "model.layers.0.self_attn.o_proj.weight", "model.layers.1.self_attn.o_proj.weight");
}

void TestQwen2AgainstPyTorch() {
    auto model = compiled<tiny_qwen2>();
    expect_generation(model, "qwen2_2_layers");
    expect_swap_fails(model, "qwen2_2_layers", "model.layers.1.self_attn.q_proj.bias", "model.layers.0.self_attn.q_proj.bias");
    expect_swap_fails(model, "qwen2_2_layers", "model.layers.0.self_attn.q_proj.bias", "model.layers.0.self_attn.k_proj.bias");
}

}  // namespace ctformer::tests::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ctformer::tests {
HWY_BEFORE_TEST(Llama);
HWY_EXPORT_AND_TEST_P(Llama, TestLlamaAgainstPyTorch);
HWY_EXPORT_AND_TEST_P(Llama, TestQwen2AgainstPyTorch);
}  // namespace ctformer::tests
#endif
