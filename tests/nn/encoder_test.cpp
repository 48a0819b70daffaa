// Encoder layers, post-LN and pre-LN, with sublayers whose outputs are known, and the seeds'
// 6-layer encoder.
#include <ctformer/reference/random_inputs.hpp>

#include "support/tensors.hpp"

namespace {

constexpr ctf::nn::config small{.d_model = 4, .heads = 2, .d_ff = 8};
constexpr ctf::nn::config small_pre_ln{.d_model = 4, .heads = 2, .d_ff = 8, .norm = ctf::nn::norm_position::pre};

// Weights under which self-attention outputs 0 and the feed-forward network outputs c = [1,0,0,0]
// (out_proj and linear2.weight are zero), with LayerNorm gamma = 1 and beta = 0.
template <class Graph>
ctf::tensor_map known_sublayers(const Graph& layer) {
    ctf::tensor_map in = ctf::reference::random_inputs(layer, 1);
    in["x"] = test::tensor({2, 4}, {1, 2, 3, 4, 2, 0, 0, -2});
    in["self_attn.out_proj.weight"] = test::filled({4, 4}, 0);
    in["self_attn.out_proj.bias"] = test::filled({4}, 0);
    in["linear2.weight"] = test::filled({4, 8}, 0);
    in["linear2.bias"] = test::tensor({4}, {1, 0, 0, 0});
    for (const char* norm : {"norm1", "norm2"}) {
        in[std::string(norm) + ".weight"] = test::filled({4}, 1);
        in[std::string(norm) + ".bias"] = test::filled({4}, 0);
    }
    return in;
}

// LayerNorm of one row, by the formula.
std::vector<double> normalized(std::vector<double> row) {
    double mean = 0, var = 0;
    for (double v : row) mean += v / row.size();
    for (double v : row) var += (v - mean) * (v - mean) / row.size();
    for (double& v : row) v = (v - mean) / std::sqrt(var + 1e-5);
    return row;
}

TEST(EncoderLayer, PostLayerNormIsNormOfResidualSums) {
    auto x = ctf::input<"x", 2, 4>();
    auto layer = ctf::nn::encoder_layer<small>(x);
    // h = LN(x + 0); y = LN(h + c)
    std::vector<double> want;
    for (std::vector<double> row : {std::vector<double>{1, 2, 3, 4}, std::vector<double>{2, 0, 0, -2}}) {
        auto h = normalized(row);
        h[0] += 1;
        for (double v : normalized(h)) want.push_back(v);
    }
    test::expect_close(ctf::reference::evaluate(layer, known_sublayers(layer)), want, {.atol = 1e-9});
}

TEST(EncoderLayer, PreLayerNormAddsSublayersToTheResidual) {
    auto x = ctf::input<"x", 2, 4>();
    auto layer = ctf::nn::encoder_layer<small_pre_ln>(x);
    // y = x + 0 + c
    test::expect_close(ctf::reference::evaluate(layer, known_sublayers(layer)), {2, 2, 3, 4, 3, 0, 0, -2}, {.atol = 1e-12});
}

TEST(EncoderLayer, WithWeightsKeepsTheAttentionWeightsAndTheSameOutput) {
    auto x = ctf::input<"x", 3, 4>();
    auto layer = ctf::nn::encoder_layer<small>(x);
    auto with_weights = ctf::nn::encoder_layer_with_weights<small>(x);
    const ctf::tensor_map in = ctf::reference::random_inputs(layer, 1);
    ctf::reference::evaluator evaluate(in);
    const auto want = ctf::reference::evaluate(layer, in);
    test::expect_close(evaluate(with_weights), want.data, {.atol = 0});
    const auto& weights = evaluate.intermediate("self_attn.attn_weights");
    ASSERT_EQ(weights.dims, (ctf::dims_t{2, 3, 3}));
    for (std::size_t row = 0; row < 6; ++row)
        EXPECT_NEAR(weights[row * 3] + weights[row * 3 + 1] + weights[row * 3 + 2], 1.0, 1e-12) << row;
}

template <class Graph>
std::vector<std::string> binding_names(const Graph& g) {
    std::vector<std::string> names;
    std::apply([&](const auto&... b) { (names.emplace_back(b.name.view()), ...); }, g.bindings);
    return names;
}

TEST(Encoder, SixLayersAreOneBodyRepeated) {
    constexpr ctf::nn::config seeds{.d_model = 512, .heads = 8, .d_ff = 2048};
    auto x = ctf::input<"x", ctf::batch, 10, 512>();
    auto encoder = ctf::nn::encoder<seeds, 6>(ctf::nn::add_positional_encoding(x));
    static_assert(std::is_same_v<ctf::shape_of_t<decltype(encoder)>, ctf::shape<ctf::batch, 10, 512>>);

    // the encoded input, then the repeat, whose body is one layer: norm1 and output
    EXPECT_EQ(binding_names(encoder), (std::vector<std::string>{"layers.input", "layers.output"}));
    const auto& repeat = std::get<1>(encoder.bindings);
    static_assert(std::remove_cvref_t<decltype(repeat)>::count == 6);
    EXPECT_EQ(binding_names(repeat.body), (std::vector<std::string>{"norm1", "output"}));
    // the same type whatever the depth: one layer's body
    using body_of_6 = decltype(repeat.body);
    using body_of_12 = decltype(std::get<1>(ctf::nn::encoder<seeds, 12>(ctf::nn::add_positional_encoding(x)).bindings).body);
    static_assert(std::is_same_v<body_of_6, body_of_12>);
}

TEST(Encoder, EachLayerReadsItsOwnWeights) {
    constexpr ctf::nn::config small_cfg{.d_model = 4, .heads = 2, .d_ff = 8};
    auto x = ctf::input<"x", ctf::batch, 3, 4>();
    auto encoder = ctf::nn::encoder<small_cfg, 3>(x);
    const ctf::tensor_map in = ctf::reference::random_inputs(encoder, 2);
    EXPECT_TRUE(in.contains("layers.2.linear1.weight"));
    EXPECT_FALSE(in.contains("linear1.weight"));
    // three layers in turn, each evaluated alone with its own weights renamed
    ctf::host_tensor<double> h = ctf::reference::evaluate(x + x, {{"x", in.at("x")}});
    ctf::host_tensor<float> carried(in.at("x").dims, {in.at("x").data.begin(), in.at("x").data.end()});
    auto layer = ctf::nn::encoder_layer<small_cfg>(x);
    for (int i = 0; i < 3; ++i) {
        ctf::tensor_map one{{"x", carried}};
        const std::string prefix = "layers." + std::to_string(i) + ".";
        for (const auto& [name, t] : in)
            if (name.starts_with(prefix)) one[name.substr(prefix.size())] = t;
        h = ctf::reference::evaluate(layer, one);
        carried = ctf::host_tensor<float>(h.dims, {h.data.begin(), h.data.end()});  // fp32 between layers
    }
    test::expect_close(ctf::reference::evaluate(encoder, in), h, {.atol = 1e-6});
}

TEST(Encoder, SeedsSixLayerEncoderGivesNormalizedRows) {
    constexpr ctf::nn::config seeds{.d_model = 512, .heads = 8, .d_ff = 2048};
    auto x = ctf::input<"x", ctf::batch, 10, 512>();
    auto encoder = ctf::nn::encoder<seeds, 6>(x);
    ctf::tensor_map in = ctf::reference::random_inputs(encoder, 2);
    in["layers.5.norm2.weight"] = test::filled({512}, 1);
    in["layers.5.norm2.bias"] = test::filled({512}, 0);

    const auto y = ctf::reference::evaluate(encoder, in);
    ASSERT_EQ(y.dims, (ctf::dims_t{2, 10, 512}));
    for (std::size_t row = 0; row < y.size(); row += 512) {
        double mean = 0, var = 0;
        for (std::size_t j = 0; j < 512; ++j) mean += y[row + j] / 512;
        for (std::size_t j = 0; j < 512; ++j) var += (y[row + j] - mean) * (y[row + j] - mean) / 512;
        EXPECT_NEAR(mean, 0.0, 1e-9);
        EXPECT_NEAR(var, 1.0, 1e-2);  // var / (var + eps): rows of small variance fall a little short
    }
}

}  // namespace
