// ctformer against a 2-layer GPT-2 written in plain PyTorch by Hugging Face's state_dict names
// (tests/data/make_golden.py; Conv1D weights stored [in, out], read as they are; the LM head tied to
// wte): the prompt's logits, then greedy generation, each step the full causal forward of the prefix,
// its last position's logits and the token chosen, as PyTorch chose them; and the same generation
// token by token with the KV cache. Then with the GEMMs' weights in bf16: the same tokens, and the
// logits' error against PyTorch's fp32 reported.
#include <algorithm>
#include <cmath>
#include <iostream>

#include <ctformer/runtime/safetensors.hpp>

#include "support/golden.hpp"

namespace {

constexpr ctf::nn::gpt2_config tiny{.vocabulary = 61, .positions = 24, .d_model = 32, .heads = 4, .layers = 2};

// fp32 through two layers and a 61-way LM head, logits up to about 13: within 1e-4 of PyTorch's.
constexpr test::tolerance logits_tolerance{.atol = 1e-4, .rtol = 1e-5};

TEST(PyTorchGPT2, PromptLogitsAndGreedyGeneration) {
    const std::string path = std::string(CTFORMER_GOLDEN_DIR) + "/gpt2_2_layers.safetensors";
    const ctf::safetensors_file file(path);
    const ctf::tensor_map weights = ctf::load_state_dict(path);
    auto model = ctf::compile(ctf::nn::gpt2<tiny>(ctf::id_input<"input_ids", ctf::batch, ctf::upto<24>>()));
    model.bind(weights, test::with_outputs);
    ctf::id_tensor tokens = file.ids("prompt");
    test::expect_close(model.run(tokens), weights.at("expected"), logits_tolerance, "prompt");

    // Greedy step `step`: the last position's logits against PyTorch's, and the token they choose.
    const ctf::host_tensor<float>& step_logits = weights.at("expected_step_logits");
    const auto chosen = [&](const ctf::host_tensor<float>& logits, std::size_t step, const std::string& what) {
        const auto last = logits.data.end() - tiny.vocabulary;
        const ctf::host_tensor<float> got({std::size_t(tiny.vocabulary)}, {last, logits.data.end()});
        const ctf::host_tensor<float> want({std::size_t(tiny.vocabulary)}, {step_logits.data.begin() + step * tiny.vocabulary,
                                                                           step_logits.data.begin() + (step + 1) * tiny.vocabulary});
        test::expect_close(got, want, logits_tolerance, what + " " + std::to_string(step));
        return static_cast<std::int32_t>(std::max_element(last, logits.data.end()) - last);
    };
    const ctf::id_tensor expected_tokens = file.ids("expected_tokens");
    std::vector<std::int32_t> generated;
    for (std::size_t step = 0; step < expected_tokens.size(); ++step) {
        generated.push_back(chosen(model.run(tokens), step, "step"));
        tokens.data.push_back(generated.back());
        tokens.dims[1] += 1;
    }
    EXPECT_EQ(generated, expected_tokens.data);

    auto decoding = model.start_decoding(1);  // the same, token by token with the KV cache
    ctf::host_tensor<float> logits = decoding.prefill(file.ids("prompt"));
    generated.clear();
    for (std::size_t step = 0; step < expected_tokens.size(); ++step) {
        generated.push_back(chosen(logits, step, "decoded step"));
        logits = decoding.step(ctf::id_tensor({1, 1}, {generated.back()}));
    }
    EXPECT_EQ(generated, expected_tokens.data);
}

TEST(PyTorchGPT2, GreedyDecodingWithBfloat16Weights) {
    const std::string path = std::string(CTFORMER_GOLDEN_DIR) + "/gpt2_2_layers.safetensors";
    const ctf::safetensors_file file(path);
    const ctf::tensor_map weights = ctf::load_state_dict(path);
    auto model = ctf::compile(ctf::nn::gpt2<tiny>(ctf::id_input<"input_ids", ctf::batch, ctf::upto<24>>()));
    model.bind(weights, {.strict = false, .gemm_weights = ctf::weight_format::bf16});
    const ctf::id_tensor expected_tokens = file.ids("expected_tokens");
    const std::vector<float>& want = weights.at("expected_step_logits").data;

    auto decoding = model.start_decoding(1);
    ctf::host_tensor<float> logits = decoding.prefill(file.ids("prompt"));
    std::vector<std::int32_t> generated;
    double worst = 0, largest = 0;
    for (std::size_t step = 0; step < expected_tokens.size(); ++step) {
        const auto last = logits.data.end() - tiny.vocabulary;
        for (std::size_t j = 0; j < std::size_t(tiny.vocabulary); ++j) {
            const double expected = want[step * tiny.vocabulary + j];
            ASSERT_TRUE(std::isfinite(last[j])) << "step " << step << " logit " << j;
            worst = std::max(worst, std::abs(double(last[j]) - expected));
            largest = std::max(largest, std::abs(expected));
        }
        generated.push_back(static_cast<std::int32_t>(std::max_element(last, logits.data.end()) - last));
        logits = decoding.step(ctf::id_tensor({1, 1}, {generated.back()}));
    }
    std::cout << "bf16 GEMM weights: logits within " << worst << " of PyTorch's fp32 (largest |logit| " << largest << ")\n";
    RecordProperty("bf16_logits_max_abs_error", std::to_string(worst));
    EXPECT_EQ(generated, expected_tokens.data);
    EXPECT_GT(worst, 1e-4) << "the weights were not rounded to bf16";  // fp32 agrees to 1e-4
    EXPECT_LT(worst, 0.02 * largest) << "bf16 rounding (2^-9 of each weight) does not explain an error this large";
}

}  // namespace
