// ctformer's cases of the comparison: a workload's MHA and post-LN encoder layer (or N-layer
// encoder). Per-target code: ctformer_workload.cc compiles it for every Highway target
// (foreach_target) and registers the cases of the target chosen at run time (dispatch.hpp), as a
// generated model would run; each case's label names that target.

// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_BENCH_CTFORMER_CASES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_BENCH_CTFORMER_CASES_INL_H_
#undef CTFORMER_BENCH_CTFORMER_CASES_INL_H_
#else
#define CTFORMER_BENCH_CTFORMER_CASES_INL_H_
#endif

#include <algorithm>
#include <cmath>
#include <memory>

#include <hwy/highway.h>

#include <ctformer/ctformer.hpp>
#include <ctformer/reference/random_inputs.hpp>
#include <ctformer/runtime/model-inl.h>

#include "workloads.hpp"

HWY_BEFORE_NAMESPACE();
namespace bench::HWY_NAMESPACE {

// Registers graph as ctformer/what/workload/threads:N; the model is compiled, bound (in `precision`)
// and given its inputs on the first run of any of its thread counts. A bf16 case also reports how far
// its output is from the same model's in fp32: the largest difference (max_err) and the largest
// output (max_abs).
template <class Graph>
void register_ctformer(const std::string& what, const workload& w, double flops, const Graph& graph,
                       ctf::kernels::precision precision = ctf::kernels::precision::fp32) {
    using model_type = ctformer::runtime::HWY_NAMESPACE::model<Graph>;
    struct prepared {
        model_type model;
        ctf::tensor_map inputs;
        double max_err = 0, max_abs = 0;
    };
    const auto state = std::make_shared<std::unique_ptr<prepared>>();
    register_case("ctformer", what, flops, w, [=](benchmark::State& s, int threads) {
        if (!*state) {
            *state = std::make_unique<prepared>(prepared{model_type(graph), {}});
            (*state)->inputs = ctf::reference::random_inputs(graph, static_cast<std::size_t>(w.batch));
            (*state)->model.bind((*state)->inputs, {.precision = precision});
            if (precision != ctf::kernels::precision::fp32) {
                model_type fp32(graph);
                fp32.bind((*state)->inputs);
                ctf::host_tensor<float> want, got;
                fp32.run((*state)->inputs, want);
                (*state)->model.run((*state)->inputs, got);
                for (std::size_t i = 0; i < want.data.size(); ++i) {  // a NaN stays
                    const double err = std::abs(got.data[i] - want.data[i]);
                    if (!(err <= (*state)->max_err)) (*state)->max_err = err;
                    (*state)->max_abs = std::max((*state)->max_abs, double(std::abs(want.data[i])));
                }
            }
        }
        const prepared& p = **state;
        if (precision != ctf::kernels::precision::fp32) {
            s.counters["max_err"] = p.max_err;
            s.counters["max_abs"] = p.max_abs;
        }
        ctf::host_tensor<float> output;
        for (auto _ : s) {
            p.model.run(p.inputs, output, {.threads = threads});
            benchmark::DoNotOptimize(output.data.data());
        }
        const auto gemms = (*state)->model.gemms(threads);
        s.SetLabel(std::string(hwy::TargetName(HWY_TARGET)) +
                   (gemms.unit == ctf::kernels::gemm_unit::fp32 ? "" : std::string(", GEMMs ") + ctf::kernels::unit_name(gemms.unit)));
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

// MHA and one encoder layer, and the layer in bf16 (the same model bound with bf16 GEMMs).
template <const workload& W>
void register_ctformer_workload() {
    with_masks<W>([](auto... m) {
        register_ctformer("mha", W, W.mha_flops(), ctf::nn::multi_head_attention<config_of<W>>(tokens<W>(), m...));
        const auto layer = ctf::nn::encoder_layer<config_of<W>>(tokens<W>(), m...);
        register_ctformer("enc", W, W.encoder_flops(), layer);
        register_ctformer("enc_bf16", W, W.encoder_flops(), layer, ctf::kernels::precision::bf16);
        return 0;
    });
}

template <const workload& W>
void register_ctformer_encoder_6() {
    register_ctformer("enc6", W, W.encoder_flops(6), ctf::nn::encoder<config_of<W>, 6>(tokens<W>()));
}

}  // namespace bench::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_BENCH_CTFORMER_CASES_INL_H_ toggle
