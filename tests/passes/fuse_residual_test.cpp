// fuse_residual: a gemm plus a value of its shape (either side) becomes the gemm's epilogue.
#include "support/fusion.hpp"

namespace {
using ctf::passes::fuse_linear;
using ctf::passes::fuse_residual;

auto x = ctf::input<"x", ctf::batch, 3, 8>();
auto w = ctf::weight<"W", 8, 8>();
auto b = ctf::weight<"b", 8>();

TEST(FuseResidual, ResidualOnEitherSide) {
    auto right = ctf::passes::run_pass<fuse_linear>(ctf::linear(x, w, b) + x);
    test::expect_fused<fuse_residual>(right, "gemm epilogue: +bias +residual [B,_3,_8]");
    auto left = ctf::passes::run_pass<fuse_linear>(x + ctf::linear(x, w, b));
    test::expect_fused<fuse_residual>(left, "gemm epilogue: +bias +residual [B,_3,_8]");
}

TEST(FuseResidual, BroadcastAddIsNotAResidual) {
    auto g = ctf::passes::run_pass<fuse_linear>(ctf::linear(x, w) + ctf::weight<"c", 8>());
    EXPECT_EQ(ctf::to_string(ctf::passes::run_pass<fuse_residual>(g)), ctf::to_string(g));
}
}  // namespace
