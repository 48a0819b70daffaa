// fuse_kv: cross-attention's K and V projections of one memory become one gemm against [Wk|Wv],
// bound once; the queries keep their own projection. Self-attention is fuse_qkv's, so nothing is
// left for fuse_kv there.
#include "support/fusion.hpp"

namespace {
using ctf::passes::run_first;
constexpr std::size_t before_kv = ctf::passes::pass_count - 1;

template <ctf::nn::config Cfg>
void check_kv(const std::string& wide) {
    auto q = ctf::input<"q", ctf::batch, 6, 16>();
    auto memory = ctf::input<"memory", ctf::batch, 9, 16>();
    auto g = run_first<before_kv>(ctf::nn::multi_head_attention<Cfg>(q, memory, memory));
    auto fused = test::expect_fused<ctf::passes::fuse_kv>(g, "let kv(k_proj_weight) " + wide);
    const std::string text = ctf::to_string(fused);
    EXPECT_NE(text.find("weight q_proj_weight"), std::string::npos) << text;
    EXPECT_NE(text.find("columns 0:"), std::string::npos) << text;
}

TEST(FuseKv, MultiHead) { check_kv<ctf::nn::config{.d_model = 16, .heads = 4}>("[B,_9,_32]"); }

TEST(FuseKv, MultiQuery) { check_kv<ctf::nn::config{.d_model = 16, .heads = 4, .kv_heads = 1}>("[B,_9,_8]"); }

TEST(FuseKv, SelfAttentionIsLeftToFuseQkv) {
    auto x = ctf::input<"x", ctf::batch, 6, 16>();
    auto g = run_first<before_kv>(ctf::nn::multi_head_attention<ctf::nn::config{.d_model = 16, .heads = 4}>(x));
    EXPECT_EQ(ctf::to_string(ctf::passes::run_pass<ctf::passes::fuse_kv>(g)), ctf::to_string(g));
}
}  // namespace
