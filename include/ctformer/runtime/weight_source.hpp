// Where bind() reads a model's weights from: every tensor's name and shape first (the names are
// checked together, before any value is read), then each tensor, as fp32, when it is bound. A
// tensor_map in memory is one (tensor_map_source); a checkpoint's files are another (checkpoint.hpp),
// each tensor widened from its file's F16 or BF16 only when it is bound, so that a model's weights are
// never all held in fp32 at once.
#pragma once

#include <map>
#include <string>

#include "../core/host_tensor.hpp"

namespace ctformer {

class weight_source {
public:
    virtual ~weight_source() = default;
    // Every tensor's name and shape.
    virtual std::map<std::string, dims_t> shapes() const = 0;
    // One of them, as fp32.
    virtual host_tensor<float> tensor(const std::string& name) const = 0;
};

// The tensors of a tensor_map, which must outlive it.
class tensor_map_source final : public weight_source {
public:
    explicit tensor_map_source(const tensor_map& tensors) : tensors_(tensors) {}
    std::map<std::string, dims_t> shapes() const override {
        std::map<std::string, dims_t> all;
        for (const auto& [name, t] : tensors_) all.emplace(name, t.dims);
        return all;
    }
    host_tensor<float> tensor(const std::string& name) const override { return tensors_.at(name); }

private:
    const tensor_map& tensors_;
};

}  // namespace ctformer
