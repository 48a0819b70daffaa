// bert_tiny: generated from tests/data/hf/bert_tiny/config.json alone (ctformer_add_model HF_CONFIG,
// PARAMS seq=16 output=pooler; no declaration written), against Hugging Face's BertModel: the golden
// file of pytorch/bert_test.cpp (3 sequences of lengths 9, 16 and 5, token types given). On every
// Highway target compiled in, padded (the attention_mask as key padding) and as a batch of mixed
// lengths (the mask's lengths, no padding work). And bind_directory: a Hugging Face directory's
// model.safetensors, the "bert." of a checkpoint with a head dropped, strict unless asked not to be.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <ctformer/runtime/mixed_lengths.hpp>
#include <ctformer/runtime/safetensors.hpp>

#include "bert_tiny.hpp"
#include "generated_targets.hpp"
#include "support/compare.hpp"
#include "support/temp_path.hpp"

namespace {

// PyTorch computes in fp32 as ctformer does, in another order (support/golden.hpp).
constexpr test::tolerance fp32_against_pytorch{.atol = 1e-5, .rtol = 1e-5};

// The golden file: weights by BertModel's names, the inputs, the outputs; the token ids apart.
struct golden_case {
    ctformer::safetensors_file file{std::string(CTFORMER_GOLDEN_DIR) + "/bert_2_layers.safetensors"};
    ctformer::tensor_map tensors = file.tensors();
    ctformer::id_map ids{{"input_ids", file.ids("input_ids")}, {"token_type_ids", file.ids("token_type_ids")}};
    std::vector<std::size_t> lengths = *ctformer::runtime::lengths_of_mask(tensors.at("attention_mask"));

    // The weights alone, each name after `prefix`, as a checkpoint holds them.
    ctformer::tensor_map checkpoint(const std::string& prefix) const {
        ctformer::tensor_map weights;
        for (const auto& [name, t] : tensors)
            if (name.starts_with("embeddings.") || name.starts_with("encoder.") || name.starts_with("pooler."))
                weights.emplace(prefix + name, t);
        return weights;
    }
};

TEST(GeneratedBert, PoolerOutputFromConfigJsonOnEveryTarget) {
    const golden_case c;
    const ctformer::host_tensor<float>& want = c.tensors.at("pooler_output");
    int targets = 0;
    for (const std::int64_t target : test::generated_model_targets()) {
        hwy::SetSupportedTargetsForTest(target);
        const std::string name = hwy::TargetName(target);
        bert_tiny model;
        ASSERT_EQ(model.target(), name);
        model.bind(c.checkpoint(""));
        ctformer::host_tensor<float> padded, mixed;
        model.run(c.tensors, c.ids, padded, {.threads = 2});
        model.run(c.tensors, c.ids, mixed, {.threads = 2, .lengths = c.lengths});
        test::expect_close(padded, want, fp32_against_pytorch, name + ": pooler_output, padded");
        test::expect_close(mixed, want, fp32_against_pytorch, name + ": pooler_output, by lengths");
        ++targets;
    }
    hwy::SetSupportedTargetsForTest(0);
    EXPECT_GE(targets, 2) << "a SIMD target and the portable one, at least";
    EXPECT_EQ(bert_tiny().target(), hwy::TargetName(test::generated_model_targets().front()))
        << "a generated model runs the best target it compiles for this CPU (AVX3's code on an AVX3_DL CPU)";
}

TEST(GeneratedBert, BindsAHuggingFaceDirectory) {
    const golden_case c;
    const std::filesystem::path dir = test::temp_path("bert_for_pretraining");
    std::filesystem::create_directories(dir);
    ctformer::tensor_map with_head = c.checkpoint("bert.");
    with_head.emplace("cls.predictions.bias", ctformer::host_tensor<float>({99}));  // BertForPreTraining's head
    ctformer::write_safetensors(dir / "model.safetensors", with_head);

    bert_tiny model;
    EXPECT_THROW(model.bind_directory(dir), ctformer::unexpected_tensor) << "strict: the head is refused";
    model.bind_directory(dir, {.strict = false});
    ctformer::host_tensor<float> pooled;
    model.run(c.tensors, c.ids, pooled, {.threads = 2});
    test::expect_close(pooled, c.tensors.at("pooler_output"), fp32_against_pytorch, "bound from the directory");
}

}  // namespace
