// nn::bert against Hugging Face's BertModel, BertForSequenceClassification and RobertaModel, written
// in plain PyTorch with their names and computation (golden files, tests/data/make_golden.py): a
// batch of 3 sequences of lengths 9, 16 and 5 padded to 16, token types 1 on the second half of each,
// every bias, gain and type embedding random, the two layers distinct. Each is run padded (the
// attention_mask as key padding: every row, the padding's too, as PyTorch computes it) and, for the
// pooled outputs, as a mixed-length batch (the lengths of the mask, no padding work). A weight
// swapped (query with key, the two LayerNorms of a layer, one layer with the other) fails the
// comparison. The generated model from config.json is checked on every target (tests/generator/).
#include <ctformer/runtime/mixed_lengths.hpp>
#include <ctformer/runtime/safetensors.hpp>

#include "support/golden.hpp"

namespace {

namespace nn = ctf::nn;

// The golden files' geometries (their config.json in tests/data/hf/).

constexpr nn::bert_config tiny{.vocabulary = 99, .positions = 24, .d_model = 64, .heads = 4, .d_ff = 96, .layers = 2};
constexpr nn::bert_config tiny_classifier{
    .vocabulary = 99, .positions = 24, .d_model = 64, .heads = 4, .d_ff = 96, .layers = 1, .act = ctf::activation::gelu_tanh};
constexpr nn::bert_config tiny_roberta{.family = nn::bert_family::roberta, .vocabulary = 99, .positions = 20,
                                       .token_types = 1, .d_model = 64, .heads = 4, .d_ff = 96, .layers = 2};

auto ids = ctf::id_input<"input_ids", ctf::batch, ctf::upto<16>>();
auto mask = ctf::bool_input<"attention_mask", ctf::batch, ctf::upto<16>>();
auto types = ctf::id_input<"token_type_ids", ctf::batch, ctf::upto<16>>();

// A golden file's tensors and its token ids.
struct golden_case {
    ctf::tensor_map tensors;
    ctf::id_map ids;

    explicit golden_case(const std::string& name) : tensors(test::golden(name)) {
        const ctf::safetensors_file file(std::string(CTFORMER_GOLDEN_DIR) + "/" + name + ".safetensors");
        for (const char* id_name : {"input_ids", "token_type_ids"})
            if (file.entries().contains(id_name)) ids.emplace(id_name, file.ids(id_name));
    }
    std::vector<std::size_t> lengths() const { return *ctf::runtime::lengths_of_mask(tensors.at("attention_mask")); }
};

// A model's outputs for the case: padded, by the mask's lengths, and the last hidden state (kept
// from the padded run).
struct outputs {
    ctf::host_tensor<float> padded, mixed, hidden;
};

template <class Graph>
outputs run(const Graph& graph, const golden_case& c, std::string hidden_name = "encoder.layer.1.output") {
    auto model = ctf::compile(graph);
    model.bind(c.tensors, test::with_outputs);
    outputs out;
    model.run(c.tensors, c.ids, out.padded, {.threads = 2, .keep = {{std::move(hidden_name), &out.hidden}}});
    model.run(c.tensors, c.ids, out.mixed, {.threads = 2, .lengths = c.lengths()});
    return out;
}

auto pooler_with_types() { return nn::bert_pooler<tiny>(nn::bert<tiny>(ids, mask, types)); }

TEST(PyTorchBert, HiddenStateAndPoolerByHuggingFaceNames) {
    const golden_case c("bert_2_layers");
    const auto out = run(pooler_with_types(), c);
    test::expect_close(out.hidden, c.tensors.at("last_hidden_state"), test::fp32_against_pytorch, "last_hidden_state");
    test::expect_close(out.padded, c.tensors.at("pooler_output"), test::fp32_against_pytorch, "pooler_output");
    test::expect_close(out.mixed, c.tensors.at("pooler_output"), test::fp32_against_pytorch, "pooler_output, by lengths");
    test::expect_close(ctf::reference::evaluate(pooler_with_types(), c.tensors, c.ids), c.tensors.at("pooler_output"),
                       test::fp32_against_pytorch, "pooler_output (reference)");
}

TEST(PyTorchBert, TokenTypesDefaultToZero) {
    const golden_case c("bert_2_layers");
    const auto out = run(nn::bert_pooler<tiny>(nn::bert<tiny>(ids, mask)), c);
    test::expect_close(out.hidden, c.tensors.at("last_hidden_state_no_types"), test::fp32_against_pytorch, "hidden");
    test::expect_close(out.padded, c.tensors.at("pooler_output_no_types"), test::fp32_against_pytorch, "pooler_output");
}

TEST(PyTorchBert, SentenceEmbeddingsAreNormalisedMeansOfRealTokens) {
    const golden_case c("bert_2_layers");
    const auto out = run(nn::sentence_embedding(nn::bert<tiny>(ids, mask, types), mask), c);
    test::expect_close(out.padded, c.tensors.at("sentence_embedding"), test::fp32_against_pytorch, "padded");
    test::expect_close(out.mixed, c.tensors.at("sentence_embedding"), test::fp32_against_pytorch, "by lengths");
}

TEST(PyTorchBert, SequenceClassificationWithItsPrefixAndGeluNew) {
    const golden_case c("bert_classifier");
    constexpr auto& C = tiny_classifier;
    const auto graph = nn::bert_classifier<C, 3>(nn::bert_pooler<C, "bert.">(nn::bert<C, "bert.">(ids, mask, types)));
    const auto out = run(graph, c, "bert.encoder.layer.0.output");
    test::expect_close(out.padded, c.tensors.at("logits"), test::fp32_against_pytorch, "logits");
    test::expect_close(out.mixed, c.tensors.at("logits"), test::fp32_against_pytorch, "logits, by lengths");
}

// The rows [B, L, D] of the sequences' real tokens, one after another: [T, D].
ctf::host_tensor<float> real_rows(const ctf::host_tensor<float>& t, const std::vector<std::size_t>& lengths) {
    const std::size_t length = t.dims[1], d = t.dims[2];
    ctf::host_tensor<float> rows;
    for (std::size_t b = 0; b < lengths.size(); ++b)
        rows.data.insert(rows.data.end(), t.data.begin() + b * length * d, t.data.begin() + (b * length + lengths[b]) * d);
    rows.dims = {rows.data.size() / d, d};
    return rows;
}

// Hugging Face gives a padding token position padding_idx, ctformer the next one along: the
// padding's rows differ, and no real token reads them (key padding).
TEST(PyTorchBert, RobertaPositionsStartPastThePaddingIndex) {
    const golden_case c("roberta_2_layers");
    constexpr auto& C = tiny_roberta;
    const auto out = run(nn::bert_pooler<C, "roberta.">(nn::bert<C, "roberta.">(ids, mask)), c, "roberta.encoder.layer.1.output");
    test::expect_close(real_rows(out.hidden, c.lengths()), real_rows(c.tensors.at("last_hidden_state"), c.lengths()),
                       test::fp32_against_pytorch, "last_hidden_state, the real tokens' rows");
    test::expect_close(out.padded, c.tensors.at("pooler_output"), test::fp32_against_pytorch, "pooler_output");
    test::expect_close(out.mixed, c.tensors.at("pooler_output"), test::fp32_against_pytorch, "pooler_output, by lengths");
}

// The two tensors' values exchanged (their shapes are the same).
ctf::tensor_map swapped(ctf::tensor_map t, const std::string& a, const std::string& b) {
    std::swap(t.at(a).data, t.at(b).data);
    return t;
}

// The golden weights with one mistake each, by what the mistake is.
std::vector<std::pair<std::string, ctf::tensor_map>> mistakes(const ctf::tensor_map& t) {
    const std::string layer0 = "encoder.layer.0.", layer1 = "encoder.layer.1.";
    ctf::tensor_map layers = t;
    for (const auto& [name, value] : t)
        if (name.starts_with(layer0)) layers = swapped(layers, name, layer1 + name.substr(layer0.size()));
    const std::string attention_norm = layer1 + "attention.output.LayerNorm.", output_norm = layer1 + "output.LayerNorm.";
    return {{"query with key", swapped(t, layer0 + "attention.self.query.weight", layer0 + "attention.self.key.weight")},
            {"the two LayerNorms of a layer", swapped(swapped(t, attention_norm + "weight", output_norm + "weight"),
                                                      attention_norm + "bias", output_norm + "bias")},
            {"layer 0 with layer 1", layers}};
}

TEST(PyTorchBert, ASwappedWeightFailsTheComparison) {
    golden_case c("bert_2_layers");
    auto model = ctf::compile(pooler_with_types());
    for (const auto& [mistake, tensors] : mistakes(c.tensors)) {
        model.bind(tensors, test::with_outputs);
        ctf::host_tensor<float> pooled;
        model.run(tensors, c.ids, pooled);
        EXPECT_FALSE(test::compare(pooled, c.tensors.at("pooler_output"), test::fp32_against_pytorch).ok()) << mistake;
    }
}

// f() throws an Error naming `tensor`.
template <class Error, class F>
void expect_error_naming(F f, const std::string& tensor) {
    try {
        f();
        ADD_FAILURE() << "no error naming " << tensor;
    } catch (const Error& e) {
        EXPECT_EQ(e.tensor(), tensor) << e.what();
    }
}

TEST(PyTorchBert, MistakesAreTypedErrorsNamingTheTensor) {
    const golden_case c("bert_2_layers");
    auto model = ctf::compile(pooler_with_types());
    model.bind(c.tensors, test::with_outputs);
    ctf::host_tensor<float> y;
    ctf::id_map bad_ids = c.ids;
    bad_ids.at("input_ids").data[5] = 99;
    expect_error_naming<ctf::token_id_out_of_range>([&] { model.run(c.tensors, bad_ids, y); }, "input_ids");
    // In a mixed-length batch (lengths 9, 16, 5), where the user's tensor holds it: [1,3] of the
    // padded ids, [12] of packed ones; not the packed position, 12, told as [0,12].
    ctf::id_map late_bad_ids = c.ids;
    late_bad_ids.at("input_ids").data[16 + 3] = 99;
    try {
        model.run(c.tensors, late_bad_ids, y, {.lengths = c.lengths()});
        ADD_FAILURE() << "no token_id_out_of_range";
    } catch (const ctf::token_id_out_of_range& e) {
        EXPECT_EQ(e.index(), (ctf::dims_t{1, 3})) << e.what();
    }
    ctf::id_map packed;  // the same ids packed: the bad one is token 9 + 3
    for (const auto& [name, t] : late_bad_ids) {
        ctf::id_tensor& p = packed[name];
        for (std::size_t b = 0; b < 3; ++b)
            p.data.insert(p.data.end(), t.data.begin() + b * 16, t.data.begin() + b * 16 + c.lengths()[b]);
        p.dims = {p.data.size()};
    }
    ctf::tensor_map packed_mask = c.tensors;
    packed_mask.at("attention_mask") = ctf::host_tensor<float>({30}, std::vector<float>(30, 1.0f));
    try {
        model.run(packed_mask, packed, y, {.lengths = c.lengths()});
        ADD_FAILURE() << "no token_id_out_of_range";
    } catch (const ctf::token_id_out_of_range& e) {
        EXPECT_EQ(e.index(), (ctf::dims_t{12})) << e.what();
    }
    ctf::tensor_map short_mask = c.tensors;
    short_mask.at("attention_mask") = ctf::host_tensor<float>({3, 15});
    expect_error_naming<ctf::shape_mismatch>([&] { model.run(short_mask, c.ids, y); }, "attention_mask");
    ctf::tensor_map missing = c.tensors;
    missing.erase("encoder.layer.1.intermediate.dense.bias");
    expect_error_naming<ctf::missing_tensor>([&] { model.bind(missing, test::with_outputs); },
                                             "encoder.layer.1.intermediate.dense.bias");
    ctf::tensor_map misshapen = c.tensors;
    misshapen.at("embeddings.token_type_embeddings.weight") = ctf::host_tensor<float>({3, 64});
    expect_error_naming<ctf::shape_mismatch>([&] { model.bind(misshapen, test::with_outputs); },
                                             "embeddings.token_type_embeddings.weight");
}

}  // namespace
