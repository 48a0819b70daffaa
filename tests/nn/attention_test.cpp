// Attention blocks against hand-computed values, the seeds' example, and equivalences that must
// hold exactly (GQA/MQA against repeated K/V heads, masking a key against removing it, causality).
#include <ctformer/ctformer.hpp>
#include <ctformer/reference/random_inputs.hpp>

#include "support/tensors.hpp"

namespace {

using ctf::reference::evaluate;

// The seeds' hand exercise: X = [[1,0],[0,1]], W_q = W_k = W_v = I, d_k = 2.
// scores = X·Xᵀ/√2 = [[0.7071, 0], [0, 0.7071]]; softmax([0.7071, 0]) = [e^0.7071, 1] / (e^0.7071 + 1)
// = [0.669762, 0.330238]; Z = weights·V = weights.
const std::vector<double> seeds_z{0.669762, 0.330238, 0.330238, 0.669762};

TEST(ScaledDotProductAttention, SeedsWorkedExample) {
    auto x = ctf::input<"x", 2, 2>();
    const ctf::tensor_map in{{"x", test::identity(2)}};
    test::expect_close(evaluate(ctf::nn::scaled_dot_product_attention(x, x, x), in), seeds_z, {.atol = 1e-6});
}

TEST(MultiHeadAttention, SeedsWorkedExampleWithOneHeadAndIdentityWeights) {
    constexpr ctf::nn::config one_head{.d_model = 2, .heads = 1};
    auto x = ctf::input<"x", 2, 2>();
    const ctf::tensor_map in{{"x", test::identity(2)},
                             {"q_proj_weight", test::identity(2)}, {"q_proj_bias", test::filled({2}, 0)},
                             {"k_proj_weight", test::identity(2)}, {"k_proj_bias", test::filled({2}, 0)},
                             {"v_proj_weight", test::identity(2)}, {"v_proj_bias", test::filled({2}, 0)},
                             {"out_proj.weight", test::identity(2)}, {"out_proj.bias", test::filled({2}, 0)}};
    test::expect_close(evaluate(ctf::nn::multi_head_attention<one_head>(x), in), seeds_z, {.atol = 1e-6});
}

TEST(MultiHeadAttention, SeedsExampleShapes) {
    constexpr ctf::nn::config seeds{.d_model = 512, .heads = 8};
    auto x = ctf::input<"x", ctf::batch, 10, 512>();
    auto mha = ctf::nn::multi_head_attention_with_weights<seeds>(x, x, x);
    static_assert(std::is_same_v<ctf::shape_of_t<decltype(mha.output)>, ctf::shape<ctf::batch, 10, 512>>);
    static_assert(std::is_same_v<ctf::shape_of_t<decltype(mha.weights)>, ctf::shape<ctf::batch, 8, 10, 10>>);

    const ctf::tensor_map in = ctf::reference::random_inputs(mha.output, 2);
    ctf::reference::evaluator eval(in);
    const auto output = eval(mha.output);
    const auto& weights = eval.intermediate("attn_weights");
    EXPECT_EQ(output.dims, (ctf::dims_t{2, 10, 512}));
    EXPECT_EQ(weights.dims, (ctf::dims_t{2, 8, 10, 10}));
    for (std::size_t row = 0; row < weights.size(); row += 10) {
        double sum = 0;
        for (std::size_t key = 0; key < 10; ++key) sum += weights[row + key];
        EXPECT_NEAR(sum, 1.0, 1e-12);
    }
}

// Two heads of width 2 over d_model 4 with every projection the identity: head h attends with the
// columns 2h, 2h+1 of x, and the output concatenates the heads. Computed here without the DSL.
TEST(MultiHeadAttention, HeadsAttendWithTheirOwnColumns) {
    constexpr ctf::nn::config two_heads{.d_model = 4, .heads = 2};
    auto x = ctf::input<"x", 3, 4>();
    const std::vector<float> xs{1, 0, 2, -1, 0, 1, 0, 3, 1, 1, -2, 0};
    ctf::tensor_map in{{"x", test::tensor({3, 4}, xs)}};
    for (const char* p : {"q_proj", "k_proj", "v_proj"}) {
        in[std::string(p) + "_weight"] = test::identity(4);
        in[std::string(p) + "_bias"] = test::filled({4}, 0);
    }
    in["out_proj.weight"] = test::identity(4);
    in["out_proj.bias"] = test::filled({4}, 0);

    std::vector<double> want(12);
    for (int h = 0; h < 2; ++h)
        for (int i = 0; i < 3; ++i) {
            double w[3], sum = 0;
            for (int j = 0; j < 3; ++j) {
                const double dot = xs[i * 4 + 2 * h] * xs[j * 4 + 2 * h] + xs[i * 4 + 2 * h + 1] * xs[j * 4 + 2 * h + 1];
                sum += w[j] = std::exp(dot / std::sqrt(2.0));
            }
            for (int c = 0; c < 2; ++c)
                for (int j = 0; j < 3; ++j) want[i * 4 + 2 * h + c] += w[j] / sum * xs[j * 4 + 2 * h + c];
        }
    test::expect_close(evaluate(ctf::nn::multi_head_attention<two_heads>(x), in), want, {.atol = 1e-9});
}

// GQA with 2 key/value heads serving 4 query heads equals MHA whose K/V projections repeat each
// group's rows for both heads of the group (what repeat_interleave does).
TEST(MultiHeadAttention, GroupedQueryAttentionEqualsMhaWithRepeatedKeyValueHeads) {
    constexpr ctf::nn::config gqa{.d_model = 8, .heads = 4, .kv_heads = 2};
    constexpr ctf::nn::config mha{.d_model = 8, .heads = 4};
    auto x = ctf::input<"x", ctf::batch, 3, 8>();
    auto grouped = ctf::nn::multi_head_attention<gqa>(x);
    auto repeated = ctf::nn::multi_head_attention<mha>(x);

    const ctf::tensor_map small = ctf::reference::random_inputs(grouped, 2, 7);
    ctf::tensor_map big = small;
    for (const char* p : {"k_proj", "v_proj"}) {
        const auto& w = small.at(std::string(p) + "_weight");  // [2 groups · 2, 8]
        const auto& b = small.at(std::string(p) + "_bias");
        ctf::host_tensor<float> wr({8, 8}), br({8});
        for (std::size_t head = 0; head < 4; ++head)
            for (std::size_t r = 0; r < 2; ++r) {
                const std::size_t from = (head / 2) * 2 + r, to = head * 2 + r;
                std::copy_n(&w[from * 8], 8, &wr[to * 8]);
                br[to] = b[from];
            }
        big[std::string(p) + "_weight"] = wr;
        big[std::string(p) + "_bias"] = br;
    }
    test::expect_close(evaluate(grouped, small), evaluate(repeated, big), {.atol = 1e-12});
}

TEST(MultiHeadAttention, MultiQueryAttentionHasOneKeyValueHead) {
    constexpr ctf::nn::config mqa{.d_model = 8, .heads = 4, .kv_heads = 1};
    auto x = ctf::input<"x", ctf::batch, 3, 8>();
    auto y = ctf::nn::multi_head_attention<mqa>(x);
    const auto in = ctf::reference::random_inputs(y, 2);
    EXPECT_EQ(in.at("k_proj_weight").dims, (ctf::dims_t{2, 8}));
    EXPECT_EQ(evaluate(y, in).dims, (ctf::dims_t{2, 3, 8}));
}

// Cross-attention: 2 queries over 3 keys; masking key 2 of every sequence equals attending over
// only keys 0 and 1.
TEST(MultiHeadAttention, KeyPaddingEqualsRemovingTheKey) {
    constexpr ctf::nn::config cfg{.d_model = 4, .heads = 2};
    auto q = ctf::input<"q", ctf::batch, 2, 4>();
    auto memory = ctf::input<"memory", ctf::batch, 3, 4>();
    auto short_memory = ctf::input<"short_memory", ctf::batch, 2, 4>();
    auto pad = ctf::bool_input<"pad", ctf::batch, 3>();
    auto masked = ctf::nn::multi_head_attention<cfg>(q, memory, memory, ctf::key_padding(pad));
    auto shorter = ctf::nn::multi_head_attention<cfg>(q, short_memory, short_memory);

    ctf::tensor_map in = ctf::reference::random_inputs(masked, 2, 3);
    in["pad"] = test::tensor({2, 3}, {1, 1, 0, 1, 1, 0});
    ctf::host_tensor<float> first_two({2, 2, 4});
    for (std::size_t b = 0; b < 2; ++b) std::copy_n(&in.at("memory")[b * 12], 8, &first_two[b * 8]);
    in["short_memory"] = first_two;
    test::expect_close(evaluate(masked, in), evaluate(shorter, in), {.atol = 1e-12});
}

// With a causal mask, output row i reads only inputs 0..i: changing the last row changes nothing
// before it.
TEST(MultiHeadAttention, CausalMaskHidesLaterPositions) {
    constexpr ctf::nn::config cfg{.d_model = 4, .heads = 2};
    auto x = ctf::input<"x", 3, 4>();
    auto y = ctf::nn::multi_head_attention<cfg>(x, ctf::causal);
    ctf::tensor_map in = ctf::reference::random_inputs(y, 1);
    const auto before = evaluate(y, in);
    for (std::size_t c = 8; c < 12; ++c) in["x"][c] += 1.0f;
    const auto after = evaluate(y, in);
    for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(before[i], after[i]);
    EXPECT_NE(before[8], after[8]);
}

}  // namespace
