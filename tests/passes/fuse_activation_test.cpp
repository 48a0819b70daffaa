// fuse_activation: relu or gelu of a gemm becomes the gemm's epilogue.
#include "support/fusion.hpp"

namespace {
using ctf::passes::fuse_activation;
using ctf::passes::fuse_linear;

auto x = ctf::input<"x", ctf::batch, 3, 8>();
auto w = ctf::weight<"W", 5, 8>();
auto b = ctf::weight<"b", 5>();

TEST(FuseActivation, Relu) {
    auto linear = ctf::passes::run_pass<fuse_linear>(ctf::relu(ctf::linear(x, w, b)));
    test::expect_fused<fuse_activation>(linear, "gemm epilogue: +bias relu [B,_3,_5]");
}

TEST(FuseActivation, GeluWithoutBias) {
    auto linear = ctf::passes::run_pass<fuse_linear>(ctf::gelu(ctf::linear(x, w)));
    test::expect_fused<fuse_activation>(linear, "gemm epilogue: gelu [B,_3,_5]");
}
}  // namespace
