#include <ctformer/inspect/print.hpp>

#include "support/tensors.hpp"

namespace {

TEST(Print, OneNodeALineIndentedByDepthWithShapes) {
    auto x = ctf::input<"x", 2, 3>();
    auto w = ctf::weight<"w", 3, 3>();
    auto y = ctf::softmax(ctf::mask(ctf::scale(ctf::matmul(x, w), 0.5), ctf::causal));
    EXPECT_EQ(ctf::to_string(y),
              "softmax [_2,_3]\n"
              "  mask causal [_2,_3]\n"
              "    scale 0.5 [_2,_3]\n"
              "      matmul [_2,_3]\n"
              "        input x [_2,_3]\n"
              "        weight w [_3,_3]\n");
}

TEST(Print, GraphsListBindingsThenTheResult) {
    auto x = ctf::input<"x", ctf::batch, 4>();
    auto h = ctf::bind<"h">(ctf::layer_norm(x, ctf::weight<"g", 4>(), ctf::weight<"b", 4>()));
    auto y = h + ctf::relu(h);
    EXPECT_EQ(ctf::to_string(y),
              "let h [B,_4] =\n"
              "  layer_norm eps=1e-05 [B,_4]\n"
              "    input x [B,_4]\n"
              "    weight g [_4]\n"
              "    weight b [_4]\n"
              "result [B,_4] =\n"
              "  add [B,_4]\n"
              "    %h [B,_4]\n"
              "    relu [B,_4]\n"
              "      %h [B,_4]\n");
}

TEST(Print, ConstantsAndBooleanInputs) {
    auto scores = ctf::input<"s", ctf::batch, 5, 6>();
    auto y = ctf::mask(scores + ctf::nn::positional_encoding<5, 6>(), ctf::attend(ctf::bool_input<"m", 5, 6>()));
    EXPECT_NE(ctf::to_string(y).find("constant positional_encoding [_5,_6]"), std::string::npos);
}

}  // namespace
