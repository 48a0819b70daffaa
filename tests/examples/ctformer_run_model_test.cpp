// ctformer-run --model DIR: a Hugging Face BERT-family folder run on token ids, as a user runs it.
// A full MiniLM-L6 (all-MiniLM-L6-v2's geometry) with random weights written at test time (91 MB),
// its hidden state, pooler output and sentence embeddings against the reference evaluator; and
// every way the folder, the ids, the mask or the command line can be wrong, each one line naming it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <ctformer/ctformer.hpp>
#include <ctformer/reference/evaluate.hpp>
#include <ctformer/reference/random_inputs.hpp>
#include <ctformer/runtime/npy.hpp>
#include <ctformer/runtime/safetensors.hpp>

#include "support/command.hpp"
#include "support/compare.hpp"

namespace {

namespace fs = std::filesystem;
namespace nn = ctf::nn;

constexpr nn::bert_config minilm = nn::minilm_l6;

test::outcome ctformer_run(const std::string& arguments) {
    return test::run_command(std::string(CTFORMER_RUN) + " " + arguments);
}

// Exit status `status`, and `message` in what was printed: one line.
void expect_failure(const std::string& arguments, int status, const std::string& message) {
    const test::outcome run = ctformer_run(arguments);
    EXPECT_EQ(run.status, status) << arguments << "\n" << run.printed;
    EXPECT_NE(run.printed.find(message), std::string::npos) << arguments << "\n" << run.printed;
    if (status == 1) {
        EXPECT_EQ(std::count(run.printed.begin(), run.printed.end(), '\n'), 1) << run.printed;
    }
}

// A .npy of `descr` ('<i8', '|b1', ...) holding `values`, each element `sizeof(T)` bytes.
template <class T>
void write_npy_of(const fs::path& path, const std::string& descr, const ctf::dims_t& dims, const std::vector<T>& values) {
    std::string shape = "(";
    for (std::size_t d : dims) shape += std::to_string(d) + ", ";
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + "), }";
    header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ').push_back('\n');
    const auto length = static_cast<std::uint16_t>(header.size());
    std::ofstream out(path, std::ios::binary);
    out.write("\x93NUMPY\x01\x00", 8).write(reinterpret_cast<const char*>(&length), 2);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(T)));
}

// config.json of a BERT of `c`'s sizes, in `dir`.
void write_config(const fs::path& dir, const nn::bert_config& c) {
    fs::create_directories(dir);
    std::ofstream(dir / "config.json") << R"({"architectures": ["BertModel"], "model_type": "bert", "hidden_act": "gelu",
        "hidden_size": )" << c.d_model << R"(, "intermediate_size": )" << c.d_ff << R"(, "num_attention_heads": )"
                                       << c.heads << R"(, "num_hidden_layers": )" << c.layers
                                       << R"(, "max_position_embeddings": )" << c.positions << R"(, "type_vocab_size": )"
                                       << c.token_types << R"(, "vocab_size": )" << c.vocabulary
                                       << R"(, "layer_norm_eps": 1e-12, "pad_token_id": 0})";
}

auto ids = ctf::id_input<"input_ids", ctf::batch, ctf::upto<512>>();
auto mask = ctf::bool_input<"attention_mask", ctf::batch, ctf::upto<512>>();
auto types = ctf::id_input<"token_type_ids", ctf::batch, ctf::upto<512>>();

// Two sequences, of 8 and 5 tokens, padded to 8; types 1 on the second half of each.
constexpr std::size_t batch = 2, length = 8;
const std::vector<std::size_t> lengths{8, 5};

std::string path_of(const fs::path& p) { return p.string(); }

class CtformerRunModel : public ::testing::Test {
protected:
    // One checkpoint for the suite: MiniLM-L6's 22.7 M weights, random, as BertModel names them.
    static void SetUpTestSuite() {
        dir() = test::temp_path("minilm");
        write_config(dir(), minilm);
        weights() = ctf::reference::random_inputs(nn::bert_pooler<minilm>(nn::bert<minilm>(ids, mask, types)),
                                                  ctf::extent_values{batch, {length}});
        weights().erase("attention_mask");
        ctf::write_safetensors(dir() / "model.safetensors", weights());
    }
    static void TearDownTestSuite() { fs::remove_all(dir()); }
    static fs::path& dir() {
        static fs::path d;
        return d;
    }
    static ctf::tensor_map& weights() {
        static ctf::tensor_map w;
        return w;
    }

    void SetUp() override {
        in_ids = ctf::reference::random_ids(ids, ctf::extent_values{batch, {length}}, minilm.vocabulary, 3).at("input_ids");
        in_types = ctf::id_tensor({batch, length});
        in_mask = ctf::host_tensor<float>({batch, length});
        for (std::size_t b = 0; b < batch; ++b)
            for (std::size_t l = 0; l < length; ++l) {
                in_types[b * length + l] = l >= lengths[b] / 2 ? 1 : 0;
                in_mask[b * length + l] = l < lengths[b] ? 1.0f : 0.0f;
            }
        // int64, as Hugging Face's tokenizers return them
        write_npy_of(file("ids.npy"), "<i8", in_ids.dims, std::vector<std::int64_t>(in_ids.data.begin(), in_ids.data.end()));
        write_npy_of(file("types.npy"), "<i8", in_types.dims, std::vector<std::int64_t>(in_types.data.begin(), in_types.data.end()));
        write_npy_of(file("mask.npy"), "<i8", in_mask.dims, std::vector<std::int64_t>(in_mask.data.begin(), in_mask.data.end()));
    }
    std::string file(const std::string& name) const { return path_of(test::temp_path(name)); }
    std::string args(const std::string& output, const std::string& ids_file = "ids.npy") const {
        return "--model " + path_of(dir()) + " --input-ids " + file(ids_file) + " --attention-mask " + file("mask.npy") +
               " --token-type-ids " + file("types.npy") + " --threads 2 --output " + file(output);
    }
    ctf::tensor_map reference_inputs() const {
        ctf::tensor_map t = weights();
        t.emplace("attention_mask", in_mask);
        return t;
    }
    ctf::id_map reference_ids() const { return {{"input_ids", in_ids}, {"token_type_ids", in_types}}; }

    ctf::id_tensor in_ids, in_types;
    ctf::host_tensor<float> in_mask;
};

// fp32 against the double reference (the largest difference measured: 1.2e-7, the hidden state's).
constexpr test::tolerance fp32_model{.atol = 1e-5, .rtol = 1e-5};

TEST_F(CtformerRunModel, SentenceEmbeddingsAreUnitVectorsAndMatchTheReference) {
    const test::outcome run = ctformer_run(args("e.npy") + " --sentence-embedding");
    ASSERT_EQ(run.status, 0) << run.printed;
    EXPECT_NE(run.printed.find("minilm-l6: "), std::string::npos) << run.printed;
    EXPECT_NE(run.printed.find("(by the mask's lengths)"), std::string::npos) << run.printed;  // no padding work
    const ctf::host_tensor<float> e = ctf::read_npy(file("e.npy"));
    ASSERT_EQ(e.dims, (ctf::dims_t{batch, 384}));
    for (std::size_t b = 0; b < batch; ++b) {
        double squares = 0;
        for (std::size_t i = 0; i < 384; ++i) squares += double(e[b * 384 + i]) * e[b * 384 + i];
        EXPECT_NEAR(std::sqrt(squares), 1.0, 1e-5) << "sequence " << b;
    }
    const auto want = ctf::reference::evaluate(nn::sentence_embedding(nn::bert<minilm>(ids, mask, types), mask),
                                               reference_inputs(), reference_ids());
    test::expect_close(e, want, fp32_model, "minilm-l6 sentence embeddings");
}

TEST_F(CtformerRunModel, PoolerAndHiddenStateMatchTheReference) {
    const test::outcome pooled = ctformer_run(args("p.npy") + " --pooler");
    ASSERT_EQ(pooled.status, 0) << pooled.printed;
    test::expect_close(ctf::read_npy(file("p.npy")),
                       ctf::reference::evaluate(nn::bert_pooler<minilm>(nn::bert<minilm>(ids, mask, types)),
                                                reference_inputs(), reference_ids()),
                       fp32_model, "minilm-l6 pooler output");
    // Every row, the padding's too, as BertModel computes it; the mask given as bool this time.
    write_npy_of(file("bool_mask.npy"), "|b1", in_mask.dims, std::vector<std::uint8_t>(in_mask.data.begin(), in_mask.data.end()));
    const test::outcome hidden = ctformer_run("--model " + path_of(dir()) + " --input-ids " + file("ids.npy") +
                                              " --attention-mask " + file("bool_mask.npy") + " --token-type-ids " +
                                              file("types.npy") + " --output " + file("h.npy"));
    ASSERT_EQ(hidden.status, 0) << hidden.printed;
    test::expect_close(ctf::read_npy(file("h.npy")),
                       ctf::reference::evaluate(nn::bert<minilm>(ids, mask, types), reference_inputs(), reference_ids()),
                       fp32_model, "minilm-l6 last hidden state");
}

// A pretraining checkpoint's head (here in a second shard) is named and refused, or ignored and
// counted with --non-strict.
TEST_F(CtformerRunModel, TensorsTheModelDoesNotReadAreNamedOrWithNonStrictCounted) {
    const fs::path sharded = test::temp_path("sharded");
    write_config(sharded, minilm);
    fs::create_symlink(dir() / "model.safetensors", sharded / "base.safetensors");
    ctf::write_safetensors(sharded / "head.safetensors", {{"cls.predictions.bias", ctf::host_tensor<float>({4})}});
    std::ofstream index(sharded / "model.safetensors.index.json");
    index << R"({"weight_map": {"cls.predictions.bias": "head.safetensors")";
    for (const auto& [name, t] : weights()) index << ", \"" << name << "\": \"base.safetensors\"";
    index << "}}";
    index.close();
    const std::string run = "--model " + path_of(sharded) + " --input-ids " + file("ids.npy") + " --output " + file("s.npy");
    expect_failure(run, 1, "1 tensor(s) the model does not read: 'cls.predictions.bias' (run with --non-strict to allow it)");
    const test::outcome lenient = ctformer_run(run + " --non-strict --sentence-embedding");
    ASSERT_EQ(lenient.status, 0) << lenient.printed;
    EXPECT_NE(lenient.printed.find("--non-strict: ignored 1 tensor(s)"), std::string::npos) << lenient.printed;
    fs::remove_all(sharded);
}

// BertForMaskedLM's checkpoint: the base model under "bert.", no pooler, and its head: read by the
// base model's names, the head refused (or ignored), --pooler refused for the weights it lacks.
TEST_F(CtformerRunModel, AHeadsCheckpointIsReadByItsBaseModelsNames) {
    const fs::path masked_lm = test::temp_path("masked_lm");
    write_config(masked_lm, minilm);
    ctf::tensor_map renamed;
    for (const auto& [name, t] : weights())
        if (!name.starts_with("pooler.")) renamed.emplace("bert." + name, t);
    renamed.emplace("cls.predictions.bias", ctf::host_tensor<float>({minilm.vocabulary}));
    ctf::write_safetensors(masked_lm / "model.safetensors", renamed);
    const std::string run = args("m.npy").replace(args("m.npy").find(path_of(dir())), path_of(dir()).size(), path_of(masked_lm));
    expect_failure(run + " --sentence-embedding", 1, "'cls.predictions.bias' (run with --non-strict to allow it)");
    expect_failure(run + " --pooler --non-strict", 1, "masked_lm: tensor 'pooler.dense.");
    expect_failure(run + " --pooler --non-strict", 1, "' is missing (expected shape [_384");
    ASSERT_EQ(ctformer_run(run + " --sentence-embedding --non-strict").status, 0);
    ASSERT_EQ(ctformer_run(args("e.npy") + " --sentence-embedding").status, 0);
    EXPECT_EQ(ctf::read_npy(file("m.npy")).data, ctf::read_npy(file("e.npy")).data);
    fs::remove_all(masked_lm);
}

// An id outside the vocabulary in the second, shorter sequence of a mixed-length run is named where
// it is in the file, [1,2], not where the packed batch holds it.
TEST_F(CtformerRunModel, AnIdOutsideTheVocabularyIsNamedWhereTheFileHoldsIt) {
    std::vector<std::int64_t> bad(in_ids.data.begin(), in_ids.data.end());
    bad[length + 2] = minilm.vocabulary;
    write_npy_of(file("bad_ids.npy"), "<i8", in_ids.dims, bad);
    expect_failure(args("b.npy", "bad_ids.npy") + " --sentence-embedding", 1,
                   "bad_ids.npy: tensor 'input_ids' holds the token id 30522 at [1,2], outside the vocabulary");
    expect_failure(args("b.npy", "bad_ids.npy"), 1, "holds the token id 30522 at [1,2]");  // the padded run's too
    bad[length + 2] = std::int64_t{1} << 40;
    write_npy_of(file("wide_ids.npy"), "<i8", in_ids.dims, bad);
    expect_failure(args("b.npy", "wide_ids.npy"), 1, "the token id 1099511627776 at [1,2] does not fit int32");
}

// The ids, the mask and the token types, each wrong in its own way, before any weight is read.
TEST_F(CtformerRunModel, WrongInputsAreNamedWithWhatWasExpected) {
    write_npy_of(file("short_mask.npy"), "<i8", {batch, length - 1}, std::vector<std::int64_t>(batch * (length - 1), 1));
    expect_failure(args("y.npy") + " --attention-mask " + file("short_mask.npy"), 1,
                   "short_mask.npy, tensor 'attention_mask': shape [2,7], expected [2,8] (input_ids' shape)");
    write_npy_of(file("two_mask.npy"), "<i8", {batch, length}, std::vector<std::int64_t>(batch * length, 2));
    expect_failure(args("y.npy") + " --attention-mask " + file("two_mask.npy"), 1,
                   "two_mask.npy: holds 2 at [0,0]: a mask holds 0 (padding) and 1 (a real token)");
    write_npy_of(file("short_types.npy"), "<i4", {batch, 3}, std::vector<std::int32_t>(batch * 3, 0));
    expect_failure(args("y.npy") + " --token-type-ids " + file("short_types.npy"), 1,
                   "tensor 'token_type_ids': shape [2,3], expected [2,8]");
    ctf::write_npy(file("float_ids.npy"), ctf::host_tensor<float>({batch, length}));
    expect_failure(args("y.npy", "float_ids.npy"), 1, "float_ids.npy: dtype '<f4' is not token ids");
    write_npy_of(file("flat_ids.npy"), "<i4", {length}, std::vector<std::int32_t>(length, 0));
    expect_failure(args("y.npy", "flat_ids.npy"), 1,
                   "flat_ids.npy, tensor 'input_ids': shape [8], expected [batch, length] with length 1 to 512 (model minilm-l6)");
    write_npy_of(file("long_ids.npy"), "<i4", {1, 513}, std::vector<std::int32_t>(513, 0));
    expect_failure(args("y.npy", "long_ids.npy"), 1, "shape [1,513], expected [batch, length] with length 1 to 512");
}

// config.json of a geometry ctformer-run is not built with: the line that builds it.
TEST(CtformerRunModelConfig, AnotherGeometryNamesTheLineThatBuildsIt) {
    const std::string tiny = std::string(CTFORMER_HF_DIR) + "/bert_tiny";
    const std::string config = (fs::absolute(tiny) / "config.json").lexically_normal().string();
    expect_failure("--model " + tiny + " --input-ids ids.npy --output y.npy", 1,
                   "bert: 2 layers, hidden 64, 4 heads, intermediate 96, vocab 99, positions 24, types 2, gelu, eps 1e-12 "
                   "is not one of ctformer-run's models (bert-base, minilm-l6); build it with ctformer_add_model(bert_tiny "
                   "HF_CONFIG " + config + ")");
    expect_failure("--model " + std::string(CTFORMER_HF_DIR) + "/roberta_tiny --input-ids ids.npy --output y.npy", 1,
                   "ctformer_add_model(roberta_tiny HF_CONFIG ");
    // MiniLM's sizes with another eps is another model
    const fs::path other = test::temp_path("other_eps");
    write_config(other, minilm);
    std::string text;
    {
        std::ifstream in(other / "config.json");
        text.assign(std::istreambuf_iterator<char>(in), {});
    }
    text.replace(text.find("1e-12"), 5, "1e-05");
    std::ofstream(other / "config.json") << text;
    expect_failure("--model " + path_of(other) + " --input-ids ids.npy --output y.npy", 1, "eps 1e-05 is not one of");
    fs::remove_all(other);
}

TEST(CtformerRunModelConfig, ABadFolderOrCommandLineIsNamed) {
    const fs::path bad = test::temp_path("quick_gelu"), llama = test::temp_path("tinyllama");
    for (const auto& [dir, file] : {std::pair{bad, "quick_gelu.json"}, std::pair{llama, "tinyllama.json"}}) {
        fs::create_directories(dir);
        fs::copy_file(std::string(CTFORMER_HF_DIR) + "/config_cases/" + file, dir / "config.json");
    }
    expect_failure("--model " + path_of(bad) + " --input-ids ids.npy --output y.npy", 1, "config.json: hidden_act: ");
    // A decoder is not one of ctformer-run's encoders: the line that builds it is named.
    expect_failure("--model " + path_of(llama) + " --input-ids ids.npy --output y.npy", 1,
                   "config.json: llama: 22 layers, hidden 2048, 32 heads (4 kv)");
    expect_failure("--model " + path_of(test::temp_path("absent")) + " --input-ids ids.npy --output y.npy", 1,
                   "absent/config.json: cannot open");
    const fs::path empty = test::temp_path("no_weights");
    write_config(empty, minilm);
    write_npy_of(test::temp_path("ids.npy"), "<i4", {1, 3}, std::vector<std::int32_t>{101, 7, 102});
    expect_failure("--model " + path_of(empty) + " --input-ids " + path_of(test::temp_path("ids.npy")) + " --output " +
                       path_of(test::temp_path("y.npy")),
                   1, "holds neither model.safetensors nor model.safetensors.index.json");
    const std::string model = "--model " + path_of(empty);
    expect_failure(model + " --input-ids i.npy --output y.npy --pooler --sentence-embedding", 2, "one result at a time");
    expect_failure(model + " --input-ids i.npy --output y.npy --weights w.safetensors", 2, "--weights is not taken with --model");
    expect_failure(model + " --output y.npy", 2, "--model needs --input-ids and --output");
    expect_failure("--input-ids i.npy --weights w --input x --output y", 2, "--input-ids is taken with --model DIR");
    fs::remove_all(bad);
    fs::remove_all(llama);
    fs::remove_all(empty);
}

TEST(CtformerRunModelConfig, HelpListsTheModelsAndTheirOptions) {
    const test::outcome help = ctformer_run("--help");
    ASSERT_EQ(help.status, 0) << help.printed;
    for (const char* expected :
         {"--model DIR", "--input-ids F", "--attention-mask F", "--token-type-ids F", "--pooler", "--sentence-embedding",
          "bert: 12 layers, hidden 768, 12 heads, intermediate 3072, vocab 30522, positions 512, types 2, gelu, eps 1e-12",
          "bert: 6 layers, hidden 384, 12 heads, intermediate 1536, vocab 30522, positions 512, types 2, gelu, eps 1e-12"})
        EXPECT_NE(help.printed.find(expected), std::string::npos) << expected << " in\n" << help.printed;
}

}  // namespace
