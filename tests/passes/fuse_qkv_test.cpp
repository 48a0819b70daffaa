// fuse_qkv: the three projections of one input under fused attention become one gemm against the
// stacked weights, bound once, and the attention reads Q, K and V as column ranges of it.
#include "support/fusion.hpp"

namespace {
using ctf::passes::run_first;

template <ctf::nn::config Cfg>
void check_qkv(const std::string& wide) {
    auto x = ctf::input<"x", ctf::batch, 6, 16>();
    constexpr std::size_t before_qkv = ctf::passes::pass_count - 2;
    auto g = run_first<before_qkv>(ctf::nn::multi_head_attention<Cfg>(x));
    auto fused = test::expect_fused<ctf::passes::fuse_qkv>(g, "let qkv(q_proj_weight) " + wide);
    const std::string text = ctf::to_string(fused);
    EXPECT_NE(text.find("concat"), std::string::npos) << text;
    EXPECT_NE(text.find("columns 0:16"), std::string::npos) << text;
}

TEST(FuseQkv, MultiHead) { check_qkv<ctf::nn::config{.d_model = 16, .heads = 4}>("[B,_6,_48]"); }

TEST(FuseQkv, GroupedQuery) { check_qkv<ctf::nn::config{.d_model = 16, .heads = 4, .kv_heads = 2}>("[B,_6,_32]"); }

TEST(FuseQkv, CrossAttentionKeepsSeparateProjections) {
    constexpr ctf::nn::config cfg{.d_model = 16, .heads = 4};
    auto q = ctf::input<"q", ctf::batch, 6, 16>();
    auto kv = ctf::input<"kv", ctf::batch, 9, 16>();
    auto g = run_first<ctf::passes::pass_count - 2>(ctf::nn::multi_head_attention<cfg>(q, kv, kv));
    EXPECT_EQ(ctf::to_string(ctf::passes::run_pass<ctf::passes::fuse_qkv>(g)), ctf::to_string(g));
}
}  // namespace
