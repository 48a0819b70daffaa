// fuse_position_embedding: token rows gathered and their positions' rows added become one gather; a
// position table added to anything else stays leading_rows + add.
#include "support/fusion.hpp"

namespace {
using ctf::passes::fuse_position_embedding;

TEST(FusePositionEmbedding, PositionsJoinTheGather) {
    auto ids = ctf::id_input<"ids", ctf::batch, ctf::upto<6>>();
    auto h = ctf::nn::add_position_embedding<"wpe", 8>(ctf::nn::embedding<"wte", 11, 4>(ids));
    test::expect_fused<fuse_position_embedding>(h, "embedding + positions [B,L<=6,_4]", 3, 11);
}

TEST(FusePositionEmbedding, OtherSumsStayApart) {
    auto x = ctf::input<"x", ctf::batch, 5, 4>();
    auto g = ctf::passes::run_pass<fuse_position_embedding>(ctf::nn::add_position_embedding<"wpe", 8>(x));
    EXPECT_NE(ctf::to_string(g).find("leading_rows [_5,_4]"), std::string::npos) << ctf::to_string(g);
}
}  // namespace
