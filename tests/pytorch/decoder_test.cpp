// ctformer against PyTorch's nn.TransformerDecoderLayer (post-LN with a causal tgt_mask and both
// key-padding masks; pre-LN gelu with a boolean tgt_mask and a float memory_mask), a 2-layer
// nn.TransformerDecoder with its final norm, and nn.Transformer with 2 + 2 layers at run-time lengths
// (golden files, see support/golden.hpp). Targets are 5 long, sources 7. The layers with each mask
// kind are checked twice: the reference evaluator (the oracle of every kernel test), and the layer
// compiled; the stacks compiled, end to end.
#include "support/golden.hpp"

namespace {
using ctf::nn::activation;
using ctf::nn::norm_position;
auto tgt = ctf::input<"tgt", ctf::batch, 5, 32>();
auto memory = ctf::input<"memory", ctf::batch, 7, 32>();

constexpr ctf::nn::config post{.d_model = 32, .heads = 4, .d_ff = 64};
constexpr ctf::nn::config pre_gelu{.d_model = 32, .heads = 4, .d_ff = 64, .act = activation::gelu,
                                   .norm = norm_position::pre};

TEST(PyTorchTransformerDecoderLayer, PostNormCausalAndKeyPadding) {
    auto tgt_pad = ctf::bool_input<"tgt_pad", ctf::batch, 5>();
    auto memory_pad = ctf::bool_input<"memory_pad", ctf::batch, 7>();
    auto self_masks = ctf::nn::tgt_masks(ctf::causal, ctf::key_padding(tgt_pad));
    auto cross_masks = ctf::nn::memory_masks(ctf::key_padding(memory_pad));
    const auto layer = ctf::nn::decoder_layer<post>(tgt, memory, self_masks, cross_masks);
    test::expect_golden_semantics(layer, "decoder_layer_post_masks");
    test::expect_golden(layer, "decoder_layer_post_masks");
}

TEST(PyTorchTransformerDecoderLayer, NormFirstGeluBoolTgtMaskFloatMemoryMask) {
    auto tgt_attend = ctf::bool_input<"tgt_attend", 5, 5>();
    auto memory_bias = ctf::input<"memory_bias", 5, 7>();
    const auto layer = ctf::nn::decoder_layer<pre_gelu>(tgt, memory, ctf::nn::memory_masks(ctf::additive(memory_bias)),
                                                        ctf::nn::tgt_masks(ctf::attend(tgt_attend)));
    test::expect_golden_semantics(layer, "decoder_layer_pre_gelu_masks");
    test::expect_golden(layer, "decoder_layer_pre_gelu_masks");
}

auto two_layer_decoder() {
    return ctf::nn::norm<post, "norm">(ctf::nn::decoder<post, 2>(tgt, memory, ctf::nn::tgt_masks(ctf::causal)));
}

TEST(PyTorchTransformerDecoder, TwoLayersAndFinalNorm) { test::expect_golden(two_layer_decoder(), "decoder_2_layers"); }

TEST(PyTorchTransformerDecoder, SwappedAttentionsFailTheComparison) {
    ctf::tensor_map tensors = test::golden("decoder_2_layers");
    const ctf::host_tensor<float> want = tensors.at("expected");
    std::swap(tensors.at("layers.1.self_attn.out_proj.bias"), tensors.at("layers.1.multihead_attn.out_proj.bias"));
    EXPECT_FALSE(test::compare(test::run_compiled(two_layer_decoder(), tensors), want, test::fp32_against_pytorch).ok());
}

// One model for sources and targets up to 9 long, two length variables, run at 7 and 5.
TEST(PyTorchTransformer, TwoAndTwoLayersAtRunTimeLengths) {
    auto src = ctf::input<"src", ctf::batch, ctf::upto<9, 1>, 32>();
    auto tgt_upto = ctf::input<"tgt", ctf::batch, ctf::upto<9>, 32>();
    auto src_pad = ctf::bool_input<"src_pad", ctf::batch, ctf::upto<9, 1>>();
    const auto graph = ctf::nn::transformer<post, 2, 2>(src, tgt_upto, ctf::nn::src_masks(ctf::key_padding(src_pad)),
                                                        ctf::nn::tgt_masks(ctf::causal),
                                                        ctf::nn::memory_masks(ctf::key_padding(src_pad)));
    ctf::tensor_map tensors = test::golden("transformer_2_2");
    const ctf::host_tensor<float> want = tensors.at("expected");
    test::expect_close(test::run_compiled(graph, tensors), want, test::fp32_against_pytorch, "transformer_2_2");
    std::swap(tensors.at("encoder.norm.bias"), tensors.at("decoder.norm.bias"));
    EXPECT_FALSE(test::compare(test::run_compiled(graph, tensors), want, test::fp32_against_pytorch).ok());
}
}  // namespace
