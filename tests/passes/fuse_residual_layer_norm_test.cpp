// fuse_residual_layer_norm: layer_norm(a + b) becomes one residual_layer_norm node.
#include "support/fusion.hpp"

namespace {
TEST(FuseResidualLayerNorm, SumUnderLayerNorm) {
    auto a = ctf::input<"a", ctf::batch, 3, 8>();
    auto b = ctf::input<"b", ctf::batch, 3, 8>();
    auto g = ctf::layer_norm(a + b, ctf::weight<"gamma", 8>(), ctf::weight<"beta", 8>());
    test::expect_fused<ctf::passes::fuse_residual_layer_norm>(g, "residual_layer_norm eps=1e-05 [B,_3,_8]");
}
}  // namespace
