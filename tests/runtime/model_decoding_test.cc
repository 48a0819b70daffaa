// Token-by-token decoding with a KV cache (model::start_decoding), on every Highway target compiled
// in: a GPT-2 against PyTorch's logits and greedy tokens (its golden file, tests/data/make_golden.py),
// fp32 and with bf16 GEMM weights; a prompt, then one token at a time and a few at once, each run's
// rows equal to the full causal forward's at the same positions, for a GPT-2 (learned positions, tied head) and for a
// PyTorch decoder over an encoder memory (sinusoidal positions two ways, key padding of the memory),
// and for causal attention with rotary positions on its queries and keys,
// past the attention's key block, the memory's keys and values made once, a step's profile counting
// the cache it read; sequences decoded together, each at its own position, as each alone; a full
// cache, a batch other than the cache's, sequences named wrong, a memory of another length and a
// model that cannot decode are typed errors.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/model_decoding_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <iterator>
#include <sstream>

#include <ctformer/runtime/safetensors.hpp>
#include <ctformer/runtime/state_dict.hpp>

#include <hwy/highway.h>
#include <hwy/tests/hwy_gtest.h>

#include <ctformer/runtime/model-inl.h>

#include "support/generation_check.hpp"
#include "support/model_check.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::tests::HWY_NAMESPACE {
namespace rt = ctformer::runtime::HWY_NAMESPACE;

// Decoding token by token equals the full forward at every position.
inline constexpr test::tolerance decoded{.atol = 1e-5, .rtol = 1e-5};

// Positions [from, from + n) of every sequence of a [B, L, ...] tensor, or the whole of one that
// does not run along the decoded length (an encoder's memory).
template <class T>
host_tensor<T> positions(const host_tensor<T>& t, std::size_t length, std::size_t from, std::size_t n) {
    if (t.dims.size() < 2 || t.dims[1] != length) return t;
    dims_t dims = t.dims;
    dims[1] = n;
    host_tensor<T> part(dims);
    const std::size_t row = t.size() / (t.dims[0] * length);
    for (std::size_t b = 0; b < t.dims[0]; ++b)
        std::copy_n(t.data.begin() + (b * length + from) * row, n * row, part.data.begin() + b * n * row);
    return part;
}

template <class Map>
Map positions_of(const Map& all, std::size_t length, std::size_t from, std::size_t n) {
    Map part;
    for (const auto& [name, t] : all) part.emplace(name, positions(t, length, from, n));
    return part;
}

// The model decodes `length` positions of the inputs as a prompt of `prompt`, then runs of `steps`
// tokens each, every run against the full forward's rows.
template <class Model>
void expect_decoding_equals_forward(const Model& model, const tensor_map& inputs, const id_map& ids, std::size_t batch,
                                    std::size_t length, std::size_t prompt, const std::vector<std::size_t>& steps) {
    const host_tensor<float> full = model.run(inputs, ids);
    auto decoding = model.start_decoding(batch);
    std::size_t at = 0;
    for (std::size_t n : [&] {
             std::vector<std::size_t> runs{prompt};
             runs.insert(runs.end(), steps.begin(), steps.end());
             return runs;
         }()) {
        host_tensor<float> out;
        if (at == 0) decoding.prefill(positions_of(inputs, length, 0, n), positions_of(ids, length, 0, n), out);
        else decoding.step(positions_of(inputs, length, at, n), positions_of(ids, length, at, n), out);
        test::expect_close(out, positions(full, length, at, n), decoded);
        at += n;
        ASSERT_EQ(decoding.position(), at);
    }
}

constexpr nn::gpt2_config tiny{.vocabulary = 61, .positions = 24, .d_model = 32, .heads = 4, .layers = 2};

// A 2-layer GPT-2 by Hugging Face's names (Conv1D weights stored [in, out], the LM head tied to wte)
// against PyTorch: fp32, then with every GEMM's weight in bf16 against PyTorch's fp32 arithmetic on
// the same weights rounded to bf16 (each Conv1D's and the head's; embeddings, biases and norms fp32).
void TestGPT2AgainstPyTorch() {
    const std::string path = std::string(CTFORMER_GOLDEN_DIR) + "/gpt2_2_layers.safetensors";
    const safetensors_file file(path);
    const tensor_map golden = load_state_dict(path);
    auto model = rt::compile(nn::gpt2<tiny>(id_input<"input_ids", batch, upto<24>>()));
    model.bind(golden, {.strict = false});
    test::expect_pytorch_generation(model, file, golden, "");
    model.bind(golden, {.strict = false, .precision = kernels::precision::bf16});
    test::expect_pytorch_generation(model, file, golden, "bf16_");
}

void TestGPT2DecodesAsItsFullForward() {
    auto model = rt::compile(nn::gpt2<tiny>(id_input<"input_ids", batch, upto<24>>()));
    const tensor_map weights = reference::random_inputs(model.graph(), {2, {24}}, 3);
    model.bind(weights, {.strict = false});
    const id_map ids = reference::random_ids(model.graph(), {2, {24}}, tiny.vocabulary, 5);
    expect_decoding_equals_forward(model, {}, ids, 2, 24, 5, {1, 1, 3, 1, 2, 1, 1, 1, 1, 1, 1, 4, 1});  // to the capacity

    auto decoding = model.start_decoding(2);
    const id_tensor& all = ids.at("input_ids");
    EXPECT_EQ(decoding.capacity(), 24u);
    decoding.prefill(positions(all, 24, 0, 20));
    const std::string plan = decoding.explain();
    EXPECT_NE(plan.find("at position 20 of 24"), std::string::npos) << plan;
    EXPECT_NE(plan.find("per token:"), std::string::npos) << plan;
    // A batch other than the cache's, and a run past its capacity, are refused before anything runs.
    EXPECT_THROW(decoding.step(id_tensor({1, 1}, {all.data[20]})), invalid_option);
    try {
        decoding.step(positions(all, 24, 19, 5));  // any 5 tokens
        ADD_FAILURE() << "ran past the cache";
    } catch (const cache_full& e) {
        EXPECT_EQ(e.capacity(), 24u);
        EXPECT_NE(std::string(e.what()).find("holds 24 positions per sequence, 20 of them filled in sequence 0: 5 more"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_EQ(decoding.position(), 20u);
    const host_tensor<float> again = decoding.prefill(positions(all, 24, 0, 3));  // a new prompt starts over
    test::expect_close(again, model.run(positions(all, 24, 0, 3)), decoded);

    auto together = model.start_decoding(3), alone = model.start_decoding(1);
    test::expect_decoding_together_as_alone(together, alone, tiny.vocabulary);  // learned positions: the rows of theirs
}

// Sequences named wrong, lengths that do not match them, and a sequence past the capacity are refused
// before anything runs, naming what was wrong; so are sequences named outside a decoding run.
void TestSequencesOfADecodingRunAreChecked() {
    auto model = rt::compile(nn::gpt2<tiny>(id_input<"input_ids", batch, upto<24>>()));
    model.bind(reference::random_inputs(model.graph(), {1, {24}}, 3), {.strict = false});
    auto decoding = model.start_decoding(3);
    const id_tensor one({1, 1}, {7}), two({2, 1}, {7, 8});
    const auto refusal = [&](auto run) {
        try {
            run();
        } catch (const invalid_option& e) {
            return std::string(e.what());
        }
        return std::string("nothing refused");
    };
    EXPECT_NE(refusal([&] { decoding.step(one, {.sequences = {3}}); }).find("a sequence of the cache's, 0 to 2"), std::string::npos);
    EXPECT_NE(refusal([&] { decoding.step(two, {.sequences = {1, 1}}); }).find("each sequence once"), std::string::npos);
    EXPECT_NE(refusal([&] { decoding.step(two, {.sequences = {1}}); }).find("1, the sequences it runs"), std::string::npos);
    EXPECT_NE(refusal([&] { decoding.prefill(id_tensor({5}, {1, 2, 3, 4, 5}), {.lengths = {2, 3}}); }).find("one per sequence it runs: 3"),
              std::string::npos);
    EXPECT_NE(refusal([&] { model.run(one, {.sequences = {0}}); }).find("none outside a decoding run"), std::string::npos);
    decoding.prefill(id_tensor({1, 22}, std::vector<std::int32_t>(22, 4)), {.sequences = {2}});
    EXPECT_EQ(decoding.position(2), 22u);
    EXPECT_EQ(decoding.position(0), 0u);
    try {
        decoding.prefill(id_tensor({3}, {1, 2, 3}), {.lengths = {1, 1, 1}});  // restarts all three: fits
        decoding.prefill(id_tensor({1, 22}, std::vector<std::int32_t>(22, 4)), {.sequences = {1}});
        decoding.step(id_tensor({2, 3}, std::vector<std::int32_t>(6, 5)), {.sequences = {0, 1}});
        ADD_FAILURE() << "sequence 1 ran past the cache";
    } catch (const cache_full& e) {
        EXPECT_NE(std::string(e.what()).find("22 of them filled in sequence 1: 3 more"), std::string::npos) << e.what();
    }
    EXPECT_EQ(decoding.position(0), 1u);  // nothing ran
    EXPECT_EQ(decoding.position(1), 22u);
    // A prefill refused leaves the sequences it would restart where they were.
    EXPECT_THROW(decoding.prefill(id_tensor({5}, {1, 2, 3, 4, 5}), {.lengths = {2, 3}}), invalid_option);
    EXPECT_EQ(decoding.cache().positions(), (std::vector<std::size_t>{1, 22, 1}));
    EXPECT_THROW(decoding.position(3), invalid_option);
    // A packed run keeps no intermediates, and its profile is not counted.
    host_tensor<float> kept;
    EXPECT_THROW(decoding.step(two, {.keep = {{"h", &kept}}, .sequences = {0, 2}}), invalid_option);
    std::vector<runtime::step_record> records;
    decoding.step(two, {.profile = &records, .sequences = {0, 2}});
    EXPECT_THROW(decoding.profile(records), invalid_option);
}

// The profile of a step (at position 4, one new token) gives each step the bytes decoding_table
// counts: a cached attention's, the keys and values it read, more than its operands, and in all
// `cached_bytes`, counted by hand.
template <class Model, class Decoding>
void expect_profile_counts_the_cache(const Model& model, const Decoding& decoding,
                                     const std::vector<runtime::step_record>& records, double cached_bytes) {
    const plan::program& p = model.program();
    plan::extent_values at{2};
    at.lengths[length_variable(decoding.cache().stream())] = 1;
    at.position = 4;
    std::istringstream text(decoding.profile(records));
    std::vector<std::string> rows;
    for (std::string row; std::getline(text, row);) rows.push_back(row);
    ASSERT_EQ(rows.size(), p.steps.size() + 3) << text.str();
    std::size_t cached = 0;
    double cached_read = 0;
    for (std::size_t k = 0; k < p.steps.size(); ++k) {
        const decoding_work w = decoding_work_of(p, decoding.cache().layout(), k, at, kernels::precision::fp32);
        std::istringstream words(rows[k + 2]);
        const std::vector<std::string> all{std::istream_iterator<std::string>(words), {}};
        EXPECT_NEAR(std::stod(all[all.size() - 3]), w.bytes / 1e6, 0.006) << rows[k + 2];  // MB moved, to 2 places
        cached_read += w.cached;
        if (w.cached > 0) {
            ++cached;
            const int iterations = p.steps[k].repeat < 0 ? 1 : p.repeats[p.steps[k].repeat].count;
            EXPECT_GT(w.bytes, p.bytes_moved(k, at) * iterations) << rows[k + 2];
        }
    }
    EXPECT_GT(cached, 0u) << text.str();
    EXPECT_EQ(cached_read, cached_bytes);
    EXPECT_THROW(decoding.profile(records, 6), invalid_option);  // more tokens than decoded
}

// A two-layer post-LN PyTorch decoder, its memory of a length of its own with key padding; the
// target embedded by a GEMM whose epilogue adds the positional encoding, and adds it once more.
void TestDecoderDecodesAsItsFullForward() {
    constexpr nn::config gqa{.d_model = 16, .heads = 4, .kv_heads = 2, .d_ff = 24, .act = nn::activation::relu};
    auto tgt = input<"tgt", batch, upto<80>, 8>();
    auto src = input<"src", batch, upto<9, 1>, 16>();
    auto pad = bool_input<"pad", batch, upto<9, 1>>();
    auto embedded = nn::add_positional_encoding(nn::add_positional_encoding(linear(tgt, weight<"embed.weight", 16, 8>())));
    const auto graph = nn::decoder<gqa, 2>(embedded, src, nn::tgt_masks(causal), nn::memory_masks(key_padding(pad)));
    auto model = rt::compile(graph);
    const tensor_map weights = reference::random_inputs(graph, {2, {70, 7}}, 9);
    model.bind(weights, {.strict = false});
    tensor_map inputs = test::inputs_at(graph, weights, {2, {70, 7}}, 13);
    inputs.at("pad")[3] = 0;
    inputs.at("pad")[9] = 0;
    expect_decoding_equals_forward(model, inputs, no_ids(), 2, 70, 60, {1, 1, 3, 1, 1, 1, 2});
    test::expect_close(model.run(inputs), reference::evaluate(graph, inputs), test::fp32_model);

    // The memory's keys and values (fuse_kv's GEMM, each layer) are made by the prompt's run only.
    const plan::program& p = model.program();
    const auto memory_kv_runs = [&](const std::vector<runtime::step_record>& records) {
        return std::count_if(records.begin(), records.end(), [&](const runtime::step_record& r) {
            return p.display_name(p.steps[r.step].writes).starts_with("layers.{i}.kv(");
        });
    };
    auto decoding = model.start_decoding(2);
    std::vector<runtime::step_record> records;
    host_tensor<float> out;
    decoding.prefill(positions_of(inputs, 70, 0, 4), {}, out, {.profile = &records});
    EXPECT_EQ(memory_kv_runs(records), 2);
    records.clear();
    out = {};
    decoding.step(positions_of(inputs, 70, 4, 1), {}, out, {.profile = &records});
    EXPECT_EQ(memory_kv_runs(records), 0);
    EXPECT_FALSE(records.empty());
    // By hand: each of the 2 layers' self-attention, for 2 sequences × 2 KV heads (the 4 query heads
    // in groups of 2 read their group's once), reads the key (4 floats) and the value (4, its row held
    // padded to a whole vector) of positions 0 to 4; the cache holds the 2 KV heads, not 4.
    const double value_row = std::max<double>(4, HWY_LANES(float));
    expect_profile_counts_the_cache(model, decoding, records, 2 * 2 * 2 * 5 * (4 + value_row) * sizeof(float));
    using head = kernels::HWY_NAMESPACE::cached_head<4, 4>;
    EXPECT_EQ(decoding.cache().bytes(), 2 * 2 * 2 * head::floats(80) * sizeof(float));
    test::expect_close(out, positions(model.run(positions_of(inputs, 70, 0, 5)), 5, 4, 1), decoded);
    // A memory of another length than the prompt's is refused.
    tensor_map shorter = positions_of(inputs, 70, 5, 1);
    shorter.at("src") = host_tensor<float>({2, 6, 16});
    shorter.at("pad") = host_tensor<float>({2, 6});
    out = {};
    EXPECT_THROW(decoding.step(shorter, {}, out), invalid_option);
    // Its memory is of a length of its own: its sequences decode together, never each at its own position.
    out = {};
    try {
        decoding.step(positions_of(inputs, 70, 5, 1), {}, out, {.sequences = {1, 0}});
        ADD_FAILURE() << "a decoder over a memory ran its sequences apart";
    } catch (const invalid_option& e) {
        EXPECT_NE(std::string(e.what()).find("a decoding run of sequences at their own positions"), std::string::npos) << e.what();
    }
}

// Attention that sees later positions has nothing to cache: such a model does not decode.
// Causal self-attention with rotary positions on its queries and keys (LLaMA's, θ 500000), turned in
// the epilogue of the one GEMM that makes q, k and v: the full forward against the reference, then
// decoded token by token and in runs, each run's rows the full forward's, so that each token is
// turned at its own position.
void TestRotaryAttentionDecodesAsItsFullForward() {
    auto x = input<"x", batch, upto<24>, 16>();
    constexpr rotary_spec llama{.head_dim = 4, .theta = 500000};
    auto q = split_heads<4>(rotary<llama>(linear(x, weight<"q.weight", 16, 16>())));
    auto k = split_heads<4>(rotary<llama>(linear(x, weight<"k.weight", 16, 16>())));
    auto v = split_heads<4>(linear(x, weight<"v.weight", 16, 16>()));
    const auto graph = linear(merge_heads(nn::scaled_dot_product_attention(q, k, v, causal)), weight<"o.weight", 16, 16>());
    auto model = rt::compile(graph);
    EXPECT_EQ(std::count_if(model.program().steps.begin(), model.program().steps.end(),
                            [](const plan::step& s) { return s.kernel == "gemm"; }), 2);  // q, k, v as one; o
    const tensor_map inputs = reference::random_inputs(graph, {2, {24}}, 9);
    model.bind(inputs);
    test::expect_close(model.run(inputs), reference::evaluate(graph, inputs), test::fp32_model);
    expect_decoding_equals_forward(model, inputs, {}, 2, 24, 5, {1, 1, 3, 1, 2, 1, 4, 1, 1, 1, 1, 1, 1});  // to the capacity
}

void TestAModelThatCannotDecode() {
    {  // and a model that can decodes no batch whose cache outgrows the address space, nor an empty one
        auto gpt2 = rt::compile(nn::gpt2<tiny>(id_input<"input_ids", batch, upto<24>>()));
        for (const std::size_t batch : {std::size_t{0}, std::size_t{1} << 62})
            EXPECT_THROW(gpt2.start_decoding(batch), invalid_option) << batch;
    }
    auto x = input<"x", batch, upto<8>, 8>();
    auto model = rt::compile(nn::scaled_dot_product_attention(x, x, x));
    try {
        model.start_decoding(1);
        ADD_FAILURE() << "a bidirectional attention decoded";
    } catch (const error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot decode token by token: step 0 (fused_attention"), std::string::npos)
            << e.what();
    }
}

}  // namespace ctformer::tests::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ctformer::tests {
HWY_BEFORE_TEST(Decoding);
HWY_EXPORT_AND_TEST_P(Decoding, TestGPT2AgainstPyTorch);
HWY_EXPORT_AND_TEST_P(Decoding, TestGPT2DecodesAsItsFullForward);
HWY_EXPORT_AND_TEST_P(Decoding, TestSequencesOfADecodingRunAreChecked);
HWY_EXPORT_AND_TEST_P(Decoding, TestDecoderDecodesAsItsFullForward);
HWY_EXPORT_AND_TEST_P(Decoding, TestRotaryAttentionDecodesAsItsFullForward);
HWY_EXPORT_AND_TEST_P(Decoding, TestAModelThatCannotDecode);
}  // namespace ctformer::tests
#endif
