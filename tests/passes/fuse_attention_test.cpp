// fuse_attention: softmax(mask(scale(Q·Kᵀ))) · V becomes one fused_attention node, with every mask
// carried over (at most one of each kind); a second mask of one kind leaves the chain alone.
#include "support/fusion.hpp"

namespace {
using ctf::passes::fuse_attention;

auto q = ctf::input<"q", ctf::batch, 2, 5, 8>();
auto k = ctf::input<"k", ctf::batch, 2, 7, 8>();
auto v = ctf::input<"v", ctf::batch, 2, 7, 4>();
auto pad = ctf::bool_input<"pad", ctf::batch, 7>();

TEST(FuseAttention, PlainScaledDotProduct) {
    test::expect_fused<fuse_attention>(ctf::nn::scaled_dot_product_attention(q, k, v),
                                       "fused_attention scale=0.353553 [B,_2,_5,_4]");
}

TEST(FuseAttention, CausalBothAlignmentsAndKeyPadding) {
    using ctf::nn::scaled_dot_product_attention;
    test::expect_fused<fuse_attention>(scaled_dot_product_attention(q, k, v, ctf::causal, ctf::key_padding(pad)),
                                       "fused_attention scale=0.353553 causal key_padding");
    test::expect_fused<fuse_attention>(scaled_dot_product_attention(q, k, v, ctf::causal_bottom_right),
                                       "fused_attention scale=0.353553 causal_bottom_right");
    test::expect_fused<fuse_attention>(scaled_dot_product_attention(q, k, v, ctf::sliding_window<4096>),
                                       "fused_attention scale=0.353553 causal window=4096");
}

TEST(FuseAttention, AttendAndAdditiveMasksOfAnyBroadcastShape) {
    using ctf::nn::scaled_dot_product_attention;
    auto bias = ctf::input<"bias", 5, 7>();
    auto per_sequence = ctf::bool_input<"m", ctf::batch, 5, 7>();
    test::expect_fused<fuse_attention>(scaled_dot_product_attention(q, k, v, ctf::additive(bias)),
                                       "fused_attention scale=0.353553 additive");
    test::expect_fused<fuse_attention>(
        scaled_dot_product_attention(q, k, v, ctf::causal, ctf::attend(per_sequence), ctf::additive(bias)),
        "fused_attention scale=0.353553 causal attend additive");
}

TEST(FuseAttention, TwoMasksOfOneKindAreNotFused) {
    auto a = ctf::input<"a", 5, 7>();
    auto b = ctf::input<"b", 2, 5, 7>();
    auto g = ctf::nn::scaled_dot_product_attention(q, k, v, ctf::additive(a), ctf::additive(b));
    EXPECT_EQ(ctf::to_string(ctf::passes::run_pass<fuse_attention>(g)), ctf::to_string(g));
}

TEST(FuseAttention, MultiHeadAttentionKeepsItsHeadViews) {
    constexpr ctf::nn::config cfg{.d_model = 16, .heads = 4, .kv_heads = 2};
    auto x = ctf::input<"x", ctf::batch, 6, 16>();
    auto fused = test::expect_fused<fuse_attention>(ctf::nn::multi_head_attention<cfg>(x, ctf::causal),
                                                    "fused_attention scale=0.5 causal [B,_4,_6,_4]");
    EXPECT_NE(ctf::to_string(fused).find("expand_heads"), std::string::npos);
}
}  // namespace
