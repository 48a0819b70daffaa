// ctformer-gen from the command line: --help documents every parameter; each bad parameter is one
// line naming it and exit status 2; good ones become the parameter header. And the graded debug
// output of a model's generator (CTFORMER_GEN_DEBUG=1, 2, 3).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <ctformer/generator_params.hpp>

#include "support/command.hpp"

namespace {

using test::outcome;
using test::run_command;

std::string dir() { return test::temp_path("ctformer_gen").string(); }

outcome ctformer_gen(const std::string& params) {
    return run_command(std::string(CTFORMER_GEN) + " --name m --source m.cpp --output-dir " + dir() + " " + params);
}

TEST(CtformerGen, HelpDocumentsEveryParameter) {
    const outcome help = run_command(std::string(CTFORMER_GEN) + " --help");
    EXPECT_EQ(help.status, 0);
    for (const ctformer::gen::param_doc& d : ctformer::gen::param_docs)
        EXPECT_NE(help.printed.find("  " + std::string(d.name) + "="), std::string::npos) << d.name;
}

TEST(CtformerGen, EachBadParameterIsOneLine) {
    const std::pair<std::string, std::string> cases[] = {
        {"head=8", "ctformer-gen: unknown parameter 'head' (known: seq, d_model, heads,"},
        {"d_model=512 heads=7", "ctformer-gen: heads=7 does not divide d_model=512\n"},
        {"heads=8 kv_heads=3", "ctformer-gen: kv_heads=3 does not divide heads=8\n"},
        {"seq=0", "ctformer-gen: seq=0: expected a whole number from 1 to 65536\n"},
        {"d_ff=2k", "ctformer-gen: d_ff=2k: expected a whole number from 1 to 1048576\n"},
        {"activation=tanh", "ctformer-gen: activation=tanh: expected one of relu, gelu, gelu_tanh\n"},
        {"mask=yes", "ctformer-gen: mask=yes: expected one of none, causal, key_padding\n"},
        {"seq=10 seq=12", "ctformer-gen: seq is given twice\n"},
        {"seq", "ctformer-gen: 'seq': expected name=value\n"},
    };
    for (const auto& [params, message] : cases) {
        const outcome result = ctformer_gen(params);
        EXPECT_EQ(result.status, 2) << params;
        EXPECT_EQ(result.printed.rfind(message, 0), 0u) << params << " printed: " << result.printed;
        EXPECT_EQ(std::count(result.printed.begin(), result.printed.end(), '\n'), 1) << result.printed;
    }
    EXPECT_EQ(run_command(std::string(CTFORMER_GEN) + " --name 2fast --source m.cpp --output-dir " + dir()).status, 2);
}

TEST(CtformerGen, GoodParametersBecomeTheHeader) {
    ASSERT_EQ(ctformer_gen("seq=64 heads=4 kv_heads=1 norm_first=true mask=causal").status, 0);
    std::stringstream header;
    header << std::ifstream(dir() + "/m.params.hpp").rdbuf();
    EXPECT_NE(header.str().find("{.seq = 64, .d_model = 512, .heads = 4, .kv_heads = 1, .d_ff = 2048, .layers = 1, "
                                ".norm_first = true, .activation = ctformer::nn::activation::relu, "
                                ".mask = ctformer::gen::mask_param::causal}"),
              std::string::npos)
        << header.str();
}

TEST(ModelGenerator, DebugLevelsAddFusedGroupsTreesAndSource) {
    std::filesystem::create_directories(test::temp_path("generated"));
    const std::string generate = std::string(SEEDS_MHA_GENERATOR) + " --output-dir " + test::temp_path("generated").string();
    const std::string levels[] = {"== seeds_mha: plan ==\n", "== after fuse_attention ==", "run.step(0);"};
    for (int level = 0; level <= 3; ++level) {
        const outcome result = run_command("CTFORMER_GEN_DEBUG=" + std::to_string(level) + " " + generate);
        ASSERT_EQ(result.status, 0) << result.printed;
        for (int shown = 0; shown < 3; ++shown)
            EXPECT_EQ(result.printed.find(levels[shown]) != std::string::npos, shown < level) << level << " " << shown;
    }
}

}  // namespace
