// A decoder-only model's generation against PyTorch's (a golden file of tests/data/make_golden.py:
// gpt2_case, llama_cases): the prompt's logits and each greedy step's, by the full forward and token
// by token with the KV cache, and the tokens they choose; and sequences decoded together as alone.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <ctformer/runtime/generation.hpp>
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

// Exactly: a sequence's arithmetic does not depend on the others in its run.
inline constexpr tolerance bitwise{};

// Prompts of different lengths decoded together (`together`, 3 sequences) give each sequence exactly
// the logits it gives alone (`alone`, 1 sequence): one packed prefill of three prompts; a step of all
// three, each at its own position; sequence 1 stopped while 0 and 2 go on; its slot given a new prompt
// of its own length; a step of all three again. The tokens fed are fixed ids, not chosen.
template <class Decoding>
void expect_decoding_together_as_alone(Decoding& together, Decoding& alone, std::int32_t vocabulary) {
    using ids = std::vector<std::int32_t>;
    const auto some_ids = [&](std::size_t n, std::int32_t seed) {
        ids out;
        for (std::size_t i = 0; i < n; ++i) out.push_back(static_cast<std::int32_t>((seed * 17 + 5 * i + 1) % vocabulary));
        return out;
    };
    const std::vector<ids> prompts{some_ids(5, 1), some_ids(2, 2), some_ids(7, 3), some_ids(4, 4)};  // 3 takes 1's slot
    const std::vector<ids> fed{some_ids(3, 5), some_ids(1, 6), some_ids(3, 7), some_ids(1, 8)};
    std::vector<std::vector<ctf::host_tensor<float>>> alone_logits;  // per prompt: its prefill's, then each step's
    for (std::size_t s = 0; s < prompts.size(); ++s) {
        alone_logits.push_back({alone.prefill(ctf::id_tensor({1, prompts[s].size()}, prompts[s]))});
        for (std::int32_t token : fed[s]) alone_logits[s].push_back(alone.step(ctf::id_tensor({1, 1}, {token})));
    }
    const auto rows = [](const ctf::host_tensor<float>& t, std::size_t first, std::size_t n) {
        const std::size_t row = t.data.size() / (t.dims.size() == 2 ? t.dims[0] : t.dims[0] * t.dims[1]);
        return std::vector<float>(t.data.begin() + static_cast<std::ptrdiff_t>(first * row),
                                  t.data.begin() + static_cast<std::ptrdiff_t>((first + n) * row));
    };
    const auto expect_alone = [&](const ctf::host_tensor<float>& got, std::size_t row, std::size_t prompt, std::size_t run,
                                  const std::string& what) {
        const ctf::host_tensor<float>& want = alone_logits[prompt][run];
        const std::size_t n = want.dims[1];
        expect_close(rows(got, row, n), want.data, bitwise, what + ", prompt " + std::to_string(prompt));
    };
    const ids packed = [&] {
        ids all;
        for (std::size_t s = 0; s < 3; ++s) all.insert(all.end(), prompts[s].begin(), prompts[s].end());
        return all;
    }();
    ctf::host_tensor<float> logits = together.prefill(ctf::id_tensor({packed.size()}, packed), {.lengths = {5, 2, 7}});
    expect_alone(logits, 0, 0, 0, "packed prefill");
    expect_alone(logits, 5, 1, 0, "packed prefill");
    expect_alone(logits, 7, 2, 0, "packed prefill");
    logits = together.step(ctf::id_tensor({3, 1}, {fed[0][0], fed[1][0], fed[2][0]}));  // each at its own position
    for (std::size_t s = 0; s < 3; ++s) expect_alone(logits, s, s, 1, "a step of all three");
    logits = together.step(ctf::id_tensor({2, 1}, {fed[0][1], fed[2][1]}), {.sequences = {0, 2}});  // 1 has stopped
    expect_alone(logits, 0, 0, 2, "a step of 0 and 2");
    expect_alone(logits, 1, 2, 2, "a step of 0 and 2");
    logits = together.prefill(ctf::id_tensor({1, prompts[3].size()}, prompts[3]), {.sequences = {1}});  // its slot anew
    expect_alone(logits, 0, 3, 0, "a new prompt in slot 1");
    logits = together.step(ctf::id_tensor({3, 1}, {fed[0][2], fed[3][0], fed[2][2]}));
    expect_alone(logits, 0, 0, 3, "all three again");
    expect_alone(logits, 1, 3, 1, "all three again");
    expect_alone(logits, 2, 2, 3, "all three again");
    EXPECT_EQ(together.position(0), 8u);
    EXPECT_EQ(together.position(1), 5u);
    EXPECT_EQ(together.position(2), 10u);
    EXPECT_EQ(together.position(), 10u);
}

// One run may hold a sequence's first tokens beside another's next one (here sequence 1's prompt
// beside sequence 0's next token, its slot never prefilled): each gets what it gets alone.
template <class Decoding>
void expect_prompt_beside_a_step_as_alone(Decoding& fresh, Decoding& alone) {
    const std::vector<std::int32_t> first{5, 6, 7}, second{1, 2, 3};
    fresh.step(ctf::id_tensor({1, first.size()}, first), {.sequences = {0}});
    const ctf::host_tensor<float> both = fresh.step(ctf::id_tensor({4}, {8, 1, 2, 3}), {.lengths = {1, 3}});
    alone.prefill(ctf::id_tensor({1, first.size()}, first));
    const ctf::host_tensor<float> next = alone.step(ctf::id_tensor({1, 1}, {8}));
    const ctf::host_tensor<float> prompt = alone.prefill(ctf::id_tensor({1, second.size()}, second));
    const std::size_t row = next.data.size();
    expect_close(std::vector<float>(both.data.begin(), both.data.begin() + static_cast<std::ptrdiff_t>(row)), next.data, bitwise,
                 "a step beside a prompt");
    expect_close(std::vector<float>(both.data.begin() + static_cast<std::ptrdiff_t>(row), both.data.end()), prompt.data, bitwise,
                 "a prompt beside a step");
}

// ctf::generate of prompts of different lengths together gives each the tokens it gives alone:
// greedy, to a stop id (which one sequence meets early, leaving the steps), and sampled from a seed.
template <class Decoding>
void expect_generated_together_as_alone(Decoding& together, Decoding& alone, const std::vector<std::vector<std::int32_t>>& prompts) {
    const auto each_alone = [&](const ctf::generation& g) {
        std::vector<std::vector<std::int32_t>> tokens;
        for (const std::vector<std::int32_t>& prompt : prompts) tokens.push_back(ctf::generate(alone, prompt, g));
        return tokens;
    };
    const ctf::generation greedy{.tokens = 6};
    const std::vector<std::vector<std::int32_t>> greedy_alone = each_alone(greedy);
    EXPECT_EQ(ctf::generate(together, prompts, greedy), greedy_alone) << "greedy";
    const ctf::generation stopping{.tokens = 6, .stop = {greedy_alone[1][1]}};  // sequence 1 stops at its second token
    const std::vector<std::vector<std::int32_t>> stopped = each_alone(stopping);
    EXPECT_LE(stopped[1].size(), 2u);
    EXPECT_GT(std::max(stopped[0].size(), stopped[2].size()), stopped[1].size()) << "the others go on without sequence 1";
    EXPECT_EQ(ctf::generate(together, prompts, stopping), stopped) << "to a stop id";
    const ctf::generation sampled{.tokens = 10, .sample = {.temperature = 1.5, .top_k = 20, .seed = 3}};
    EXPECT_EQ(ctf::generate(together, prompts, sampled), each_alone(sampled)) << "sampled";
}

}  // namespace test
