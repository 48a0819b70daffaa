// The decoder and nn.Transformer as graphs: the memory computed once, outside the repeated layer;
// the weights by PyTorch's names; a stack's body one layer whatever its depth. (Their values are
// checked against PyTorch in pytorch/decoder_test.cpp.)
#include <set>

#include <ctformer/ctformer.hpp>
#include <gtest/gtest.h>

namespace {
constexpr ctf::nn::config cfg{.d_model = 8, .heads = 2, .d_ff = 16};
auto src = ctf::input<"src", ctf::batch, 7, 8>();
auto tgt = ctf::input<"tgt", ctf::batch, 5, 8>();

template <class Graph>
std::vector<std::string> binding_names(const Graph& g) {
    std::vector<std::string> names;
    std::apply([&](const auto&... b) { (names.emplace_back(b.name.view()), ...); }, g.bindings);
    return names;
}

template <class Graph>
std::set<std::string> tensor_names(const Graph& g) {
    std::set<std::string> names;
    ctf::for_each_tensor(g, [&]<class Leaf>(const std::string& name) { names.insert(name); });
    return names;
}

TEST(Transformer, MemoryIsComputedOnceBeforeTheDecoderLayers) {
    auto model = ctf::nn::transformer<cfg, 2, 3>(src, tgt, ctf::nn::tgt_masks(ctf::causal));
    EXPECT_EQ(binding_names(model),
              (std::vector<std::string>{"encoder.layers.output", "memory", "decoder.layers.output"}));
    const auto& decoder = std::get<2>(model.bindings);
    static_assert(std::remove_cvref_t<decltype(decoder)>::count == 3);
    EXPECT_EQ(binding_names(decoder.body), (std::vector<std::string>{"norm1", "norm2", "output"}));
    using body_of_3 = decltype(decoder.body);
    auto deeper = ctf::nn::transformer<cfg, 2, 12>(src, tgt, ctf::nn::tgt_masks(ctf::causal));
    using body_of_12 = decltype(std::get<2>(deeper.bindings).body);
    static_assert(std::is_same_v<body_of_3, body_of_12>);
}

TEST(Transformer, ReadsPyTorchsNames) {
    const std::set<std::string> names = tensor_names(ctf::nn::transformer<cfg, 1, 2>(src, tgt));
    for (const char* name : {"src", "tgt", "encoder.layers.0.self_attn.q_proj_weight", "encoder.layers.0.norm2.bias",
                             "encoder.norm.weight", "decoder.layers.1.self_attn.out_proj.bias",
                             "decoder.layers.1.multihead_attn.k_proj_weight", "decoder.layers.0.norm3.weight",
                             "decoder.layers.1.linear2.bias", "decoder.norm.bias"})
        EXPECT_TRUE(names.contains(name)) << name;
    EXPECT_FALSE(names.contains("decoder.layers.2.norm1.weight"));
    EXPECT_FALSE(names.contains("encoder.layers.0.norm3.weight"));
}

TEST(DecoderLayer, MasksGoToTheirAttention) {
    auto tgt_pad = ctf::bool_input<"tgt_pad", ctf::batch, 5>();
    auto memory_pad = ctf::bool_input<"memory_pad", ctf::batch, 7>();
    const auto names = tensor_names(ctf::nn::decoder_layer<cfg>(
        tgt, src, ctf::nn::memory_masks(ctf::key_padding(memory_pad)), ctf::nn::tgt_masks(ctf::key_padding(tgt_pad))));
    EXPECT_TRUE(names.contains("tgt_pad") && names.contains("memory_pad"));
    // A tgt mask of the memory's length would not fit the self-attention's scores [B, 2, 5, 5].
    using wrong = decltype(ctf::nn::decoder_layer<cfg>(tgt, src, ctf::nn::tgt_masks(ctf::key_padding(memory_pad))));
    static_assert(!ctf::expression<wrong> && !ctf::graph_type<wrong>);
}
}  // namespace
