// ctformer against PyTorch's nn.TransformerEncoderLayer (post-LN and norm_first, relu and gelu) and a
// 2-layer nn.TransformerEncoder (golden files, see support/golden.hpp).
#include "support/golden.hpp"

namespace {
using ctf::nn::activation;
using ctf::nn::norm_position;
auto x = ctf::input<"x", ctf::batch, 7, 32>();

template <activation Act, norm_position Norm>
constexpr ctf::nn::config layer{.d_model = 32, .heads = 4, .d_ff = 64, .act = Act, .norm = Norm};

TEST(PyTorchTransformerEncoderLayer, PostNormRelu) {
    test::expect_golden(ctf::nn::encoder_layer<layer<activation::relu, norm_position::post>>(x),
                        "encoder_layer_post_relu");
}

TEST(PyTorchTransformerEncoderLayer, PostNormGelu) {
    test::expect_golden(ctf::nn::encoder_layer<layer<activation::gelu, norm_position::post>>(x),
                        "encoder_layer_post_gelu");
}

TEST(PyTorchTransformerEncoderLayer, NormFirstRelu) {
    test::expect_golden(ctf::nn::encoder_layer<layer<activation::relu, norm_position::pre>>(x),
                        "encoder_layer_pre_relu");
}

TEST(PyTorchTransformerEncoderLayer, NormFirstGelu) {
    test::expect_golden(ctf::nn::encoder_layer<layer<activation::gelu, norm_position::pre>>(x),
                        "encoder_layer_pre_gelu");
}

TEST(PyTorchTransformerEncoder, TwoLayers) {
    test::expect_golden(ctf::nn::encoder<layer<activation::relu, norm_position::post>, 2>(x), "encoder_2_layers");
}
}  // namespace
