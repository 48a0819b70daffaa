// A decoder-only model's generation against PyTorch's (a golden file of tests/data/make_golden.py:
// gpt2_case, llama_cases): the prompt's logits and each greedy step's, by the full forward and token
// by token with the KV cache, and the tokens they choose.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <ctformer/runtime/safetensors.hpp>
#include <ctformer/runtime/state_dict.hpp>

#include "compare.hpp"

namespace ctf = ctformer;

namespace test {

// fp32 against the golden logits, computed in double precision: logits up to 13 agree to 3.8e-6 on
// every target. A LayerNorm eps of 1e-12 for 1e-5 moves them by 4.6e-5, erf's GELU for tanh's by 7e-4.
inline constexpr tolerance against_pytorch{.atol = 6e-6, .rtol = 5e-7};

// `tensors` with a's and b's values swapped, as far as the shorter goes (q's first rows with k's):
// weights in the wrong places, which a test's comparison must catch.
inline ctf::tensor_map swapped(ctf::tensor_map tensors, const std::string& a, const std::string& b) {
    std::vector<float>&x = tensors.at(a).data, &y = tensors.at(b).data;
    std::swap_ranges(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(std::min(x.size(), y.size())), y.begin());
    return tensors;
}

// Step `step` of the golden file's greedy generation: the last position's logits against PyTorch's
// (`prefix`expected_step_logits), and the token they choose.
inline std::int32_t expect_greedy_step(const ctf::host_tensor<float>& logits, const ctf::tensor_map& golden,
                                       const std::string& prefix, std::size_t step, const std::string& what) {
    const ctf::host_tensor<float>& step_logits = golden.at(prefix + "expected_step_logits");
    const auto vocabulary = static_cast<std::ptrdiff_t>(step_logits.dims[1]);
    const auto last = logits.data.end() - vocabulary;
    const auto want = step_logits.data.begin() + static_cast<std::ptrdiff_t>(step) * vocabulary;
    expect_close(std::vector<float>(last, logits.data.end()), std::vector<float>(want, want + vocabulary), against_pytorch,
                 prefix + what + " " + std::to_string(step));
    return static_cast<std::int32_t>(std::max_element(last, logits.data.end()) - last);
}

// The logits of the golden file's prompt, then of its greedy steps, each by the full causal forward
// of the prefix (`logits_of(ids)`), against PyTorch's `prefix`expected*, and the tokens they choose.
template <class Logits>
void expect_pytorch_forward_generation(Logits logits_of, const ctf::safetensors_file& file, const ctf::tensor_map& golden,
                                       const std::string& prefix) {
    const ctf::id_tensor prompt = file.ids("prompt"), expected_tokens = file.ids(prefix + "expected_tokens");
    expect_close(logits_of(prompt), golden.at(prefix + "expected"), against_pytorch, prefix + "prompt");
    ctf::id_tensor tokens = prompt;
    std::vector<std::int32_t> generated;
    for (std::size_t step = 0; step < expected_tokens.size(); ++step) {
        generated.push_back(expect_greedy_step(logits_of(tokens), golden, prefix, step, "step"));
        tokens.data.push_back(generated.back());
        tokens.dims[1] += 1;
    }
    EXPECT_EQ(generated, expected_tokens.data) << prefix << "full forward";
}

// The same greedy steps token by token with the KV cache of `decoding` (of one sequence).
template <class Decoding>
void expect_pytorch_decoding(Decoding& decoding, const ctf::safetensors_file& file, const ctf::tensor_map& golden,
                             const std::string& prefix) {
    const ctf::id_tensor expected_tokens = file.ids(prefix + "expected_tokens");
    ctf::host_tensor<float> logits = decoding.prefill(file.ids("prompt"));
    std::vector<std::int32_t> generated;
    for (std::size_t step = 0; step < expected_tokens.size(); ++step) {
        generated.push_back(expect_greedy_step(logits, golden, prefix, step, "decoded step"));
        logits = decoding.step(ctf::id_tensor({1, 1}, {generated.back()}));
    }
    EXPECT_EQ(generated, expected_tokens.data) << prefix << "decoded";
}

// Both, for a model compiled with ctf::compile.
template <class Model>
void expect_pytorch_generation(const Model& model, const ctf::safetensors_file& file, const ctf::tensor_map& golden,
                               const std::string& prefix) {
    expect_pytorch_forward_generation([&](const ctf::id_tensor& ids) { return model.run(ids); }, file, golden, prefix);
    auto decoding = model.start_decoding(1);
    expect_pytorch_decoding(decoding, file, golden, prefix);
}

}  // namespace test
