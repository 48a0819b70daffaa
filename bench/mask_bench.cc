// Issue 16's table: the S2 multi-head attention (B=8, L=128, d_model=512, 8 heads) with every kind
// of mask, the seeds' MHA written op by op against nn::multi_head_attention, and the S3 encoder
// layer (BERT-base: B=1, L=512, 768 wide, 12 heads, d_ff=3072) with relu, gelu and gelu_tanh, so
// the GELU epilogue's cost is the difference; and GELU alone over that layer's hidden values
// [512, 3072], the vector kernel against the scalar std::erf per element the epilogue used to call;
// and one sequence of 2048 tokens (512 wide, 8 heads) causal, then in sliding windows of 512 and 128
// keys (Mistral's mask), whose key blocks before every query's window are skipped. One thread; built for CTFORMER_ARCH_FLAGS (mask_bench)
// and for -march=native (mask_bench_native), beside the FMA peak of the same target.
#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>
#include <ctformer/reference/random_inputs.hpp>

#include <cmath>
#include <vector>

#include "peak.hpp"

namespace {
constexpr ctf::nn::config s2{.d_model = 512, .heads = 8, .d_ff = 2048};
constexpr int L = 128;
constexpr std::size_t B = 8;
auto x = ctf::input<"x", ctf::batch, L, 512>();

template <class Graph>
void run_model(benchmark::State& state, const Graph& graph, std::size_t batch) {
    auto model = ctf::compile(graph);
    const ctf::tensor_map inputs = ctf::reference::random_inputs(graph, batch);
    model.bind(inputs);
    ctf::host_tensor<float> output;
    for (auto _ : state) {
        model.run(inputs, output, {.threads = 1});
        benchmark::DoNotOptimize(output.data.data());
    }
    state.counters["GFLOP/s"] = gflops(model.program().flops({batch}));
}

template <class... Masks>
void mha(benchmark::State& state, Masks... masks) {
    run_model(state, ctf::nn::multi_head_attention<s2>(x, masks...), B);
}

void none(benchmark::State& state) { mha(state); }
void causal(benchmark::State& state) { mha(state, ctf::causal); }
void key_padding(benchmark::State& state) { mha(state, ctf::key_padding(ctf::bool_input<"pad", ctf::batch, L>())); }
void attend_ll(benchmark::State& state) { mha(state, ctf::attend(ctf::bool_input<"m", L, L>())); }
void attend_bll(benchmark::State& state) { mha(state, ctf::attend(ctf::bool_input<"m", ctf::batch, L, L>())); }
void additive_ll(benchmark::State& state) { mha(state, ctf::additive(ctf::input<"bias", L, L>())); }
void additive_bhll(benchmark::State& state) { mha(state, ctf::additive(ctf::input<"bias", ctf::batch, 8, L, L>())); }

// The seeds' MHA op by op (tests/runtime/seeds_op_by_op_test.cpp), with the seeds' PyTorch mask.
template <ctf::fixed_string W, ctf::fixed_string Bias>
auto projected() {
    return ctf::split_heads<8>(ctf::matmul(x, ctf::transpose(ctf::weight<W, 512, 512>())) + ctf::weight<Bias, 512>());
}
auto seeds_mha_by_hand() {
    auto q = projected<"q_proj_weight", "q_proj_bias">();
    auto k = projected<"k_proj_weight", "k_proj_bias">();
    auto v = projected<"v_proj_weight", "v_proj_bias">();
    auto scores = ctf::scale(ctf::matmul(q, ctf::transpose(k)), 1.0 / std::sqrt(64.0));
    auto weights = ctf::softmax(ctf::mask(scores, ctf::attend(ctf::bool_input<"m", L, L>())));
    auto z = ctf::merge_heads(ctf::matmul(weights, v));
    return ctf::matmul(z, ctf::transpose(ctf::weight<"out_proj.weight", 512, 512>())) + ctf::weight<"out_proj.bias", 512>();
}
void op_by_op(benchmark::State& state) { run_model(state, seeds_mha_by_hand(), B); }

template <ctf::activation Act>
void s3_layer(benchmark::State& state) {
    constexpr ctf::nn::config bert{.d_model = 768, .heads = 12, .d_ff = 3072, .act = Act, .eps = 1e-12};
    run_model(state, ctf::nn::encoder_layer<bert>(ctf::input<"x", ctf::batch, 512, 768>()), 1);
}

template <class... Masks>
void long_mha(benchmark::State& state, Masks... masks) {
    run_model(state, ctf::nn::multi_head_attention<s2>(ctf::input<"x", ctf::batch, 2048, 512>(), masks...), 1);
}
void long_causal(benchmark::State& state) { long_mha(state, ctf::causal); }
template <int W>
void long_window(benchmark::State& state) { long_mha(state, ctf::sliding_window<W>); }

auto hidden = ctf::input<"h", ctf::batch, 512, 3072>();
void gelu_vector(benchmark::State& state) { run_model(state, ctf::gelu(hidden), 1); }
void gelu_scalar_erf(benchmark::State& state) {
    std::vector<float> h = ctf::reference::random_inputs(ctf::gelu(hidden), 1).at("h").data, out(h.size());
    for (auto _ : state) {
        for (std::size_t i = 0; i < h.size(); ++i) out[i] = 0.5f * h[i] * (1.0f + std::erf(h[i] * 0.70710678f));
        benchmark::DoNotOptimize(out.data());
    }
}
}  // namespace

BENCHMARK(none)->Name("mask/S2/none")->UseRealTime();
BENCHMARK(causal)->Name("mask/S2/causal")->UseRealTime();
BENCHMARK(key_padding)->Name("mask/S2/key_padding")->UseRealTime();
BENCHMARK(attend_ll)->Name("mask/S2/attend[L,L]")->UseRealTime();
BENCHMARK(attend_bll)->Name("mask/S2/attend[B,L,L]")->UseRealTime();
BENCHMARK(additive_ll)->Name("mask/S2/additive[L,L]")->UseRealTime();
BENCHMARK(additive_bhll)->Name("mask/S2/additive[B,h,L,L]")->UseRealTime();
BENCHMARK(op_by_op)->Name("mask/S2/attend[L,L] op by op")->UseRealTime();
BENCHMARK(long_causal)->Name("mask/L=2048/causal")->UseRealTime();
BENCHMARK(long_window<512>)->Name("mask/L=2048/sliding_window<512>")->UseRealTime();
BENCHMARK(long_window<128>)->Name("mask/L=2048/sliding_window<128>")->UseRealTime();
BENCHMARK(s3_layer<ctf::activation::relu>)->Name("layer/S3/relu")->UseRealTime();
BENCHMARK(s3_layer<ctf::activation::gelu>)->Name("layer/S3/gelu")->UseRealTime();
BENCHMARK(s3_layer<ctf::activation::gelu_tanh>)->Name("layer/S3/gelu_tanh")->UseRealTime();
BENCHMARK(gelu_vector)->Name("gelu/S3 hidden [512,3072]/vector")->UseRealTime();
BENCHMARK(gelu_scalar_erf)->Name("gelu/S3 hidden [512,3072]/scalar std::erf")->UseRealTime();

BENCHMARK_MAIN();
