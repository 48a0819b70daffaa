// fuse_positional_encoding: the PE table added to a gemm's output joins the gemm's epilogue and
// repeats for every sequence of the batch.
#include "support/fusion.hpp"

namespace {
using ctf::passes::fuse_linear;
using ctf::passes::fuse_positional_encoding;

TEST(FusePositionalEncoding, TableJoinsTheEpilogue) {
    auto x = ctf::input<"x", ctf::batch, 6, 8>();
    auto embedded = ctf::linear(x, ctf::weight<"W", 16, 8>(), ctf::weight<"b", 16>());
    auto g = ctf::passes::run_pass<fuse_linear>(ctf::nn::add_positional_encoding(embedded));
    test::expect_fused<fuse_positional_encoding>(g, "gemm epilogue: +bias +residual [B,_6,_16]", 3);
}
}  // namespace
