// ctformer::compile as users build it (the static target of CTFORMER_ARCH_FLAGS): results that do
// not depend on the thread count (bitwise), runs from several threads at once, typed errors for
// missing or misshapen tensors, graphs with steps no pass fuses, and what explain() shows.
#include <ctformer/compile.hpp>

#include <thread>

#include "support/model_check.hpp"

namespace {
constexpr ctf::nn::config cfg{.d_model = 64, .heads = 4, .d_ff = 128};
auto x = ctf::input<"x", ctf::batch, 37, 64>();

TEST(Run, ResultsDoNotDependOnTheThreadCount) {
    auto graph = ctf::nn::encoder<cfg, 2>(x, ctf::causal);
    auto model = ctf::compile(graph);
    const ctf::tensor_map inputs = test::expect_matches_reference(model, graph, 3);
    const ctf::host_tensor<float> one = model.run(inputs, {1});
    for (int threads : {2, 3, 4, 7}) EXPECT_EQ(model.run(inputs, {threads}).data, one.data) << threads << " threads";
}

TEST(Run, ConcurrentRunsUseSeparateScratch) {
    auto graph = ctf::nn::encoder_layer<cfg>(x);
    auto model = ctf::compile(graph);
    ctf::tensor_map weights = ctf::reference::random_inputs(graph, 1, 11);
    model.bind(weights);
    std::vector<ctf::tensor_map> inputs;
    std::vector<ctf::host_tensor<float>> serial, concurrent(4);
    for (unsigned i = 0; i < 4; ++i) {
        inputs.push_back({{"x", ctf::reference::random_inputs(x, 2 + i, 20 + i).at("x")}});
        serial.push_back(model.run(inputs.back(), {1}));
    }
    std::vector<std::thread> threads;
    for (unsigned i = 0; i < 4; ++i)
        threads.emplace_back([&, i] { concurrent[i] = model.run(inputs[i], {2}); });
    for (auto& t : threads) t.join();
    for (unsigned i = 0; i < 4; ++i) EXPECT_EQ(concurrent[i].data, serial[i].data) << "run " << i;
}

TEST(Run, UnfusedStepsRunTheReferenceFormula) {
    auto q = ctf::input<"q", ctf::batch, 2, 5, 8>();
    auto bias = ctf::input<"bias", 5, 5>();
    auto graph = ctf::nn::scaled_dot_product_attention(q, q, q, ctf::additive(bias));
    auto model = ctf::compile(graph);
    test::expect_matches_reference(model, graph, 2);
    EXPECT_NE(model.explain().find("reference mask"), std::string::npos);
}

TEST(Run, SingleInputAndOutputShape) {
    auto graph = ctf::nn::encoder_layer<cfg>(x);
    auto model = ctf::compile(graph);
    const ctf::tensor_map inputs = test::expect_matches_reference(model, graph, 2);
    ctf::host_tensor<float> output;
    model.run(inputs.at("x"), output);
    EXPECT_EQ(output.dims, (ctf::dims_t{2, 37, 64}));
    ctf::host_tensor<float> wrong({2, 37, 63});
    EXPECT_THROW(model.run(inputs.at("x"), wrong), ctf::shape_mismatch);
}

TEST(Run, ErrorsNameTheTensor) {
    auto graph = ctf::nn::encoder_layer<cfg>(x);
    auto model = ctf::compile(graph);
    ctf::tensor_map all = ctf::reference::random_inputs(graph, 2);
    EXPECT_THROW(model.run(all), ctf::error);  // before bind
    ctf::tensor_map missing = all;
    missing.erase("linear2.bias");
    try {
        model.bind(missing);
        ADD_FAILURE() << "bind without linear2.bias";
    } catch (const ctf::missing_tensor& e) {
        EXPECT_EQ(e.tensor(), "linear2.bias");
    }
    ctf::tensor_map misshapen = all;
    misshapen.at("norm1.weight") = ctf::host_tensor<float>({63});
    try {
        model.bind(misshapen);
        ADD_FAILURE() << "bind with norm1.weight [63]";
    } catch (const ctf::shape_mismatch& e) {
        EXPECT_EQ(e.tensor(), "norm1.weight");
        EXPECT_NE(std::string(e.what()).find("expected [_64]"), std::string::npos) << e.what();
    }
    model.bind(all);
    EXPECT_THROW(model.run(ctf::tensor_map{}), ctf::missing_tensor);
    EXPECT_THROW(model.run(ctf::tensor_map{{"x", ctf::host_tensor<float>({2, 36, 64})}}), ctf::shape_mismatch);
}

TEST(Explain, ShowsEveryPassAndThePlan) {
    auto model = ctf::compile(ctf::nn::encoder_layer<cfg>(x));
    const std::string text = model.explain(8);
    for (const char* expected : {"== declared ==", "== after fuse_attention ==", "== after fuse_qkv ==",
                                 "fuse_positional_encoding: nothing to fuse", "== plan ==",
                                 "fused_attention (heads merged)", "residual_layer_norm", "epilogue: +bias relu"})
        EXPECT_NE(text.find(expected), std::string::npos) << expected << " in\n" << text;
    EXPECT_EQ(text.find("reference "), std::string::npos) << "every step of an encoder layer is a kernel\n" << text;
}
}  // namespace

namespace {
// The attention step's scratch per thread, as the plan reports it.
template <int L>
std::size_t attention_scratch_bytes() {
    auto tokens = ctf::input<"x", ctf::batch, L, 64>();
    for (const auto& step : ctf::plan::steps(ctf::passes::fuse(ctf::nn::multi_head_attention<cfg>(tokens)), 1))
        if (step.kernel.find("fused_attention") != std::string::npos) return step.scratch_bytes;
    return 0;
}

// One key block and one query tile (of up to 256 queries): bounded, whatever the length.
TEST(Plan, AttentionScratchDoesNotGrowWithTheSequence) {
    const std::size_t at_512 = attention_scratch_bytes<512>();
    EXPECT_GT(at_512, 0u);
    EXPECT_EQ(attention_scratch_bytes<2048>(), at_512);
    EXPECT_LT(attention_scratch_bytes<16>(), at_512);  // a short sequence: a shorter block and tile
}
}  // namespace
