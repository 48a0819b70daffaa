// A compiled model behind a plain interface, so that main() is ordinary code and each model
// compiles in a translation unit of its own.
#pragma once

#include <memory>
#include <string>

#include <ctformer/runtime/host_tensor.hpp>
#include <ctformer/runtime/run_options.hpp>

namespace run {

class model_runner {
public:
    virtual ~model_runner() = default;
    virtual void bind(const ctformer::tensor_map& weights) = 0;
    virtual void run(const ctformer::tensor_map& inputs, ctformer::host_tensor<float>& output,
                     const ctformer::runtime::run_options& options) const = 0;
    virtual std::string explain(std::size_t batch) const = 0;
};

}  // namespace run
