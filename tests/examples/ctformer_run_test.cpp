// ctformer-run, the command-line runner, as a user runs it: weights with PyTorch's names written to
// .safetensors, an input .npy, and the output read back. Each configuration against the reference
// evaluator; lengths from 1 to the longest, unbatched inputs, attention weights and every way the
// command line or the files can be wrong.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <ctformer/ctformer.hpp>
#include <ctformer/reference/evaluate.hpp>
#include <ctformer/reference/random_inputs.hpp>
#include <ctformer/runtime/npy.hpp>
#include <ctformer/runtime/safetensors.hpp>

#include "support/command.hpp"
#include "support/compare.hpp"

namespace {

constexpr ctf::nn::config seeds{.d_model = 512, .heads = 8, .d_ff = 2048};
constexpr ctf::nn::config bert_base{
    .d_model = 768, .heads = 12, .d_ff = 3072, .act = ctf::nn::activation::gelu, .eps = 1e-12};

std::string in_temp(const std::string& name) { return test::temp_path(name).string(); }

using test::outcome;

outcome ctformer_run(const std::string& arguments) {
    return test::run_command(std::string(CTFORMER_RUN) + " " + arguments);
}

// ctformer's {prefix}q/k/v_proj_* stacked into PyTorch's {prefix}in_proj_weight / in_proj_bias.
ctf::tensor_map with_pytorch_names(ctf::tensor_map tensors) {
    for (const std::string kind : {"weight", "bias"}) {
        for (auto q = tensors.begin(); q != tensors.end(); ++q) {
            const std::size_t at = q->first.rfind("q_proj_" + kind);
            if (at == std::string::npos || at + 7 + kind.size() != q->first.size()) continue;
            const std::string prefix = q->first.substr(0, at);
            ctf::host_tensor<float> stacked = q->second;
            stacked.dims[0] *= 3;
            for (const char* part : {"k", "v"}) {
                const ctf::host_tensor<float>& t = tensors.at(prefix + part + "_proj_" + kind);
                stacked.data.insert(stacked.data.end(), t.data.begin(), t.data.end());
            }
            tensors[prefix + "in_proj_" + kind] = std::move(stacked);
        }
        std::erase_if(tensors, [&](const auto& entry) { return entry.first.find("_proj_" + kind) != std::string::npos &&
                                                                entry.first.find("in_proj_") == std::string::npos; });
    }
    return tensors;
}

// Random weights for `graph` (PyTorch's names) in name.safetensors; returns them with an input "x".
template <class Graph>
ctf::tensor_map write_weights(const Graph& graph, std::size_t batch, const std::string& name, unsigned seed = 7) {
    const ctf::tensor_map tensors = ctf::reference::random_inputs(graph, batch, seed);
    ctf::tensor_map weights = tensors;
    weights.erase("x");
    ctf::write_safetensors(in_temp(name + ".safetensors"), with_pytorch_names(std::move(weights)));
    return tensors;
}

// "--weights W.safetensors --input X.npy --output Y.npy" in the temporary directory.
std::string files(const std::string& weights, const std::string& input, const std::string& output) {
    return "--weights " + in_temp(weights + ".safetensors") + " --input " + in_temp(input + ".npy") + " --output " +
           in_temp(output + ".npy");
}

ctf::host_tensor<float> first_rows(ctf::host_tensor<float> t, ctf::dims_t dims) {
    t.data.resize(ctf::element_count(dims));
    t.dims = std::move(dims);
    return t;
}

// Encoder outputs (LayerNorm rows) and attention weights are O(1): fp32 against the double
// reference within 1e-5 + 1e-4·|want|.
constexpr test::tolerance fp32_model{.atol = 1e-5, .rtol = 1e-4};

TEST(CtformerRun, SeedsLayerWithAttentionWeightsMatchesTheReference) {
    auto graph = ctf::nn::encoder_layer_with_weights<seeds>(ctf::input<"x", ctf::batch, 10, 512>());
    const ctf::tensor_map tensors = write_weights(graph, 2, "seeds");
    ctf::write_npy(in_temp("seeds_x.npy"), tensors.at("x"));
    const outcome run =
        ctformer_run(files("seeds", "seeds_x", "seeds_y") + " --threads 2 --attention-weights " + in_temp("seeds_a.npy"));
    ASSERT_EQ(run.status, 0) << run.printed;
    EXPECT_NE(run.printed.find("[2,10,512] -> "), std::string::npos) << run.printed;  // at its own length
    ctf::reference::evaluator evaluate(tensors);
    const ctf::host_tensor<float> y = ctf::read_npy(in_temp("seeds_y.npy"));
    test::expect_close(y, evaluate(graph), fp32_model, "seeds-layer");
    test::expect_close(ctf::read_npy(in_temp("seeds_a.npy")), evaluate.intermediate("self_attn.attn_weights"),
                       fp32_model, "seeds-layer attention weights");

    // The first sequence alone, without a batch dimension: the same rows.
    ctf::write_npy(in_temp("seeds_x1.npy"), first_rows(tensors.at("x"), {10, 512}));
    ASSERT_EQ(ctformer_run(files("seeds", "seeds_x1", "seeds_y1")).status, 0);
    test::expect_close(ctf::read_npy(in_temp("seeds_y1.npy")), first_rows(y, {10, 512}), {.atol = 1e-6},
                       "one sequence, unbatched");
}

// One weights file, inputs of length 1, 37 and 128 (the configuration's longest): each at its length.
TEST(CtformerRun, SeedsLayerRunsEveryLengthUpToItsLongest) {
    auto graph = ctf::nn::encoder_layer<seeds>(ctf::input<"x", ctf::batch, ctf::upto<128>, 512>());
    ctf::tensor_map tensors = write_weights(graph, 1, "lengths");
    const ctf::host_tensor<float> longest = tensors.at("x");
    for (std::size_t length : {1, 37, 128}) {
        tensors.at("x") = first_rows(longest, {1, length, 512});
        ctf::write_npy(in_temp("lengths_x.npy"), tensors.at("x"));
        const outcome run = ctformer_run(files("lengths", "lengths_x", "lengths_y") + " --threads 2");
        ASSERT_EQ(run.status, 0) << run.printed;
        test::expect_close(ctf::read_npy(in_temp("lengths_y.npy")), ctf::reference::evaluate(graph, tensors), fp32_model,
                           "length " + std::to_string(length));
    }
    const ctf::host_tensor<float> too_long({1, 129, 512});
    ctf::write_npy(in_temp("lengths_x.npy"), too_long);
    const outcome run = ctformer_run(files("lengths", "lengths_x", "lengths_y"));
    EXPECT_EQ(run.status, 1) << run.printed;
    EXPECT_NE(run.printed.find("length 1 to 128"), std::string::npos) << run.printed;
}

TEST(CtformerRun, BertBaseLayerMatchesTheReference) {
    auto graph = ctf::nn::encoder_layer<bert_base>(ctf::input<"x", ctf::batch, 5, 768>());
    const ctf::tensor_map tensors = write_weights(graph, 1, "bert");
    ctf::write_npy(in_temp("bert_x.npy"), tensors.at("x"));
    const outcome run = ctformer_run(files("bert", "bert_x", "bert_y") + " --config bert-base-layer");
    ASSERT_EQ(run.status, 0) << run.printed;
    test::expect_close(ctf::read_npy(in_temp("bert_y.npy")), ctf::reference::evaluate(graph, tensors), fp32_model,
                       "bert-base-layer");
}

TEST(CtformerRun, SixLayerEncoderMatchesTheReference) {
    auto graph = ctf::nn::encoder<seeds, 6>(ctf::input<"x", ctf::batch, 7, 512>());
    const ctf::tensor_map tensors = write_weights(graph, 2, "stack");  // every layer its own weights
    ctf::write_npy(in_temp("stack_x.npy"), tensors.at("x"));
    const outcome run = ctformer_run(files("stack", "stack_x", "stack_y") + " --config encoder-6 --profile");
    ASSERT_EQ(run.status, 0) << run.printed;
    test::expect_close(ctf::read_npy(in_temp("stack_y.npy")), ctf::reference::evaluate(graph, tensors), fp32_model,
                       "encoder-6");
    // --profile: each step of the layer's body run six times, and the total against the FMA peak
    for (const char* expected : {"== profile (", "B=2, L=7,", "FMA peak", "fused_attention", "      6 ", "% of the peak"})
        EXPECT_NE(run.printed.find(expected), std::string::npos) << expected << " in\n" << run.printed;
}

TEST(CtformerRun, ExplainAlonePrintsThePlan) {
    const outcome run = ctformer_run("--explain");
    ASSERT_EQ(run.status, 0) << run.printed;
    EXPECT_NE(run.printed.find("fused_attention"), std::string::npos) << run.printed;
    EXPECT_NE(run.printed.find("residual_layer_norm"), std::string::npos) << run.printed;
}

// --help lists each configuration's hyper-parameters under nn::config's names, from its one field list.
TEST(CtformerRun, HelpListsEachConfigurationsFields) {
    const outcome help = ctformer_run("--help");
    ASSERT_EQ(help.status, 0) << help.printed;
    for (const ctf::nn::config& c : {seeds, bert_base})
        EXPECT_NE(help.printed.find(ctf::fields::words(ctf::nn::config_fields, c)), std::string::npos) << help.printed;
    EXPECT_NE(help.printed.find("d_model=768 heads=12 kv_heads=0 d_ff=3072 act=gelu norm=post eps=1e-12\n"), std::string::npos)
        << help.printed;
}

// Exit status 1 and a message naming what is wrong, or 2 and the usage for a command-line mistake.
void expect_failure(const std::string& arguments, int status, const std::string& message) {
    const outcome run = ctformer_run(arguments);
    EXPECT_EQ(run.status, status) << arguments << "\n" << run.printed;
    EXPECT_NE(run.printed.find(message), std::string::npos) << arguments << "\n" << run.printed;
}

TEST(CtformerRun, WrongFilesAndArgumentsAreNamed) {
    auto layer = ctf::nn::encoder_layer<seeds>(ctf::input<"x", ctf::batch, 3, 512>());
    ctf::tensor_map tensors = write_weights(layer, 1, "good");
    ctf::write_npy(in_temp("x.npy"), tensors.at("x"));
    ctf::write_npy(in_temp("narrow.npy"), ctf::host_tensor<float>({1, 3, 256}));
    ctf::write_npy(in_temp("long.npy"), ctf::host_tensor<float>({1, 129, 512}));
    ctf::tensor_map weights = with_pytorch_names(tensors);
    weights.erase("x");
    weights.erase("linear1.weight");
    ctf::write_safetensors(in_temp("missing.safetensors"), weights);
    weights["linear1.weight"] = ctf::host_tensor<float>({2048, 511});
    ctf::write_safetensors(in_temp("misshapen.safetensors"), weights);

    expect_failure(files("good", "narrow", "y"), 1, "expected [batch, length, 512] or [length, 512]");
    expect_failure(files("good", "long", "y"), 1, "with length 1 to 128");
    expect_failure(files("good", "absent", "y"), 1, "absent.npy");
    expect_failure(files("missing", "x", "y"), 1, "'linear1.weight' is missing");
    expect_failure(files("misshapen", "x", "y"), 1, "'linear1.weight' has shape [2048,511], expected [_2048,_512]");
    expect_failure(files("good", "x", "y") + " --config gpt-5", 2, "unknown configuration 'gpt-5'");
    expect_failure(files("good", "x", "y") + " --config encoder-6 --attention-weights a.npy", 2, "more than one layer");
    expect_failure(files("good", "x", "y") + " --threads two", 2, "--threads needs a whole number from 1 to");
    expect_failure("--input", 2, "--input needs a value");
    expect_failure("--weights " + in_temp("good.safetensors"), 2, "--weights, --input and --output are needed");
}

// A hostile or careless user's inputs (issue 18): each refused with one line naming the file, before
// any work and without touching an output, or taken as a user would expect.
class CtformerRunHostile : public ::testing::Test {
protected:
    void SetUp() override {
        auto layer = ctf::nn::encoder_layer<seeds>(ctf::input<"x", ctf::batch, 3, 512>());
        tensors = write_weights(layer, 2, "w");
        ctf::write_npy(in_temp("x.npy"), tensors.at("x"));
    }
    std::string args(const std::string& output = "y") { return files("w", "x", output); }
    std::string read_back(const std::string& name) {
        std::stringstream text;
        text << std::ifstream(in_temp(name), std::ios::binary).rdbuf();
        return text.str();
    }
    ctf::tensor_map tensors;
};

TEST_F(CtformerRunHostile, ThreadCountsAreBounded) {
    expect_failure(args() + " --threads 100000", 2, "--threads needs a whole number from 1 to");
    expect_failure(args() + " --threads 2147483647", 2, "--threads needs a whole number from 1 to");
}

TEST_F(CtformerRunHostile, OutputsAreCheckedBeforeAnyWorkAndWrittenOnlyWhenAllAreReady) {
    std::ofstream(in_temp("y.npy")) << "what was there";
    expect_failure(args() + " --attention-weights " + in_temp("y.npy"), 1, "is given for two outputs");
    expect_failure(files("w", "x", "w").substr(0, files("w", "x", "w").rfind(' ')) + " " + in_temp("w.safetensors"), 1,
                   "is an input too");
    expect_failure(args() + " --attention-weights " + in_temp("no_such_dir/a.npy"), 1, "its directory does not exist");
    expect_failure(files("w", "x", "no_such_dir/y"), 1, "its directory does not exist");
    EXPECT_EQ(read_back("y.npy"), "what was there");  // every refusal left it alone
    ASSERT_EQ(ctformer_run(args() + " --attention-weights " + in_temp("a.npy")).status, 0);
    EXPECT_EQ(ctf::read_npy(in_temp("y.npy")).dims, (ctf::dims_t{2, 3, 512}));
}

// The outputs' directory holds them and nothing else: no temporary (".ctformer-PID-N.tmp") left.
void expect_only(const std::filesystem::path& dir, std::set<std::string> names) {
    std::set<std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) found.insert(entry.path().filename().string());
    EXPECT_EQ(found, names) << dir;
}

// A symbolic link is followed; a FIFO (as /dev/null or /dev/stdout would be) is written through, not
// replaced by a regular file; a link to a file not there yet makes that file.
TEST_F(CtformerRunHostile, SpecialOutputsAreWrittenThroughOrFollowedNeverReplaced) {
    const std::filesystem::path dir = test::temp_path("special");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directory(dir);
    std::ofstream(dir / "target.npy") << "what was there";
    std::filesystem::create_symlink("target.npy", dir / "link.npy");
    std::filesystem::create_symlink("new.npy", dir / "dangling.npy");
    ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
    const std::string weights = "--weights " + in_temp("w.safetensors") + " --input " + in_temp("x.npy");
    const outcome linked = ctformer_run(weights + " --output " + (dir / "link.npy").string());
    ASSERT_EQ(linked.status, 0) << linked.printed;
    EXPECT_TRUE(std::filesystem::is_symlink(dir / "link.npy"));
    EXPECT_EQ(ctf::read_npy(dir / "target.npy").dims, (ctf::dims_t{2, 3, 512}));
    ASSERT_EQ(ctformer_run(weights + " --output " + (dir / "dangling.npy").string()).status, 0);
    EXPECT_TRUE(std::filesystem::is_symlink(dir / "dangling.npy"));
    EXPECT_EQ(ctf::read_npy(dir / "new.npy").dims, (ctf::dims_t{2, 3, 512}));
    const outcome piped = test::run_command("(" + std::string(CTFORMER_RUN) + " " + weights + " --output " +
                                            (dir / "fifo").string() + " & cat " + (dir / "fifo").string() + " > " +
                                            (dir / "from_fifo.npy").string() + "; wait $!)");
    ASSERT_EQ(piped.status, 0) << piped.printed;
    EXPECT_TRUE(std::filesystem::is_fifo(dir / "fifo"));
    EXPECT_EQ(ctf::read_npy(dir / "from_fifo.npy").data, ctf::read_npy(dir / "target.npy").data);
    expect_only(dir, {"target.npy", "link.npy", "dangling.npy", "new.npy", "fifo", "from_fifo.npy"});
    std::filesystem::remove_all(dir);
}

// A device that refuses the bytes is an error exit (writing to /dev/full leaves it as it is).
TEST_F(CtformerRunHostile, AnOutputThatCannotBeWrittenIsAnError) {
    expect_failure(args("unused") + " --attention-weights /dev/full", 1, "/dev/full: write failed: No space left on device");
    EXPECT_TRUE(std::filesystem::is_character_file("/dev/full"));
    const outcome explained = test::run_command("(" + std::string(CTFORMER_RUN) + " --explain > /dev/full)");
    EXPECT_EQ(explained.status, 1) << explained.printed;
    EXPECT_NE(explained.printed.find("ctformer-run: the standard output cannot be written"), std::string::npos)
        << explained.printed;
}

// A 250-byte name is written (its temporary's name is short); a name or a directory too long for the
// system is refused up front for that reason, not as a directory that does not exist.
TEST_F(CtformerRunHostile, LongOutputNamesAreWrittenOrRefusedForWhatTheyAre) {
    const std::filesystem::path dir = test::temp_path("long");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directory(dir);
    const std::string weights = "--weights " + in_temp("w.safetensors") + " --input " + in_temp("x.npy") + " --output ";
    const std::string name250 = std::string(246, 'y') + ".npy";
    const outcome written = ctformer_run(weights + (dir / name250).string());
    ASSERT_EQ(written.status, 0) << written.printed;
    EXPECT_EQ(ctf::read_npy(dir / name250).dims, (ctf::dims_t{2, 3, 512}));
    expect_only(dir, {name250});
    expect_failure(weights + (dir / (std::string(296, 'y') + ".npy")).string(), 1,
                   "y.npy: cannot be used: File name too long");
    expect_failure(weights + (dir / std::string(300, 'd') / "y.npy").string(), 1,
                   "/y.npy: cannot be used: File name too long");
    std::filesystem::remove_all(dir);
}

// SIGTERM while the outputs are being written: y's temporary is written, then the attention
// weights' FIFO, without a reader, holds the run until the signal; the temporary goes with it.
TEST_F(CtformerRunHostile, ARunStoppedBySignalLeavesNoTemporary) {
    const std::filesystem::path dir = test::temp_path("stopped");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directory(dir);
    ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
    const std::string d = dir.string();
    const outcome stopped = test::run_command(
        "(" + std::string(CTFORMER_RUN) + " --weights " + in_temp("w.safetensors") + " --input " + in_temp("x.npy") +
        " --output " + d + "/y.npy --attention-weights " + d + "/fifo & pid=$!; for i in $(seq 600); do "
        "ls -A " + d + " | grep -q '^[.]ctformer-' && break; sleep 0.1; done; kill -TERM $pid; wait $pid; echo status $?)");
    EXPECT_NE(stopped.printed.find("status 143"), std::string::npos) << stopped.printed;  // 128 + SIGTERM
    expect_only(dir, {"fifo"});
    std::filesystem::remove_all(dir);
}

TEST_F(CtformerRunHostile, StreamsAreReadAndAFifoWithoutWriterDoesNotHang) {
    ASSERT_EQ(ctformer_run(args("from_file")).status, 0);
    const outcome piped = test::run_command("cat " + in_temp("x.npy") + " | " + std::string(CTFORMER_RUN) +
                                            " --weights " + in_temp("w.safetensors") + " --input /dev/stdin --output " +
                                            in_temp("from_pipe.npy"));
    ASSERT_EQ(piped.status, 0) << piped.printed;
    EXPECT_EQ(ctf::read_npy(in_temp("from_pipe.npy")).data, ctf::read_npy(in_temp("from_file.npy")).data);
    const std::string fifo = in_temp("fifo.npy");
    ASSERT_EQ(test::run_command("rm -f " + fifo + " && mkfifo " + fifo).status, 0);
    const outcome waited = test::run_command("timeout 60 " + std::string(CTFORMER_RUN) + " --weights " +
                                             in_temp("w.safetensors") + " --input " + fifo + " --output " + in_temp("y.npy"));
    EXPECT_EQ(waited.status, 1) << waited.printed;  // not 124, timeout's
    EXPECT_NE(waited.printed.find("not a .npy file"), std::string::npos) << waited.printed;
    std::filesystem::remove(fifo);
}

TEST_F(CtformerRunHostile, WeightsAreLoadedStrictlyByTheFilesNames) {
    ctf::tensor_map weights = with_pytorch_names(tensors);
    weights.erase("x");
    weights["decoder.stray.weight"] = ctf::host_tensor<float>({4});
    ctf::write_safetensors(in_temp("extra.safetensors"), weights);
    expect_failure(files("extra", "x", "y"), 1, "does not read: 'decoder.stray.weight' (run with --non-strict to allow it)");
    EXPECT_EQ(ctformer_run(files("extra", "x", "y") + " --non-strict").status, 0);
    weights.erase("decoder.stray.weight");
    weights.erase("self_attn.in_proj_weight");
    ctf::write_safetensors(in_temp("no_in_proj.safetensors"), weights);
    expect_failure(files("no_in_proj", "x", "y"), 1, "'self_attn.in_proj_weight' is missing (expected shape [_1536,_512])");
}

// A weight of the right name but stored I32 is named with its dtype, not said to be missing.
TEST_F(CtformerRunHostile, AnIntegerWeightIsNamedWithItsDtype) {
    ctf::tensor_map weights = with_pytorch_names(tensors);
    weights.erase("x");
    ctf::write_safetensors(in_temp("ints.safetensors"), weights);
    std::string bytes = read_back("ints.safetensors");
    const std::size_t entry = bytes.find("\"linear1.weight\"");
    ASSERT_NE(entry, std::string::npos);
    bytes.replace(bytes.find("\"F32\"", entry), 5, "\"I32\"");  // 4 bytes an element either way
    std::ofstream(in_temp("ints.safetensors"), std::ios::binary) << bytes;
    expect_failure(files("ints", "x", "y"), 1,
                   "ints.safetensors, tensor 'linear1.weight': dtype I32 is not a floating-point type (F32, F16 or BF16)");
}

TEST_F(CtformerRunHostile, MessagesHaveOnePrefixAndNameTheFile) {
    const outcome absent = ctformer_run(files("w", "absent", "y"));
    EXPECT_EQ(absent.printed.rfind("ctformer-run: " + in_temp("absent.npy") + ": cannot open", 0), 0u) << absent.printed;
    expect_failure("--weights " + in_temp("w.safetensors") + " --input " + ::testing::TempDir() + " --output " +
                       in_temp("y.npy"),
                   1, "is a directory");
    ctf::write_npy(in_temp("x2.npy"), first_rows(tensors.at("x"), {3, 512}));
    const outcome unbatched = ctformer_run(files("w", "x2", "y2"));
    ASSERT_EQ(unbatched.status, 0) << unbatched.printed;
    EXPECT_NE(unbatched.printed.find(" [3,512] -> "), std::string::npos) << unbatched.printed;
    EXPECT_EQ(ctf::read_npy(in_temp("y2.npy")).dims, (ctf::dims_t{3, 512}));
}

TEST_F(CtformerRunHostile, ARunThatCannotFitIsRefusedUpFront) {
    ctf::write_npy(in_temp("big.npy"), ctf::host_tensor<float>({256, 128, 512}));  // 64 MiB
    const outcome run = test::run_command("ulimit -v 400000 && " + std::string(CTFORMER_RUN) + " " + files("w", "big", "y"));
    EXPECT_EQ(run.status, 1) << run.printed;
    EXPECT_NE(run.printed.find("a run of this input needs about"), std::string::npos) << run.printed;
}

}  // namespace
