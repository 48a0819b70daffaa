// ctformer's cases of the comparison: a workload's MHA and post-LN encoder layer (or N-layer
// encoder), compiled with ctformer::compile for the static target of CTFORMER_ARCH_FLAGS.
#pragma once

#include <memory>

#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>
#include <ctformer/reference/random_inputs.hpp>

#include "workloads.hpp"

namespace bench {

template <class Graph>
void register_ctformer(const std::string& what, const workload& w, double flops, const Graph& graph) {
    using model_type = decltype(ctf::compile(graph));
    const auto model = std::make_shared<model_type>(ctf::compile(graph));
    const auto inputs = std::make_shared<ctf::tensor_map>();
    register_case("ctformer", what, flops, w, [=](benchmark::State& state, int threads) {
        if (inputs->empty()) {
            *inputs = ctf::reference::random_inputs(graph, static_cast<std::size_t>(w.batch));
            model->bind(*inputs);
        }
        ctf::host_tensor<float> output;
        for (auto _ : state) {
            model->run(*inputs, output, {.threads = threads});
            benchmark::DoNotOptimize(output.data.data());
        }
    });
}

template <const workload& W>
constexpr ctf::nn::config config_of{.d_model = W.d_model, .heads = W.heads, .d_ff = W.d_ff};

// f(masks...) with the workload's mask: causal or none.
template <const workload& W, class F>
auto with_masks(F f) {
    if constexpr (W.causal) return f(ctf::causal);
    else return f();
}

template <const workload& W>
auto tokens() {
    return ctf::input<"x", ctf::batch, W.length, W.d_model>();
}

// MHA and one encoder layer.
template <const workload& W>
bool register_ctformer_workload() {
    with_masks<W>([](auto... m) {
        register_ctformer("mha", W, W.mha_flops(), ctf::nn::multi_head_attention<config_of<W>>(tokens<W>(), m...));
        register_ctformer("enc", W, W.encoder_flops(), ctf::nn::encoder_layer<config_of<W>>(tokens<W>(), m...));
        return 0;
    });
    return true;
}

template <const workload& W>
bool register_ctformer_encoder_6() {
    register_ctformer("enc6", W, W.encoder_flops(6), ctf::nn::encoder<config_of<W>, 6>(tokens<W>()));
    return true;
}

}  // namespace bench
