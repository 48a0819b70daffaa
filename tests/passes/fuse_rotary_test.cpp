// fuse_rotary: rotary positions on a projection become its GEMM's epilogue, reading a table of the
// angles; on anything else (an activation's output) they stay a step. fuse_qkv then joins q, k and v
// with the rotation on q's and k's columns only.
#include "support/fusion.hpp"

namespace {
using ctf::passes::fuse_linear;
using ctf::passes::fuse_rotary;

auto x = ctf::input<"x", ctf::batch, 6, 16>();
constexpr ctf::rotary_spec rope{.head_dim = 4, .theta = 500000};

TEST(FuseRotary, OnAProjection) {
    auto g = ctf::passes::run_pass<fuse_linear>(ctf::rotary<rope>(ctf::linear(x, ctf::weight<"W", 8, 16>(), ctf::weight<"b", 8>())));
    auto fused = test::expect_fused<fuse_rotary>(
        g, "gemm epilogue: +bias rotary(columns 0:8 head_dim=4 dims=4 theta=500000 half) [B,_6,_8]");
    EXPECT_NE(ctf::to_string(fused).find("constant rotary_angles theta=500000 [_6,_4]"), std::string::npos)
        << ctf::to_string(fused);
}

TEST(FuseRotary, NotAfterAnActivation) {
    auto g = ctf::passes::run_first<ctf::passes::pass_count>(ctf::rotary<rope>(ctf::relu(ctf::linear(x, ctf::weight<"W", 8, 16>()))));
    EXPECT_NE(ctf::to_string(g).find("rotary head_dim=4"), std::string::npos) << ctf::to_string(g);
}

// q and k turned alike, v not: one GEMM of 48 columns, the first 32 rotated; with k turned otherwise
// than q, three GEMMs.
template <ctf::rotary_spec KeySpec>
std::string fused_attention() {
    auto q = ctf::split_heads<4>(ctf::rotary<rope>(ctf::linear(x, ctf::weight<"q", 16, 16>())));
    auto k = ctf::split_heads<4>(ctf::rotary<KeySpec>(ctf::linear(x, ctf::weight<"k", 16, 16>())));
    auto v = ctf::split_heads<4>(ctf::linear(x, ctf::weight<"v", 16, 16>()));
    auto g = ctf::passes::run_first<ctf::passes::pass_count - 1>(ctf::nn::scaled_dot_product_attention(q, k, v, ctf::causal));
    return ctf::to_string(g);
}

TEST(FuseRotary, QueriesAndKeysInOneGemm) {
    const std::string joined = fused_attention<rope>();
    EXPECT_NE(joined.find("gemm epilogue: rotary(columns 0:32 head_dim=4"), std::string::npos) << joined;
    EXPECT_NE(joined.find("[B,_6,_48]"), std::string::npos) << joined;
    const std::string apart = fused_attention<ctf::rotary_spec{.head_dim = 4}>();  // θ 10000
    EXPECT_EQ(apart.find("[B,_6,_48]"), std::string::npos) << apart;
    EXPECT_NE(apart.find("rotary(columns 0:16 head_dim=4 dims=4 theta=10000 half)"), std::string::npos) << apart;
}
}  // namespace
