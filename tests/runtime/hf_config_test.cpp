// Hugging Face config.json files: BERT's, RoBERTa's, TinyLlama's and Qwen2.5's read with HF's
// defaults for the fields left out, and each thing ctformer cannot build a config_error naming the file and the field. The files
// are in tests/data/hf/config_cases/; variations of one field are written here.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include <ctformer/runtime/hf_config.hpp>

#include "support/temp_path.hpp"

namespace ctf = ctformer;

namespace {

std::string config_case(const std::string& name) { return std::string(CTFORMER_HF_DIR) + "/config_cases/" + name; }

// A small valid BERT config with `changes` applied (a null value removes the field).
std::filesystem::path variant(const nlohmann::json& changes = nlohmann::json::object()) {
    nlohmann::json config{{"model_type", "bert"},         {"vocab_size", 100},       {"hidden_size", 64},
                          {"num_hidden_layers", 2},       {"num_attention_heads", 4}, {"intermediate_size", 128},
                          {"max_position_embeddings", 32}};
    config.merge_patch(changes);
    const auto path = test::temp_path("config.json");
    std::ofstream(path) << config.dump();
    return path;
}

// A small valid LLaMA config with `changes` applied.
std::filesystem::path llama_variant(nlohmann::json changes = nlohmann::json::object()) {
    nlohmann::json llama{{"model_type", "llama"}, {"num_attention_heads", 8}, {"max_position_embeddings", 256}};
    llama.merge_patch(changes);
    return variant(llama);
}

// The config_error reading `path` throws: it names the file and the field, and says `words`.
void expect_error(const std::filesystem::path& path, const std::string& field, const std::string& words) {
    try {
        ctf::read_hf_config(path);
        ADD_FAILURE() << path << " was read";
    } catch (const ctf::config_error& e) {
        const std::string what = e.what();
        EXPECT_EQ(e.field(), field) << what;
        EXPECT_EQ(e.file(), path.string()) << what;
        EXPECT_NE(what.find(path.string() + ": " + (field.empty() ? "" : field + ": ")), std::string::npos) << what;
        EXPECT_NE(what.find(words), std::string::npos) << what;
    }
}

TEST(HfConfig, BertReadsEveryField) {
    const ctf::hf_config c = ctf::read_hf_config(config_case("bert.json"));
    EXPECT_EQ(c.model_type, "bert");
    EXPECT_EQ(c.vocab_size, 30522);
    EXPECT_EQ(c.hidden_size, 768);
    EXPECT_EQ(c.num_hidden_layers, 12);
    EXPECT_EQ(c.num_attention_heads, 12);
    EXPECT_EQ(c.intermediate_size, 3072);
    EXPECT_EQ(c.max_position_embeddings, 512);
    EXPECT_EQ(c.type_vocab_size, 2);
    EXPECT_EQ(c.pad_token_id, 0);
    EXPECT_EQ(c.norm_eps, 1e-12);
    EXPECT_EQ(c.hidden_act, ctf::activation::gelu);
    EXPECT_EQ(c.summary(), "bert: 12 layers, hidden 768, 12 heads, intermediate 3072, vocab 30522, positions 512, "
                           "types 2, gelu, eps 1e-12");
}

// roberta.json gives no pad_token_id: RobertaConfig's 1, not BertConfig's 0.
TEST(HfConfig, RobertaWithTanhGeluAndItsOwnPadDefault) {
    const ctf::hf_config c = ctf::read_hf_config(config_case("roberta.json"));
    EXPECT_EQ(c.model_type, "roberta");
    EXPECT_EQ(c.hidden_act, ctf::activation::gelu_tanh);
    EXPECT_EQ(c.pad_token_id, 1);
    EXPECT_EQ(c.type_vocab_size, 1);
    EXPECT_EQ(c.norm_eps, 1e-5);
    EXPECT_EQ(c.summary(), "roberta: 2 layers, hidden 64, 4 heads, intermediate 128, vocab 100, positions 34, "
                           "types 1, gelu_tanh, eps 1e-05");
}

TEST(HfConfig, DefaultsAndActivationNames) {
    const ctf::hf_config bert = ctf::read_hf_config(variant());
    EXPECT_EQ(bert.type_vocab_size, 2);
    EXPECT_EQ(bert.norm_eps, 1e-12);
    EXPECT_EQ(bert.pad_token_id, 0);
    EXPECT_EQ(bert.hidden_act, ctf::activation::gelu);
    EXPECT_EQ(ctf::read_hf_config(variant({{"model_type", "xlm-roberta"}})).pad_token_id, 1);
    EXPECT_EQ(ctf::read_hf_config(variant({{"model_type", "roberta"}, {"pad_token_id", 0}})).pad_token_id, 0);
    EXPECT_EQ(ctf::read_hf_config(variant({{"hidden_act", "gelu_pytorch_tanh"}})).hidden_act, ctf::activation::gelu_tanh);
    EXPECT_EQ(ctf::read_hf_config(variant({{"hidden_act", "relu"}})).hidden_act, ctf::activation::relu);
    EXPECT_EQ(ctf::read_hf_config(variant({{"hidden_act", "silu"}})).hidden_act, ctf::activation::silu);
    EXPECT_EQ(ctf::read_hf_config(variant({{"hidden_act", "swish"}})).hidden_act, ctf::activation::silu);
}

// TinyLlama-1.1B's config.json, as the hub has it.
TEST(HfConfig, LlamaReadsEveryField) {
    const ctf::hf_config c = ctf::read_hf_config(config_case("tinyllama.json"));
    EXPECT_TRUE(c.decoder);
    EXPECT_EQ(c.num_key_value_heads, 4);
    EXPECT_EQ(c.norm_eps, 1e-5);
    EXPECT_EQ(c.rope_theta, 10000.0);
    EXPECT_FALSE(c.tie_word_embeddings);
    EXPECT_FALSE(c.qkv_bias);
    EXPECT_EQ(c.eos_token_ids, std::vector<int>{2});
    EXPECT_EQ(c.summary(), "llama: 22 layers, hidden 2048, 32 heads (4 kv), intermediate 5632, vocab 32000, positions 2048, "
                           "silu, eps 1e-05, rope_theta 10000, lm_head");
}

// Qwen2.5-0.5B's: biases on q/k/v, the head tied, a sliding window given but not used.
TEST(HfConfig, Qwen2HasQkvBiasesAndATiedHead) {
    const ctf::hf_config c = ctf::read_hf_config(config_case("qwen2.5-0.5b.json"));
    EXPECT_EQ(c.summary(), "qwen2: 24 layers, hidden 896, 14 heads (2 kv), intermediate 4864, vocab 151936, positions 32768, "
                           "silu, eps 1e-06, rope_theta 1e+06, qkv biases, head tied");
}

// Llama 3.2 1B's: θ 500000 and Llama 3.1's rope_scaling (llama3), the head tied.
TEST(HfConfig, Llama32HasLlama3RopeScaling) {
    const ctf::hf_config c = ctf::read_hf_config(config_case("llama-3.2-1b.json"));
    EXPECT_EQ(c.rope, (ctf::rope_scaling{.type = ctf::rope_type::llama3, .factor = 32, .low_freq_factor = 1,
                                         .high_freq_factor = 4, .original_positions = 8192}));
    EXPECT_EQ(c.summary(), "llama: 16 layers, hidden 2048, 32 heads (8 kv), intermediate 8192, vocab 128256, positions 131072, "
                           "silu, eps 1e-05, rope_theta 5e+05, rope_scaling llama3 32 (1, 4, 8192), head tied");
    // The older spelling ("type"), linear scaling, and "default" (none).
    const auto rope_of = [](const nlohmann::json& scaling) { return ctf::read_hf_config(llama_variant({{"rope_scaling", scaling}})).rope; };
    EXPECT_EQ(rope_of({{"type", "linear"}, {"factor", 4.0}}), (ctf::rope_scaling{.type = ctf::rope_type::linear, .factor = 4}));
    EXPECT_EQ(rope_of({{"rope_type", "default"}}), ctf::rope_scaling{});
}

// LlamaConfig's defaults, and what the LLaMA family's files say differently.
TEST(HfConfig, LlamaDefaultsAndVariations) {
    const ctf::hf_config llama = ctf::read_hf_config(llama_variant());
    EXPECT_EQ(llama.num_key_value_heads, 8);
    EXPECT_EQ(llama.norm_eps, 1e-6);
    EXPECT_EQ(llama.rope_theta, 10000.0);
    EXPECT_EQ(llama.hidden_act, ctf::activation::silu);
    EXPECT_TRUE(llama.eos_token_ids.empty());
    EXPECT_EQ(ctf::read_hf_config(llama_variant({{"eos_token_id", {128001, 128009}}})).eos_token_ids,
              (std::vector<int>{128001, 128009}));
    // Mistral's window: null is none; one as long as the positions is none too; absent, MistralConfig's
    // 4096; shorter than the positions, kept.
    const auto window_of = [](const nlohmann::json& changes) { return ctf::read_hf_config(llama_variant(changes)).sliding_window; };
    EXPECT_EQ(window_of({{"model_type", "mistral"}, {"sliding_window", nullptr}}), 0);
    EXPECT_EQ(window_of({{"model_type", "mistral"}, {"sliding_window", 256}}), 0);
    EXPECT_EQ(window_of({{"model_type", "mistral"}, {"sliding_window", 128}}), 128);
    EXPECT_EQ(window_of({{"model_type", "mistral"}, {"max_position_embeddings", 8192}}), 4096);
    EXPECT_EQ(window_of({{"model_type", "mistral"}, {"max_position_embeddings", 32768}, {"sliding_window", 4096}}), 4096);
    EXPECT_EQ(window_of({{"sliding_window", 128}}), 0);  // LlamaConfig has none
    EXPECT_EQ(ctf::read_hf_config(llama_variant({{"model_type", "mistral"}, {"sliding_window", 128}})).summary(),
              "mistral: 2 layers, hidden 64, 8 heads (8 kv), intermediate 128, vocab 100, positions 256, silu, eps 1e-06, "
              "rope_theta 10000, sliding_window 128, lm_head");
    EXPECT_EQ(ctf::read_hf_config(llama_variant({{"model_type", "mistral"}, {"max_position_embeddings", 4096}})).num_key_value_heads,
              8);  // MistralConfig's default
    EXPECT_EQ(ctf::read_hf_config(llama_variant({{"head_dim", 8}})).hidden_size, 64);
}

TEST(HfConfig, LlamaFieldsRefused) {
    const std::tuple<nlohmann::json, const char*, const char*> cases[] = {
        {{{"num_key_value_heads", 3}}, "num_key_value_heads", "3 does not divide num_attention_heads 8"},
        {{{"rope_scaling", {{"rope_type", "yarn"}, {"factor", 4.0}}}}, "rope_scaling.rope_type",
         "\"yarn\" is not supported (default, linear, llama3)"},
        {{{"rope_scaling", {{"factor", 4.0}}}}, "rope_scaling.rope_type", "is missing; supported: (default, linear, llama3)"},
        {{{"rope_scaling", "llama3"}}, "rope_scaling", "expected an object, found \"llama3\""},
        {{{"rope_scaling", {{"rope_type", "linear"}, {"factor", 0.5}}}}, "rope_scaling.factor", "must be at least 1, found 0.5"},
        {{{"rope_scaling", {{"rope_type", "llama3"}, {"factor", 32.0}, {"low_freq_factor", 1.0}, {"high_freq_factor", 4.0}}}},
         "rope_scaling.original_max_position_embeddings", "is missing"},
        {{{"rope_scaling",
           {{"rope_type", "llama3"}, {"factor", 8.0}, {"low_freq_factor", 4.0}, {"high_freq_factor", 1.0},
            {"original_max_position_embeddings", 8192}}}},
         "rope_scaling.low_freq_factor", "4 must be less than high_freq_factor 1"},
        {{{"rope_theta", -1}}, "rope_theta", "must be positive, found -1"},
        {{{"rms_norm_eps", 0}}, "rms_norm_eps", "must be positive"},
        {{{"attention_bias", true}}, "attention_bias", "true is not supported"},
        {{{"mlp_bias", true}}, "mlp_bias", "true is not supported"},
        {{{"tie_word_embeddings", "yes"}}, "tie_word_embeddings", "expected true or false, found \"yes\""},
        {{{"head_dim", 16}}, "head_dim", "16 is not hidden_size / num_attention_heads (8)"},
        {{{"eos_token_id", {2, "end"}}}, "eos_token_id", "expected token ids"},
        {{{"model_type", "mistral"}, {"sliding_window", 0}}, "sliding_window", "must be positive, found 0"},
        {{{"model_type", "qwen2"}, {"num_key_value_heads", 2}, {"use_sliding_window", true}, {"sliding_window", 64}},
         "sliding_window", "64 is shorter than max_position_embeddings 256: Qwen2's window on some layers only"},
        {{{"model_type", "qwen2"}}, "num_key_value_heads", "32 does not divide num_attention_heads 8"},  // Qwen2Config's 32
    };
    for (const auto& [changes, field, words] : cases) {
        SCOPED_TRACE(changes.dump());
        expect_error(llama_variant(changes), field, words);
    }
}

TEST(HfConfig, FilesRefusedByField) {
    expect_error(config_case("missing_hidden_size.json"), "hidden_size", "is missing");
    expect_error(config_case("quick_gelu.json"), "hidden_act",
                 "hidden_act: \"quick_gelu\" is not supported (gelu, gelu_new, gelu_pytorch_tanh, relu, silu, swish)");
    expect_error(config_case("hidden_size_string.json"), "hidden_size", "expected an integer, found \"768\"");
    expect_error(config_case("broken.json"), "", "is not valid JSON");
}

TEST(HfConfig, OneFieldWrong) {
    const std::tuple<nlohmann::json, const char*, const char*> cases[] = {
        {{{"model_type", nullptr}}, "model_type", "is missing; supported: (bert, roberta, xlm-roberta, llama, qwen2, mistral)"},
        {{{"model_type", 3}}, "model_type", "expected a string, found 3"},
        {{{"model_type", "gpt_neox"}}, "model_type", "\"gpt_neox\" is not supported (bert, roberta, xlm-roberta, llama, qwen2, mistral)"},
        {{{"hidden_act", "gelu_fast"}}, "hidden_act", "\"gelu_fast\" is not supported"},
        {{{"hidden_act", true}}, "hidden_act", "expected a string, found true"},
        {{{"hidden_size", 0}}, "hidden_size", "must be positive, found 0"},
        {{{"intermediate_size", -128}}, "intermediate_size", "must be positive, found -128"},
        {{{"num_hidden_layers", 2.5}}, "num_hidden_layers", "expected an integer, found 2.5"},
        {{{"vocab_size", 10000000000}}, "vocab_size", "10000000000 is out of range"},
        {{{"type_vocab_size", 0}}, "type_vocab_size", "must be positive"},
        {{{"num_attention_heads", 5}}, "num_attention_heads", "5 does not divide hidden_size 64"},
        {{{"pad_token_id", 100}}, "pad_token_id", "100 is outside the vocabulary (0 to 99)"},
        {{{"layer_norm_eps", "1e-12"}}, "layer_norm_eps", "expected a number, found \"1e-12\""},
        {{{"layer_norm_eps", 0}}, "layer_norm_eps", "must be positive"},
        {{{"position_embedding_type", "relative_key"}}, "position_embedding_type",
         "\"relative_key\" is not supported (absolute)"},
    };
    for (const auto& [changes, field, words] : cases) {
        SCOPED_TRACE(changes.dump());
        expect_error(variant(changes), field, words);
    }
}

TEST(HfConfig, NotAnObjectOrNoFile) {
    const auto path = test::temp_path("list.json");
    std::ofstream(path) << "[1, 2]";
    expect_error(path, "", "is not a JSON object");
    EXPECT_THROW(ctf::read_hf_config(test::temp_path("absent.json")), ctf::file_error);
}

}  // namespace
