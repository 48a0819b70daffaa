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
    void run(const ctf::tensor_map& inputs, ctf::host_tensor<float>& output,
             const ctformer::runtime::run_options& options) const override {
        model_.run(inputs, output, options);
    }
    std::string explain(std::size_t batch) const override { return model_.explain(batch); }
    std::string profile(const std::vector<ctformer::runtime::step_record>& records, std::size_t batch,
                        int threads) const override {
        return model_.profile(records, batch, threads);
    }
    std::size_t run_bytes(std::size_t batch, int threads) const override { return model_.run_bytes(batch, threads); }
    std::string_view target() const override { return hwy::TargetName(HWY_TARGET); }

private:
    Model model_;
};

template <class Graph>
std::unique_ptr<ctf::any_model> compiled(Graph graph) {
    using model_type = decltype(ctf::compile(std::move(graph)));
    return std::make_unique<compiled_runner<model_type>>(ctf::compile(std::move(graph)));
}

// The inputs every configuration reads: x [B, Sequence, d_model] and keys [B, Sequence].
template <ctf::nn::config C, int Sequence>
auto x() {
    return ctf::input<"x", ctf::batch, Sequence, C.d_model>();
}
template <int Sequence>
auto keys() {
    return ctf::key_padding(ctf::bool_input<"keys", ctf::batch, Sequence>());
}

}  // namespace run
