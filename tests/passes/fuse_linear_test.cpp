// fuse_linear: x·Wᵀ (+ b) with W, b weights becomes one gemm node; a product with a non-weight
// right-hand side stays a matmul.
#include "support/fusion.hpp"

namespace {
using ctf::passes::fuse_linear;

auto x = ctf::input<"x", ctf::batch, 3, 8>();
auto w = ctf::weight<"W", 5, 8>();
auto b = ctf::weight<"b", 5>();

TEST(FuseLinear, ProductAndBias) {
    test::expect_fused<fuse_linear>(ctf::linear(x, w, b), "gemm epilogue: +bias [B,_3,_5]");
}

TEST(FuseLinear, ProductWithoutBias) {
    test::expect_fused<fuse_linear>(ctf::linear(x, w), "gemm [B,_3,_5]");
}

TEST(FuseLinear, ProductOfTwoInputsStaysAMatmul) {
    auto y = ctf::input<"y", ctf::batch, 5, 8>();
    auto g = ctf::matmul(x, ctf::transpose(y));
    EXPECT_EQ(ctf::to_string(ctf::passes::run_pass<fuse_linear>(g)), ctf::to_string(g));
}
}  // namespace
