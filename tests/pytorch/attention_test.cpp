// ctformer against PyTorch's nn.MultiheadAttention (golden files, see support/golden.hpp): self-
// attention plain, causal and causal with key padding, with a float and a boolean attn_mask, with
// need_weights (per head and averaged); cross-attention with Lq != Lk; and GQA against PyTorch with
// K/V heads repeated.
#include "support/golden.hpp"

namespace {
constexpr ctf::nn::config cfg{.d_model = 32, .heads = 4};
auto x = ctf::input<"x", ctf::batch, 7, 32>();

template <class... Masks>
void check_with_weights(const std::string& name, Masks... masks) {
    auto mha = ctf::nn::multi_head_attention_with_weights<cfg>(x, x, x, masks...);
    const ctf::tensor_map tensors = test::golden(name);
    auto model = ctf::compile(mha.output);
    model.bind(tensors, test::with_outputs);
    ctf::host_tensor<float> output, weights;
    model.run(tensors, output, {.threads = 2, .keep = {{"attn_weights", &weights}}});
    test::expect_close(output, tensors.at("expected"), test::fp32_against_pytorch, name);
    test::expect_close(weights, tensors.at("expected_weights"), test::fp32_against_pytorch, name + " weights");
    if (tensors.contains("expected_average"))
        test::expect_close(ctf::average_over_heads(weights), tensors.at("expected_average"), test::fp32_against_pytorch,
                           name + " weights averaged");
}

TEST(PyTorchMultiheadAttention, Plain) { check_with_weights("mha_plain"); }

TEST(PyTorchMultiheadAttention, CausalAttnMask) { check_with_weights("mha_causal", ctf::causal); }

TEST(PyTorchMultiheadAttention, CausalAndKeyPaddingMask) {
    check_with_weights("mha_causal_padding", ctf::causal, ctf::key_padding(ctf::bool_input<"pad", ctf::batch, 7>()));
}

// attn_mask as PyTorch takes it, float (added; one per sequence and head, [B·heads, L, L] there,
// [B, heads, L, L] here, with -1e9 on a key) and boolean (True = masked there, attend = false here).
TEST(PyTorchMultiheadAttention, FloatAttnMaskIsAdditive) {
    check_with_weights("mha_float_mask", ctf::additive(ctf::input<"bias", ctf::batch, 4, 7, 7>()));
}

TEST(PyTorchMultiheadAttention, BoolAttnMaskIsAttend) {
    check_with_weights("mha_bool_mask", ctf::attend(ctf::bool_input<"attend", 7, 7>()));
}

TEST(PyTorchMultiheadAttention, CrossAttention) {
    auto q = ctf::input<"q", ctf::batch, 5, 32>();
    auto kv = ctf::input<"kv", ctf::batch, 9, 32>();
    test::expect_golden(ctf::nn::multi_head_attention<cfg>(q, kv, kv), "mha_cross");
}

TEST(PyTorchMultiheadAttention, GroupedQueryAgainstRepeatedHeads) {
    constexpr ctf::nn::config gqa{.d_model = 32, .heads = 4, .kv_heads = 2};
    test::expect_golden(ctf::nn::multi_head_attention<gqa>(x), "gqa");
}
}  // namespace
