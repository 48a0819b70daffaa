// Embeddings (token ids gathered, positions added: fused, and each alone), a Conv1D and columns at
// every length up to the maximum; ids out of the vocabulary refused. BERT's embeddings as their one
// embedding_layer_norm step, token types given and not.
// Operations that no pass fuses, each on its own kernel, against the reference evaluator on every
// Highway target compiled in: scale, the activations outside a GEMM, rotary positions and RMSNorm (widths that leave a
// partial vector), a matmul of two activations with a transposed operand, and the head views (split,
// expand, merge, transpose of a split) as copies; rank-3 batched operands, whose extent before the
// matrix is the batch. The plans hold no other kind of step. Every mask kind on written-out scores,
// with softmax, at every pair of lengths: model_lengths_test.cc.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/model_ops_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>
#include <hwy/tests/hwy_gtest.h>

#include <ctformer/runtime/model-inl.h>

#include "support/model_check.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::tests::HWY_NAMESPACE {
namespace rt = ctformer::runtime::HWY_NAMESPACE;

// The graph compiled, its plan made of the given kernels only, and its output the reference's.
template <class Graph>
void check(const Graph& graph, const tensor_map& inputs, std::initializer_list<std::string_view> kernels) {
    auto model = rt::compile(graph);
    for (const plan::step& s : model.program().steps)
        EXPECT_NE(std::find(kernels.begin(), kernels.end(), s.kernel), kernels.end()) << "unexpected step " << s.kernel;
    model.bind(inputs);
    test::expect_close(model.run(inputs, {2}), reference::evaluate(graph, inputs), test::fp32_model);
}

template <class Graph>
void check(const Graph& graph, std::initializer_list<std::string_view> kernels) {
    check(graph, reference::random_inputs(graph, 2, 11), kernels);
}

void TestScaleAndActivations() {
    auto x = input<"x", batch, 7, 13>();
    check(relu(x) + gelu(scale(x, 2.5)) + gelu_tanh(scale(x, -3.0)) + silu(scale(x, 1.5)),
          {"relu", "gelu", "gelu_tanh", "silu", "scale", "add"});
    check(x * input<"y", batch, 7, 13>() * weight<"row", 13>(), {"multiply"});  // elementwise, and by a row
}

// LLaMA's MLP and its residual, x + down(silu(gate(n)) · up(n)), n = rms_norm(x): the gate and up
// projections one gated GEMM (no multiply step), the residual in down's epilogue; d_ff 44 leaves a
// partial panel pair on every target, and 2·100 rows split into row blocks (gated_tiles).
void TestGatedFeedForward() {
    constexpr nn::config c{.d_model = 24, .heads = 1, .d_ff = 44, .act = activation::silu};
    auto x = input<"x", batch, 100, 24>();
    check(x + nn::gated_feed_forward<c, "mlp.">(rms_norm(x, weight<"norm.weight", 24>())), {"rms_norm", "gemm"});
}

// Rotary positions, LLaMA's (whole heads of 8, rotate_half) and GPT-J's (interleaved, 6 of 8
// dimensions), on [B, L, heads · 8], and on split heads [B, heads, L, 8] (positions along L either
// way), at θ 10000 and 500000.
void TestRotary() {
    auto x = input<"x", batch, 7, 24>();
    constexpr rotary_spec gptj{.head_dim = 8, .rotary_dims = 6, .pairing = rotary_pairing::interleaved};
    check(rotary<{.head_dim = 8}>(x) + rotary<gptj>(x), {"rotary", "add"});
    check(merge_heads(rotary<{.head_dim = 8, .theta = 500000}>(split_heads<3>(x))), {"split_heads", "rotary", "merge_heads"});
}

// Rotary positions where q and k are made: one GEMM for q, k and v (GQA: one head of k and v) with
// q's and k's heads of 16 turned in its epilogue, across panels on every target but AVX-512's, on
// two threads that split W's panels (few rows, work enough for threads: K 512) at whole heads (a
// split of SSE4's six panels into halves would cut k's head); and GPT-J's partial pairing on a
// projection alone. No rotary step is left.
void TestRotaryInTheProjections() {
    auto x = input<"x", batch, 9, 512>();
    constexpr rotary_spec rope{.head_dim = 16, .theta = 500000};
    auto q = split_heads<2>(rotary<rope>(linear(x, weight<"q.weight", 32, 512>())));
    auto k = expand_heads<2>(split_heads<1>(rotary<rope>(linear(x, weight<"k.weight", 16, 512>()))));
    auto v = expand_heads<2>(split_heads<1>(linear(x, weight<"v.weight", 16, 512>())));
    check(merge_heads(nn::scaled_dot_product_attention(q, k, v, causal)), {"gemm", "fused_attention (heads merged)"});
    constexpr rotary_spec gptj{.head_dim = 16, .rotary_dims = 10, .pairing = rotary_pairing::interleaved};
    check(rotary<gptj>(linear(x, weight<"w", 48, 512>(), weight<"b", 48>())), {"gemm"});
}

void TestRmsNorm() {
    auto x = input<"x", batch, 7, 13>();
    check(rms_norm(x + input<"y", batch, 7, 13>(), weight<"norm.weight", 13>(), 1e-5), {"add", "rms_norm"});
    auto wide = input<"wide", batch, 3, 40>();
    check(rms_norm(wide, weight<"norm.weight", 40>()), {"rms_norm"});
}

void TestHeadViews() {
    auto x = input<"x", batch, 5, 12>();
    check(merge_heads(expand_heads<6>(split_heads<3>(x))), {"split_heads", "expand_heads", "merge_heads"});
    check(merge_heads(expand_heads<6>(expand_heads<3>(split_heads<1>(input<"one", batch, 5, 4>())))), {"expand_heads", "merge_heads"});
    check(transpose(split_heads<3>(x)), {"transpose"});
    check(split_heads<4>(scale(x, 0.5)) + split_heads<4>(x), {"scale", "split_heads", "add"});
    auto a = input<"a", batch, 5, 4>();  // rank 3: the batch, not heads, before the matrix
    check(matmul(a, transpose(input<"b", batch, 6, 4>())), {"transpose", "matmul"});
    check(nn::scaled_dot_product_attention(a, a, a, causal), {"fused_attention"});
}

// One graph of every embedding step: token rows with their positions (fused), token rows alone into a
// Conv1D (a GEMM of a weight stored [in, out]), and a position table added to columns of an input
// (columns, leading_rows, add). Table width 20 leaves a partial vector.
auto embeddings() {
    auto ids = id_input<"input_ids", batch, upto<9>>();
    auto with_positions = nn::add_position_embedding<"wpe", 12>(nn::embedding<"wte", 37, 20>(ids));
    auto projected = nn::conv1d<"c", 20, 20>(nn::embedding<"wte2", 37, 20>(ids));
    auto positioned = nn::add_position_embedding<"wpe2", 9>(columns<3, 23>(input<"x", batch, upto<9>, 27>()));
    return layer_norm(with_positions, weight<"ln.weight", 20>(), weight<"ln.bias", 20>()) + projected + positioned;
}

void TestEmbeddings() {
    auto model = rt::compile(embeddings());
    const std::initializer_list<std::string_view> kernels{"embedding + positions", "layer_norm", "embedding", "gemm",
                                                          "columns", "leading_rows", "add"};
    for (const plan::step& s : model.program().steps)
        EXPECT_NE(std::find(kernels.begin(), kernels.end(), s.kernel), kernels.end()) << "unexpected step " << s.kernel;
    tensor_map inputs;
    for (std::size_t length = 1; length <= 9; ++length) {
        inputs = reference::random_inputs(model.graph(), {2, {length}}, unsigned(length));
        const id_map ids = reference::random_ids(model.graph(), {2, {length}}, 37, unsigned(length));
        model.bind(inputs, {.strict = false});
        test::expect_close(model.run(inputs, ids, {2}), reference::evaluate(model.graph(), inputs, ids), test::fp32_model);
    }
    // An id outside the vocabulary, either side, is refused by name before any row is read.
    for (const std::int32_t bad : {37, -1}) {
        const id_map ids{{"input_ids", id_tensor({2, 9}, std::vector<std::int32_t>(18, 36))}};
        id_map given = ids;
        given["input_ids"][10] = bad;
        try {
            model.run(inputs, given);
            ADD_FAILURE() << "id " << bad << " ran";
        } catch (const token_id_out_of_range& e) {
            EXPECT_EQ(e.id(), bad);
            EXPECT_EQ(e.vocabulary(), 37u);
            const std::string words = "ctformer: tensor 'input_ids' holds the token id " + std::to_string(bad) +
                                      " at [1,1], outside the vocabulary of 'wte";  // or of 'wte2': either step may run first
            EXPECT_EQ(std::string(e.what()).rfind(words, 0), 0u) << e.what();
            EXPECT_NE(std::string(e.what()).find("': ids from 0 to 36"), std::string::npos) << e.what();
        }
        EXPECT_THROW(reference::evaluate(model.graph(), inputs, given), token_id_out_of_range);
        try {  // a batch run in chunks of one sequence: still the place in the whole batch
            model.run(inputs, given, {.max_activation_bytes = 1});
            ADD_FAILURE() << "id " << bad << " ran in chunks";
        } catch (const token_id_out_of_range& e) {
            EXPECT_EQ(e.index(), (dims_t{1, 1})) << e.what();
        }
        EXPECT_NO_THROW(model.run(inputs, ids));
    }
    tensor_map as_floats = inputs;  // ids given as floats: named as token ids
    as_floats["input_ids"] = host_tensor<float>({2, 9});
    EXPECT_THROW(model.run(as_floats), missing_tensor);
}

// BERT's embeddings, LayerNorm(words[ids] + positions + types), one embedding_layer_norm step:
// token types gathered by their ids, or row 0 of the types table for every token (here RoBERTa's,
// its positions from padding_idx + 1); at every length, against the reference. Width 20 leaves a
// partial vector. An id outside either table is refused by name, at its place in the batch.
constexpr nn::bert_config typed_embeddings{
    .vocabulary = 37, .positions = 12, .token_types = 2, .d_model = 20, .heads = 1, .d_ff = 8, .layers = 1};
constexpr nn::bert_config roberta_embeddings{.family = nn::bert_family::roberta, .vocabulary = 37, .positions = 12,
                                             .token_types = 1, .d_model = 20, .heads = 1, .d_ff = 8, .layers = 1};

template <class Model>
void check_bert_embeddings(Model& model, bool typed) {
    ASSERT_EQ(model.program().steps.size(), 1u);
    EXPECT_EQ(model.program().steps[0].kernel, "embedding_layer_norm");
    tensor_map inputs;
    id_map ids;
    for (std::size_t length = 1; length <= 9; ++length) {
        inputs = reference::random_inputs(model.graph(), {2, {length}}, unsigned(length));
        ids = reference::random_ids(model.graph(), {2, {length}}, 37, unsigned(length));
        if (typed) ids["token_type_ids"] = reference::random_ids(model.graph(), {2, {length}}, 2, 5u).at("token_type_ids");
        model.bind(inputs, {.strict = false});
        test::expect_close(model.run(inputs, ids, {2}), reference::evaluate(model.graph(), inputs, ids), test::fp32_model);
    }
    const auto refused = [&](const std::string& tensor, std::int32_t bad, std::size_t rows) {
        id_map given = ids;
        given[tensor][10] = bad;
        try {
            model.run(inputs, given);
            ADD_FAILURE() << tensor << " " << bad << " ran";
        } catch (const token_id_out_of_range& e) {
            EXPECT_EQ(e.id(), bad);
            EXPECT_EQ(e.vocabulary(), rows);
            EXPECT_EQ(e.index(), (dims_t{1, 1})) << e.what();
            EXPECT_EQ(std::string(e.what()).rfind("ctformer: tensor '" + tensor + "' holds the token id " + std::to_string(bad), 0), 0u)
                << e.what();
        }
        EXPECT_THROW(reference::evaluate(model.graph(), inputs, given), token_id_out_of_range);
    };
    refused("input_ids", 37, 37);
    refused("input_ids", -1, 37);
    if (typed) {
        refused("token_type_ids", 2, 2);
        refused("token_type_ids", -1, 2);
    }
}

void TestBertEmbeddings() {
    auto ids = id_input<"input_ids", batch, upto<9>>();
    auto typed = rt::compile(nn::bert_embeddings<typed_embeddings>(ids, id_input<"token_type_ids", batch, upto<9>>()));
    check_bert_embeddings(typed, true);
    auto untyped = rt::compile(nn::bert_embeddings<roberta_embeddings>(ids));
    check_bert_embeddings(untyped, false);
}

}  // namespace ctformer::tests::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ctformer::tests {
HWY_BEFORE_TEST(StandaloneOperations);
HWY_EXPORT_AND_TEST_P(StandaloneOperations, TestScaleAndActivations);
HWY_EXPORT_AND_TEST_P(StandaloneOperations, TestRmsNorm);
HWY_EXPORT_AND_TEST_P(StandaloneOperations, TestGatedFeedForward);
HWY_EXPORT_AND_TEST_P(StandaloneOperations, TestRotary);
HWY_EXPORT_AND_TEST_P(StandaloneOperations, TestRotaryInTheProjections);
HWY_EXPORT_AND_TEST_P(StandaloneOperations, TestHeadViews);
HWY_EXPORT_AND_TEST_P(StandaloneOperations, TestEmbeddings);
HWY_EXPORT_AND_TEST_P(StandaloneOperations, TestBertEmbeddings);
}  // namespace ctformer::tests
#endif
