// ctformer against PyTorch's nn.TransformerEncoderLayer (post-LN and norm_first, relu and gelu, BERT's
// eps) and nn.TransformerEncoder of 2 and 12 layers (golden files, see support/golden.hpp); one model
// for any length against PyTorch at three lengths and against its nested-tensor fast path. The
// golden files can see a weight taken from the wrong name: with two same-shaped weights swapped, the
// comparison fails.
#include "support/golden.hpp"

namespace {
using ctf::nn::activation;
using ctf::nn::norm_position;
auto x = ctf::input<"x", ctf::batch, 7, 32>();

template <activation Act, norm_position Norm, double Eps = 1e-5>
constexpr ctf::nn::config layer{.d_model = 32, .heads = 4, .d_ff = 64, .act = Act, .norm = Norm, .eps = Eps};

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

// The first LayerNorm sees a variance near 1e-6 there: eps 1e-12 matches, the default 1e-5 does not.
TEST(PyTorchTransformerEncoderLayer, BertLayerNormEps) {
    constexpr auto bert_eps = layer<activation::gelu, norm_position::post, 1e-12>;
    test::expect_golden(ctf::nn::encoder_layer<bert_eps>(x), "encoder_layer_eps_1e-12");
    const ctf::tensor_map tensors = test::golden("encoder_layer_eps_1e-12");
    const auto default_eps = ctf::nn::encoder_layer<layer<activation::gelu, norm_position::post>>(x);
    EXPECT_FALSE(test::compare(test::run_compiled(default_eps, tensors), tensors.at("expected"),
                               test::fp32_against_pytorch).ok());
}

TEST(PyTorchTransformerEncoder, TwoLayers) {
    test::expect_golden(ctf::nn::encoder<layer<activation::relu, norm_position::post>, 2>(x), "encoder_2_layers");
}

TEST(PyTorchTransformerEncoder, TwelveLayers) {
    test::expect_golden(ctf::nn::encoder<layer<activation::relu, norm_position::post>, 12>(x), "encoder_12_layers");
}

// One model declared for up to 16 positions, at lengths 1, 9 and 16, and on a batch of those three
// lengths (padded to 16, with their lengths) against nn.TransformerEncoder's nested tensors.
TEST(PyTorchTransformerEncoder, AnyLengthAndMixedLengths) {
    auto upto_16 = ctf::input<"x", ctf::batch, ctf::upto<16>, 32>();
    auto model = ctf::compile(ctf::nn::encoder<layer<activation::relu, norm_position::post>, 2>(upto_16));
    const ctf::tensor_map tensors = test::golden("encoder_lengths");
    model.bind(tensors, test::with_outputs);
    for (const char* length : {"1", "9", "16"})
        test::expect_close(model.run({{"x", tensors.at(std::string("x_") + length)}}, {2}),
                           tensors.at(std::string("expected_") + length), test::fp32_against_pytorch,
                           std::string("length ") + length);
    ctf::host_tensor<float> mixed;
    model.run({{"x", tensors.at("x")}}, mixed, {.threads = 2, .lengths = {1, 9, 16}});
    test::expect_close(mixed, tensors.at("expected_mixed"), test::fp32_against_pytorch, "mixed lengths");
}

// The golden tensors with two of them swapped.
ctf::tensor_map swapped(ctf::tensor_map tensors, const std::string& a, const std::string& b) {
    std::swap(tensors.at(a), tensors.at(b));
    return tensors;
}

// The layers' tensors with layers.0. and layers.1. exchanged.
ctf::tensor_map layers_swapped(const ctf::tensor_map& tensors) {
    ctf::tensor_map out = tensors;
    for (const auto& [name, t] : tensors)
        for (const auto& [from, to] : {std::pair{"layers.0.", "layers.1."}, std::pair{"layers.1.", "layers.0."}})
            if (name.starts_with(from)) out.at(to + name.substr(9)) = t;
    return out;
}

TEST(PyTorchTransformerEncoder, SwappedWeightsFailTheComparison) {
    const auto graph = ctf::nn::encoder<layer<activation::relu, norm_position::post>, 2>(x);
    const ctf::tensor_map tensors = test::golden("encoder_2_layers");
    const ctf::host_tensor<float>& want = tensors.at("expected");
    ASSERT_TRUE(test::compare(test::run_compiled(graph, tensors), want, test::fp32_against_pytorch).ok());
    const std::pair<const char*, ctf::tensor_map> cases[] = {
        {"norm1 / norm2", swapped(tensors, "layers.0.norm1.weight", "layers.0.norm2.weight")},
        {"gamma / beta", swapped(tensors, "layers.1.norm2.weight", "layers.1.norm2.bias")},
        {"q / k projections", swapped(tensors, "layers.0.self_attn.q_proj_bias", "layers.0.self_attn.k_proj_bias")},
        {"layers.0 / layers.1", layers_swapped(tensors)},
    };
    for (const auto& [what, wrong] : cases)
        EXPECT_FALSE(test::compare(test::run_compiled(graph, wrong), want, test::fp32_against_pytorch).ok()) << what;
}
}  // namespace
