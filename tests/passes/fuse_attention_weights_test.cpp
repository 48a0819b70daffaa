// fuse_attention_weights: where the probabilities are bound (need_weights), softmax(mask(scale(Q·Kᵀ)))
// becomes one attention_probabilities node and the product with V stays a matmul.
#include "support/fusion.hpp"

namespace {
TEST(FuseAttentionWeights, BoundProbabilities) {
    constexpr ctf::nn::config cfg{.d_model = 16, .heads = 4, .kv_heads = 2};
    auto x = ctf::input<"x", ctf::batch, 6, 16>();
    auto pad = ctf::bool_input<"pad", ctf::batch, 6>();
    auto mha = ctf::nn::multi_head_attention_with_weights<cfg>(x, x, x, ctf::causal, ctf::key_padding(pad));
    auto after_attention = ctf::passes::run_pass<ctf::passes::fuse_attention>(mha.output);
    EXPECT_EQ(ctf::to_string(after_attention), ctf::to_string(mha.output)) << "the bound weights stop fuse_attention";
    auto fused = test::expect_fused<ctf::passes::fuse_attention_weights>(
        after_attention, "attention_probabilities scale=0.5 causal key_padding [B,_4,_6,_6]");
    EXPECT_NE(ctf::to_string(fused).find("matmul [B,_4,_6,_4]"), std::string::npos);
}
}  // namespace
