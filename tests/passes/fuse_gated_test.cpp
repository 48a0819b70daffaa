// fuse_gated: act(gate(x)) · up(x), two GEMMs of one input, becomes one gemm over [W_gate | W_up]
// with the product in its epilogue, whichever side the activation is on; a product of GEMMs of
// different inputs, or with a residual already on the gate, stays as it is.
#include "support/fusion.hpp"

namespace {
using ctf::passes::fuse_activation;
using ctf::passes::fuse_gated;
using ctf::passes::fuse_linear;

auto x = ctf::input<"x", ctf::batch, 3, 8>();
auto gate = ctf::weight<"gate", 5, 8>();
auto up = ctf::weight<"up", 5, 8>();

template <class G>
auto linear_and_activation(G g) {
    return ctf::passes::run_pass<fuse_activation>(ctf::passes::run_pass<fuse_linear>(g));
}

TEST(FuseGated, SiluGateTimesUp) {
    auto g = linear_and_activation(ctf::silu(ctf::linear(x, gate)) * ctf::linear(x, up));
    auto fused = test::expect_fused<fuse_gated>(g, "gemm epilogue: silu ·up [B,_3,_5]");
    EXPECT_NE(ctf::to_string(fused).find("concat [_10,_8]"), std::string::npos) << ctf::to_string(fused);
}

TEST(FuseGated, UpTimesGateWithBiases) {
    auto bg = ctf::weight<"bg", 5>();
    auto bu = ctf::weight<"bu", 5>();
    auto g = linear_and_activation(ctf::linear(x, up, bu) * ctf::gelu(ctf::linear(x, gate, bg)));
    test::expect_fused<fuse_gated>(g, "gemm epilogue: +bias gelu ·up [B,_3,_5]");
}

TEST(FuseGated, DifferentInputsStayApart) {
    auto y = ctf::input<"y", ctf::batch, 3, 8>();
    auto g = linear_and_activation(ctf::silu(ctf::linear(x, gate)) * ctf::linear(y, up));
    EXPECT_EQ(ctf::to_string(ctf::passes::run_pass<fuse_gated>(g)), ctf::to_string(g));
}
}  // namespace
