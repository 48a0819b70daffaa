// One model, any length: models declared with run-time lengths (upto<N>) run at every length from 1
// to N against the reference evaluator, on every Highway target compiled in, with each mask kind;
// a decoder with the lengths of its target and memory both at run time; a length above the maximum
// or tensors that disagree on a length are typed errors naming the tensor. Mixed-length batches
// (run_options::lengths), padded and packed each, against the reference evaluator on each sequence
// alone; causal and bidirectional, so that a query that sees keys past its own sequence's shows.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/model_lengths_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <numeric>

#include <hwy/highway.h>
#include <hwy/tests/hwy_gtest.h>

#include <ctformer/runtime/model-inl.h>

#include "support/model_check.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::tests::HWY_NAMESPACE {
namespace rt = ctformer::runtime::HWY_NAMESPACE;

// About a third of a key-padding mask's keys barred, the first of each sequence kept.
void bar_some_keys(host_tensor<float>& pad) {
    const std::size_t length = pad.dims.back();
    for (std::size_t i = 0; i < pad.size(); ++i)
        if (i % length != 0 && (i * 2654435761u >> 7) % 3 == 0) pad[i] = 0;
}

// The model bound once, then run at each of `lengths` ({L} or {Lq, Lk}) with new inputs, batch 2.
template <class Model, class Graph, class Prepare>
void expect_every_length(Model& model, const Graph& graph, const std::vector<std::array<std::size_t, 2>>& lengths,
                         Prepare prepare) {
    const tensor_map weights = reference::random_inputs(graph, 2, 7);
    model.bind(weights);
    unsigned seed = 11;
    for (const auto& [lq, lk] : lengths) {
        const extent_values at{2, {lq, lk}};
        tensor_map inputs = test::inputs_at(graph, weights, at, ++seed);
        prepare(inputs);
        test::expect_close(model.run(inputs, {2}), reference::evaluate(graph, inputs), test::fp32_model,
                           "Lq " + std::to_string(lq) + ", Lk " + std::to_string(lk));
    }
}

std::vector<std::array<std::size_t, 2>> one_to(std::size_t max) {
    std::vector<std::array<std::size_t, 2>> lengths;
    for (std::size_t l = 1; l <= max; ++l) lengths.push_back({l, 0});
    return lengths;
}

constexpr nn::config small{.d_model = 16, .heads = 4, .kv_heads = 2, .d_ff = 32, .act = nn::activation::gelu,
                           .norm = nn::norm_position::pre};

// Two pre-LN GQA layers (one repeated body) over an embedding x·Wᵀ plus the positional encoding
// twice: once in the embedding GEMM's epilogue, once as an add, then turned by rotary positions, so
// that the three ways of reading a position are checked (a packed batch's tokens take theirs from
// their sequences). Their attention masked by `masks...` and by key padding.
template <class... Masks>
auto two_layers(Masks... masks) {
    auto x = input<"x", batch, upto<24>, 8>();
    auto pad = bool_input<"pad", batch, upto<24>>();
    auto embedded = rotary<{.head_dim = 4, .rotary_dims = 2}>(
        nn::add_positional_encoding(nn::add_positional_encoding(linear(x, weight<"embed.weight", 16, 8>()))));
    return nn::encoder<small, 2>(embedded, masks..., key_padding(pad));
}

// The stack at every length 1..24, with key padding, the second sequence with no key at all; causal,
// then bidirectional (every query sees every key of its sequence: a key past its length would show).
template <class Graph>
void expect_stack_at_every_length(const Graph& graph) {
    auto model = rt::compile(graph);
    std::vector<std::string> reading_the_table;  // the steps that read the positional encoding
    for (const plan::step& s : model.program().steps)
        for (const plan::operand_slot& o : s.reads)
            if (model.program().slots[o.slot].kind == plan::slot_kind::constant) reading_the_table.push_back(s.kernel);
    EXPECT_EQ(reading_the_table, (std::vector<std::string>{"gemm", "add"}));
    expect_every_length(model, graph, one_to(24), [](tensor_map& in) {
        host_tensor<float>& pad = in.at("pad");
        bar_some_keys(pad);
        std::fill(pad.data.begin() + pad.dims[1], pad.data.end(), 0.0f);
    });
    // The plan is sized at the maxima, a run at its own lengths.
    EXPECT_LT(plan::allocate(model.program(), {2, {5}}).bytes(), plan::allocate(model.program(), {2}).bytes());
    EXPECT_LT(model.program().flops({2, {5}}), model.program().flops({2}) / 4);
}

void TestEveryLengthOfAnEncoderStack() {
    expect_stack_at_every_length(two_layers(causal));
    expect_stack_at_every_length(two_layers());
}

// Boolean and additive masks, [B, L, L] and [L, L], their lengths the queries'.
void TestAttendAndAdditiveMasksAtEveryLength() {
    constexpr nn::config mqa{.d_model = 16, .heads = 4, .kv_heads = 1};
    auto x = input<"x", batch, upto<12>, 16>();
    auto m = bool_input<"m", batch, upto<12>, upto<12>>();
    auto bias = input<"bias", upto<12>, upto<12>>();
    const auto graph = nn::multi_head_attention<mqa>(x, attend(m), additive(bias));
    auto model = rt::compile(graph);
    expect_every_length(model, graph, one_to(12), [](tensor_map& in) {
        host_tensor<float>& mask = in.at("m");
        for (std::size_t i = 0; i < mask.size(); ++i)
            if (i % mask.dims.back() != 0 && i % 3 == 1) mask[i] = 0;
    });
}

// A two-layer pre-LN gelu MQA decoder, its target and memory lengths two variables: causal
// self-attention, and cross-attention bottom-right causal with key padding and a float memory mask
// over a memory computed outside the repeated layer (a LayerNorm of the source). Short lengths, and lengths around the attention kernel's key
// block (64) and past two of them, each with keys one, one fewer, as many, one more, and 129.
void TestDecoderWithBothLengthsAtRunTime() {
    constexpr nn::config mqa{.d_model = 16, .heads = 4, .kv_heads = 1, .d_ff = 24, .act = nn::activation::gelu,
                             .norm = nn::norm_position::pre};
    auto tgt = input<"tgt", batch, upto<130>, 16>();
    auto src = input<"src", batch, upto<130, 1>, 16>();
    auto pad = bool_input<"pad", batch, upto<130, 1>>();
    auto memory_bias = input<"memory_bias", upto<130>, upto<130, 1>>();
    const auto graph = nn::decoder<mqa, 2>(tgt, nn::norm<mqa, "source_norm">(src), nn::tgt_masks(causal),
                                           nn::memory_masks(causal_bottom_right, key_padding(pad), additive(memory_bias)));
    auto model = rt::compile(graph);
    std::vector<std::string> gemms;  // fuse_qkv's and fuse_kv's projections among them
    for (const plan::step& s : model.program().steps)
        if (s.kernel == std::string("gemm")) gemms.push_back(model.program().display_name(s.writes));
    EXPECT_EQ(gemms.front(), "layers.{i}.qkv(self_attn.q_proj_weight)");
    EXPECT_NE(std::find(gemms.begin(), gemms.end(), "layers.{i}.kv(multihead_attn.k_proj_weight)"), gemms.end());
    std::vector<std::array<std::size_t, 2>> pairs;
    for (std::size_t lq : {1, 2, 3, 5, 9, 63, 64, 65, 130})
        for (std::size_t lk : {std::size_t{1}, lq - 1, lq, lq + 1, std::size_t{129}})
            if (lk >= 1 && lk <= 130) pairs.push_back({lq, lk});
    expect_every_length(model, graph, pairs, [](tensor_map& in) { bar_some_keys(in.at("pad")); });
}

// softmax(mask(Q·Kᵀ)) · V with no scale, so no attention kernel takes it: the transpose, batched
// matmul, mask and softmax steps with both lengths at run time, each mask kind on the written scores
// (a sliding window of 3 keys, the bottom-right causal alignment, key padding, a per-sequence boolean
// mask and a per-head bias).
auto scores_graph() {
    auto q = input<"q", batch, 2, upto<7>, 8>();
    auto k = input<"k", batch, 2, upto<9, 1>, 8>();
    auto v = input<"v", batch, 2, upto<9, 1>, 3>();
    auto pad = bool_input<"pad", batch, upto<9, 1>>();
    auto seq_mask = bool_input<"m", batch, upto<7>, upto<9, 1>>();
    auto head_bias = input<"bias", 2, upto<7>, upto<9, 1>>();
    auto causal_scores = mask(mask(matmul(q, transpose(k)), sliding_window<3>), causal_bottom_right);
    return matmul(softmax(mask(mask(mask(causal_scores, key_padding(pad)), attend(seq_mask)), additive(head_bias))), v);
}

// Every (Lq, Lk) pair, Lq > Lk too (rows that see no key give zeros); sequence 1 has no key at all.
void TestUnfusedStepsAtEveryLength() {
    const auto graph = scores_graph();
    auto model = rt::compile(graph);
    for (const plan::step& s : model.program().steps)
        EXPECT_TRUE(s.kernel == "transpose" || s.kernel == "matmul" || s.kernel == "mask" || s.kernel == "softmax")
            << "unexpected step " << s.kernel;
    std::vector<std::array<std::size_t, 2>> pairs;
    for (std::size_t lq = 1; lq <= 7; ++lq)
        for (std::size_t lk = 1; lk <= 9; ++lk) pairs.push_back({lq, lk});
    expect_every_length(model, graph, pairs, [](tensor_map& in) {
        host_tensor<float>& pad = in.at("pad");
        bar_some_keys(pad);
        std::fill(pad.data.begin() + pad.dims[1], pad.data.end(), 0.0f);
        bar_some_keys(in.at("m"));
    });
}

// A length above the maximum, a length of 0, and tensors that disagree on a length.
void TestLengthErrorsNameTheTensor() {
    const auto graph = scores_graph();
    auto model = rt::compile(graph);
    const tensor_map good = reference::random_inputs(graph, {2, {4, 5}}, 3);  // B=2, Lq=4, Lk=5
    model.bind(good);
    const auto expect_error = [&]<class Error>(const char* name, dims_t dims, const std::string& says) {
        tensor_map bad = good;
        bad.at(name) = host_tensor<float>(std::move(dims));
        try {
            (void)model.run(bad, {1});
            ADD_FAILURE() << name << ": no error";
        } catch (const Error& e) {
            EXPECT_EQ(e.tensor(), name);
            EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
        }
    };
    expect_error.operator()<length_out_of_range>("q", {2, 2, 8, 8}, "expected [B,_2,L<=7,_8] (L, a length from 1 to 7, given 8)");
    expect_error.operator()<length_out_of_range>("k", {2, 2, 0, 8}, "(L1, a length from 1 to 9, given 0)");
    expect_error.operator()<shape_mismatch>("pad", {2, 6}, "expected [B,L1<=9] with B=2, L1=5");
    expect_error.operator()<shape_mismatch>("v", {2, 2, 4, 3}, "with B=2, L1=5");
}

// Rows [first, first + count) of sequence b of t [B, Lmax, ...], as [1, count, ...].
host_tensor<float> rows_of(const host_tensor<float>& t, std::size_t b, std::size_t count) {
    dims_t dims = t.dims;
    dims[0] = 1;
    dims[1] = count;
    host_tensor<float> out(dims);
    const std::size_t row = t.size() / (t.dims[0] * t.dims[1]);
    std::copy_n(t.data.begin() + b * t.dims[1] * row, count * row, out.data.begin());
    return out;
}

// The real rows of a padded t [B, Lmax, ...], one sequence after another: [T, ...].
host_tensor<float> packed(const host_tensor<float>& t, const std::vector<std::size_t>& lengths) {
    dims_t dims(t.dims.begin() + 1, t.dims.end());
    dims[0] = 0;
    for (std::size_t l : lengths) dims[0] += l;
    host_tensor<float> out(dims);
    const std::size_t row = t.size() / (t.dims[0] * t.dims[1]);
    for (std::size_t b = 0, at = 0; b < lengths.size(); at += lengths[b++] * row)
        std::copy_n(t.data.begin() + b * t.dims[1] * row, lengths[b] * row, out.data.begin() + at);
    return out;
}

// Sequence b of a padded input map, alone: [1, lengths[b], ...] of each tensor along the length.
tensor_map sequence_alone(const tensor_map& in, std::size_t b, std::size_t length) {
    tensor_map alone = in;
    for (const char* name : {"x", "pad"}) alone.at(name) = rows_of(in.at(name), b, length);
    return alone;
}

// A batch of five sequences of mixed lengths (one of length 1), then every one full, padded to 24
// and packed, each run separately through the two-layer stack: each sequence's rows are the
// reference evaluator's for it alone, the padded output's padding rows zero.
template <class Graph>
void expect_mixed_lengths_as_each_sequence_alone(const Graph& graph) {
    auto model = rt::compile(graph);
    tensor_map in = reference::random_inputs(graph, {5, {24}}, 21);
    bar_some_keys(in.at("pad"));
    model.bind(in);
    for (const std::vector<std::size_t>& lengths : {std::vector<std::size_t>{1, 24, 7, 13, 24}, std::vector<std::size_t>(5, 24)}) {
        host_tensor<float> padded_out, packed_out;
        model.run(in, padded_out, {.threads = 2, .lengths = lengths});
        model.run({{"x", packed(in.at("x"), lengths)}, {"pad", packed(in.at("pad"), lengths)}}, packed_out,
                  {.threads = 1, .lengths = lengths});
        ASSERT_EQ(padded_out.dims, (dims_t{5, 24, 16}));
        ASSERT_EQ(packed_out.dims, (dims_t{std::accumulate(lengths.begin(), lengths.end(), std::size_t{0}), 16}));
        for (std::size_t b = 0, first = 0; b < lengths.size(); first += lengths[b++]) {
            const host_tensor<double> alone = reference::evaluate(graph, sequence_alone(in, b, lengths[b]));
            const std::string what = "sequence " + std::to_string(b) + " of " + std::to_string(lengths[b]);
            test::expect_close(rows_of(padded_out, b, lengths[b]), alone, test::fp32_model, what + ", padded");
            const host_tensor<float> packed_rows({1, lengths[b], 16}, {packed_out.data.begin() + first * 16,
                                                                       packed_out.data.begin() + (first + lengths[b]) * 16});
            test::expect_close(packed_rows, alone, test::fp32_model, what + ", packed");
            const host_tensor<float> all = rows_of(padded_out, b, 24);
            for (std::size_t i = lengths[b] * 16; i < all.size(); ++i) ASSERT_EQ(all[i], 0.0f) << "padding of sequence " << b;
        }
    }
}

void TestMixedLengthsAsEachSequenceAlone() {
    expect_mixed_lengths_as_each_sequence_alone(two_layers(causal));
    expect_mixed_lengths_as_each_sequence_alone(two_layers());
}

// Lengths the model cannot take, tensors that disagree with them, a model that cannot run them.
void TestMixedLengthErrors() {
    const auto graph = two_layers(causal);
    auto model = rt::compile(graph);
    const tensor_map in = reference::random_inputs(graph, {2, {24}}, 5);
    model.bind(in);
    host_tensor<float> out;
    EXPECT_THROW(model.run(in, out, {.lengths = {3, 25}}), invalid_option);
    EXPECT_THROW(model.run(in, out, {.lengths = {3, 0}}), invalid_option);
    EXPECT_THROW(model.run(in, out, {.lengths = {SIZE_MAX / 2, 2}}), invalid_option);  // refused before it is laid out
    EXPECT_THROW(model.run(in, out, {.lengths = {3, 4, 5}}), shape_mismatch);  // three lengths, two sequences
    try {
        model.run({{"x", host_tensor<float>({6, 8})}, {"pad", host_tensor<float>({7})}}, out, {.lengths = {3, 4}});
        ADD_FAILURE() << "no error";
    } catch (const shape_mismatch& e) {
        EXPECT_EQ(e.tensor(), "x");
        EXPECT_NE(std::string(e.what()).find("[7,8] (packed) or [2, 4..24, ...] (padded)"), std::string::npos) << e.what();
    }
    host_tensor<float> weights;
    EXPECT_THROW(model.run(in, out, {.keep = {{"layers.0.norm1", &weights}}, .lengths = {3, 4}}), invalid_option);
    const auto unfused = scores_graph();  // its transpose and matmul steps need one length
    auto scores = rt::compile(unfused);
    scores.bind(reference::random_inputs(unfused, {2, {4, 5}}, 3));
    EXPECT_THROW(scores.run(reference::random_inputs(unfused, {2, {4, 5}}, 3), out, {.lengths = {3, 4}}), invalid_option);
}

}  // namespace ctformer::tests::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ctformer::tests {
HWY_BEFORE_TEST(ModelLengths);
HWY_EXPORT_AND_TEST_P(ModelLengths, TestEveryLengthOfAnEncoderStack);
HWY_EXPORT_AND_TEST_P(ModelLengths, TestAttendAndAdditiveMasksAtEveryLength);
HWY_EXPORT_AND_TEST_P(ModelLengths, TestDecoderWithBothLengthsAtRunTime);
HWY_EXPORT_AND_TEST_P(ModelLengths, TestUnfusedStepsAtEveryLength);
HWY_EXPORT_AND_TEST_P(ModelLengths, TestLengthErrorsNameTheTensor);
HWY_EXPORT_AND_TEST_P(ModelLengths, TestMixedLengthsAsEachSequenceAlone);
HWY_EXPORT_AND_TEST_P(ModelLengths, TestMixedLengthErrors);
}  // namespace ctformer::tests
#endif
