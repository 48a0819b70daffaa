// ctformer-gen from the command line: --help documents every parameter (and --help-table as Markdown),
// under nn::config's names; each bad parameter is one line naming it and exit status 2; good ones
// become the parameter header; a Hugging Face config.json's geometry too (--hf-config), the PARAMS
// over it, a bad file or field one line naming it. And the graded debug output of a model's
// generator (CTFORMER_GEN_DEBUG=1, 2, 3).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
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
    ctformer::fields::for_each(ctformer::gen::param_fields, [&](const auto& f) {
        EXPECT_NE(help.printed.find("\n  " + std::string(f.name) + "=" + ctformer::fields::values(f)), std::string::npos) << f.name;
    });
    EXPECT_NE(help.printed.find("  act=relu|gelu|gelu_tanh|tanh|silu|none feed-forward activation"), std::string::npos) << help.printed;
    EXPECT_NE(help.printed.find("  norm=post|pre"), std::string::npos) << help.printed;
    EXPECT_NE(help.printed.find("(default 1e-05)"), std::string::npos) << help.printed;  // eps, from nn::config{}
}

// The README's table of the parameters, printed from the same list.
TEST(CtformerGen, HelpTableIsMarkdown) {
    const outcome table = run_command(std::string(CTFORMER_GEN) + " --help-table");
    EXPECT_EQ(table.status, 0);
    EXPECT_EQ(table.printed, ctformer::gen::params_table());
    EXPECT_NE(table.printed.find("| `norm` | `post\\|pre` | `post` |"), std::string::npos) << table.printed;
    EXPECT_EQ(std::count(table.printed.begin(), table.printed.end(), '\n'),
              2 + static_cast<long>(std::tuple_size_v<decltype(ctformer::gen::param_fields)>));
}

// docs/generator.md's table of the parameters is the one the list prints.
TEST(CtformerGen, TheDocsTableIsTheListsTable) {
    std::ifstream page(std::string(CTFORMER_SOURCE_DIR) + "/docs/generator.md");
    ASSERT_TRUE(page) << "docs/generator.md";
    const std::string text((std::istreambuf_iterator<char>(page)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find(ctformer::gen::params_table()), std::string::npos) << ctformer::gen::params_table();
}

// One spelling: the generator's parameters are nn::config's fields, under nn::config's names.
TEST(CtformerGen, ParametersAreNnConfigsFields) {
    const ctformer::gen::params p = ctformer::gen::parse({"d_model=64", "heads=4", "act=gelu_tanh", "norm=pre", "eps=1e-12"});
    constexpr ctformer::nn::config expected{.d_model = 64, .heads = 4, .act = ctformer::nn::activation::gelu_tanh,
                                       .norm = ctformer::nn::norm_position::pre, .eps = 1e-12};
    EXPECT_EQ(ctformer::fields::words(ctformer::nn::config_fields, p.config()),
              ctformer::fields::words(ctformer::nn::config_fields, expected));
    EXPECT_EQ(ctformer::fields::words(ctformer::nn::config_fields, expected),
              "d_model=64 heads=4 kv_heads=0 d_ff=2048 act=gelu_tanh norm=pre eps=1e-12");
    for (const char* old : {"activation=gelu", "norm_first=true"})
        EXPECT_THROW(ctformer::gen::parse({old}), ctformer::gen::param_error) << old;
}

TEST(CtformerGen, EachBadParameterIsOneLine) {
    const std::pair<std::string, std::string> cases[] = {
        {"depth=8", "ctformer-gen: unknown parameter 'depth' (known: seq, d_model, heads, kv_heads, d_ff, act, norm, eps, "
                    "layers, mask, family, vocabulary, positions, token_types, padding_idx, output, token_type_ids, "
                    "rope_theta, rope_scaling, rope_factor, rope_low_freq_factor, rope_high_freq_factor, "
                    "rope_original_positions, sliding_window, lm_head, bias, precision)\n"},
        {"rope_scaling=llama3 rope_low_freq_factor=4",
         "ctformer-gen: rope_low_freq_factor=4 must be less than rope_high_freq_factor=4\n"},
        {"lm_head=8", "ctformer-gen: lm_head=8: expected one of own, tied\n"},
        {"d_model=512 heads=7", "ctformer-gen: heads=7 does not divide d_model=512\n"},
        {"heads=8 kv_heads=3", "ctformer-gen: kv_heads=3 does not divide heads=8\n"},
        {"seq=0", "ctformer-gen: seq=0: expected a whole number from 1 to 65536\n"},
        {"d_ff=2k", "ctformer-gen: d_ff=2k: expected a whole number from 1 to 1048576\n"},
        {"act=swish", "ctformer-gen: act=swish: expected one of relu, gelu, gelu_tanh, tanh, silu, none\n"},
        {"norm=first", "ctformer-gen: norm=first: expected one of post, pre\n"},
        {"eps=0", "ctformer-gen: eps=0: expected a number from 1e-30 to 1\n"},
        {"mask=yes", "ctformer-gen: mask=yes: expected one of none, causal, key_padding\n"},
        {"output=logits", "ctformer-gen: output=logits: expected one of hidden, pooler, sentence_embedding\n"},
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
    ASSERT_EQ(ctformer_gen("seq=64 heads=4 kv_heads=1 norm=pre mask=causal").status, 0);
    std::stringstream header;
    header << std::ifstream(dir() + "/m.params.hpp").rdbuf();
    EXPECT_NE(header.str().find("ctformer_model_params = [] {\n    ctformer::gen::params p;\n    p.seq = 64;\n"
                                "    p.d_model = 512;\n    p.heads = 4;\n    p.kv_heads = 1;\n    p.d_ff = 2048;\n"
                                "    p.act = ctformer::activation::relu;\n    p.norm = ctformer::nn::norm_position::pre;\n"
                                "    p.eps = 1e-05;\n    p.layers = 1;\n    p.mask = ctformer::gen::mask_param::causal;\n"),
              std::string::npos)
        << header.str();
}

// precision=bf16 becomes the model's default for bind() (generator/emit.hpp's defaults()).
TEST(CtformerGen, PrecisionBecomesTheHeader) {
    ASSERT_EQ(ctformer_gen("precision=bf16").status, 0);
    std::stringstream header;
    header << std::ifstream(dir() + "/m.params.hpp").rdbuf();
    EXPECT_NE(header.str().find("    p.precision = ctformer::kernels::precision::bf16;\n"), std::string::npos) << header.str();
}

std::string hf(const std::string& file) { return std::string(CTFORMER_HF_DIR) + "/" + file; }

outcome ctformer_gen_hf(const std::string& config, const std::string& params = "") {
    return run_command(std::string(CTFORMER_GEN) + " --name m --hf-config " + config + " --output-dir " + dir() + " " + params);
}

std::string params_header() {
    std::stringstream header;
    header << std::ifstream(dir() + "/m.params.hpp").rdbuf();
    return header.str();
}

// ctformer_add_model(NAME HF_CONFIG config.json PARAMS ...): the file's geometry, seq its positions
// (at most 512), the PARAMS over them.
TEST(CtformerGen, HfConfigGivesTheGeometry) {
    ASSERT_EQ(ctformer_gen_hf(hf("bert_tiny/config.json")).status, 0);
    EXPECT_NE(params_header().find("    p.seq = 24;\n    p.d_model = 64;\n    p.heads = 4;\n    p.kv_heads = 0;\n"
                                   "    p.d_ff = 96;\n    p.act = ctformer::activation::gelu;\n"
                                   "    p.norm = ctformer::nn::norm_position::post;\n    p.eps = 1e-12;\n    p.layers = 2;\n"
                                   "    p.mask = ctformer::gen::mask_param::none;\n"
                                   "    p.family = ctformer::gen::family_param::bert;\n    p.vocabulary = 99;\n"
                                   "    p.positions = 24;\n    p.token_types = 2;\n    p.padding_idx = 0;\n"
                                   "    p.output = ctformer::gen::output_param::hidden;\n"),
              std::string::npos)
        << params_header();
    EXPECT_NE(params_header().find("ctformer_model_source = \"bert_tiny/config.json\""), std::string::npos);
    EXPECT_NE(params_header().find("ctformer_model_checkpoint_prefix = \"bert.\""), std::string::npos);

    // A LLaMA: its KV heads, rotary base and scaling, and head; no prefix, its names are LlamaForCausalLM's.
    ASSERT_EQ(ctformer_gen_hf(hf("llama_tiny/config.json")).status, 0);
    for (const char* line : {"p.seq = 24;", "p.kv_heads = 2;", "p.act = ctformer::activation::silu;",
                             "p.norm = ctformer::nn::norm_position::pre;", "p.eps = 1e-05;",
                             "p.family = ctformer::gen::family_param::llama;", "p.rope_theta = 5e+05;",
                             "p.rope_scaling = ctformer::rope_type::llama3;", "p.rope_factor = 32;",
                             "p.rope_low_freq_factor = 1;", "p.rope_high_freq_factor = 4;", "p.rope_original_positions = 256;",
                             "p.lm_head = ctformer::gen::head_param::own;", "p.bias = ctformer::gen::bias_param::none;",
                             "ctformer_model_checkpoint_prefix = \"\""})
        EXPECT_NE(params_header().find(line), std::string::npos) << line << "\n" << params_header();

    // RoBERTa's positions start past the pad token: 20 of them leave 18 for a sequence.
    ASSERT_EQ(ctformer_gen_hf(hf("roberta_tiny/config.json"), "seq=12 output=sentence_embedding").status, 0);
    for (const char* line : {"p.seq = 12;", "p.family = ctformer::gen::family_param::roberta;", "p.token_types = 1;",
                             "p.padding_idx = 1;", "p.output = ctformer::gen::output_param::sentence_embedding;",
                             "ctformer_model_checkpoint_prefix = \"roberta.\""})
        EXPECT_NE(params_header().find(line), std::string::npos) << line << "\n" << params_header();
}

TEST(CtformerGen, EachBadConfigOrParameterIsOneLine) {
    const std::string quick_gelu = hf("config_cases/quick_gelu.json"), missing = hf("config_cases/missing_hidden_size.json");
    const std::string roberta = hf("roberta_tiny/config.json"), llama = hf("llama_tiny/config.json");
    const std::pair<outcome, std::string> cases[] = {
        {ctformer_gen_hf(quick_gelu), "ctformer-gen: " + quick_gelu + ": hidden_act: \"quick_gelu\" is not supported"},
        {ctformer_gen_hf(missing), "ctformer-gen: " + missing + ": hidden_size: is missing (a required field)\n"},
        {ctformer_gen_hf(hf("no_such/config.json")), "ctformer-gen: " + hf("no_such/config.json") + ": "},
        {ctformer_gen_hf(roberta, "seq=19"),
         "ctformer-gen: seq=19 is longer than the model's positions allow (18: max_position_embeddings 20, from "
         "padding_idx + 1)\n"},
        {ctformer_gen_hf(roberta, "heads=5"), "ctformer-gen: heads=5 does not divide d_model=64\n"},
        {ctformer_gen_hf(llama, "seq=25"),
         "ctformer-gen: seq=25 is longer than the model's positions allow (24: max_position_embeddings 24)\n"},
        {run_command(std::string(CTFORMER_GEN) + " --name m --source m.cpp --hf-config " + roberta + " --output-dir " + dir()),
         "ctformer-gen: --name, --source or --hf-config (one of them), and --output-dir are needed (see --help)\n"},
    };
    for (const auto& [result, message] : cases) {
        EXPECT_EQ(result.status, 2) << message;
        EXPECT_EQ(result.printed.rfind(message, 0), 0u) << "printed: " << result.printed;
        EXPECT_EQ(std::count(result.printed.begin(), result.printed.end(), '\n'), 1) << result.printed;
    }
}

TEST(ModelGenerator, DebugLevelsAddFusedGroupsTreesAndSource) {
    std::filesystem::create_directories(test::temp_path("generated"));
    const std::string generate = std::string(SEEDS_MHA_GENERATOR) + " --output-dir " + test::temp_path("generated").string();
    const std::string levels[] = {"== seeds_mha: plan ==\n", "== after fuse_attention ==", "run->step(0);"};
    for (int level = 0; level <= 3; ++level) {
        const outcome result = run_command("CTFORMER_GEN_DEBUG=" + std::to_string(level) + " " + generate);
        ASSERT_EQ(result.status, 0) << result.printed;
        for (int shown = 0; shown < 3; ++shown)
            EXPECT_EQ(result.printed.find(levels[shown]) != std::string::npos, shown < level) << level << " " << shown;
    }
}

}  // namespace
