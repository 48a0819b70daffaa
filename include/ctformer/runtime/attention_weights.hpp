// need_weights, averaged: PyTorch's nn.MultiheadAttention returns by default the attention weights
// averaged over the heads. From per-head weights [..., heads, Lq, Lk] (kept from a run of
// multi_head_attention_with_weights), their mean over the heads: [..., Lq, Lk].
#pragma once

#include "../core/host_tensor.hpp"

namespace ctformer {

inline host_tensor<float> average_over_heads(const host_tensor<float>& per_head) {
    if (per_head.dims.size() < 3) throw error("ctformer: average_over_heads needs [..., heads, Lq, Lk] weights");
    const std::size_t heads = per_head.dims[per_head.dims.size() - 3];
    dims_t dims = per_head.dims;
    dims.erase(dims.end() - 3);
    host_tensor<float> mean(dims);
    const std::size_t slice = dims[dims.size() - 2] * dims.back();
    for (std::size_t i = 0; i < mean.size(); ++i) {
        const std::size_t outer = i / slice, within = i % slice;
        float sum = 0.0f;
        for (std::size_t h = 0; h < heads; ++h) sum += per_head[(outer * heads + h) * slice + within];
        mean[i] = sum / static_cast<float>(heads);
    }
    return mean;
}

}  // namespace ctformer
