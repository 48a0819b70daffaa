// compiled(graph): ctf::compile(graph) as an any_model. Included by the model translation units.
#pragma once

#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>

#include "configurations.hpp"

namespace run {

template <class Model>
class compiled_runner final : public ctf::any_model {
public:
    explicit compiled_runner(Model model) : model_(std::move(model)) {}
    void bind(const ctf::tensor_map& weights, const ctformer::runtime::bind_options& options) override {
        model_.bind(weights, options);
    }
    void run(const ctf::tensor_map& inputs, const ctf::id_map& ids, ctf::host_tensor<float>& output,
             const ctformer::runtime::run_options& options) const override {
        model_.run(inputs, ids, output, options);
    }
    std::string explain(const ctf::extent_values& at) const override { return model_.explain(at); }
    std::string profile(const std::vector<ctformer::runtime::step_record>& records, const ctf::extent_values& at,
                        int threads) const override {
        return model_.profile(records, at, threads);
    }
    std::size_t run_bytes(const ctf::extent_values& at, int threads) const override { return model_.run_bytes(at, threads); }
    std::string_view target() const override { return hwy::TargetName(HWY_TARGET); }

private:
    Model model_;
};

template <class Graph>
std::unique_ptr<ctf::any_model> compiled(Graph graph) {
    using model_type = decltype(ctf::compile(std::move(graph)));
    return std::make_unique<compiled_runner<model_type>>(ctf::compile(std::move(graph)));
}

// The input every configuration reads: x [B, L, d_model], any length L up to Longest.
template <ctf::nn::config C, int Longest>
auto x() {
    return ctf::input<"x", ctf::batch, ctf::upto<Longest>, C.d_model>();
}

}  // namespace run
