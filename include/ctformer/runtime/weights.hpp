// The weights a compiled model holds, bound by name from a weight_source (a tensor_map, or a
// checkpoint's files, read one tensor at a time): for every weight slot of the
// program its values (once per iteration of its repeat, under "layers.{i}."), checked against the
// declared shape and copied; for every GEMM step its W (stacked, for fuse_qkv's concat) and bias,
// packed for the program's target. Compiled once, in the ctformer library (src/runtime/weights.cpp).
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "../plan/program.hpp"
#include "run_options.hpp"
#include "../core/tensor_check.hpp"
#include "weight_source.hpp"

namespace ctformer::runtime {

class bound_weights {
public:
    // Every name first: all the missing ones (and, strictly, the unexpected ones) are reported
    // together, by the file's names; then the shapes, and the packing.
    void bind(const plan::program& p, const weight_source& given, const bind_options& options);

    // Every weight the program reads, by the name it is bound by, with its declared extents.
    static std::vector<std::pair<std::string, std::vector<int>>> weights_read(const plan::program& p);

    bool bound() const { return bound_; }
    kernels::precision precision() const { return format_; }
    kernels::gemm_unit unit() const { return unit_; }  // what its GEMMs run on (kernels/gemm.hpp)

    const float* plain(plan::slot_id s, int iteration) const { return plain_[s][std::max(iteration, 0)].data(); }
    const kernels::packed_weight* packed(std::size_t step, int iteration) const {
        return packed_[step].empty() ? nullptr : &packed_[step][std::max(iteration, 0)];
    }

private:
    std::vector<std::vector<std::vector<float>>> plain_;        // per slot, per iteration
    std::vector<std::vector<kernels::packed_weight>> packed_;  // per step, per iteration
    kernels::precision format_ = kernels::precision::fp32;
    kernels::gemm_unit unit_ = kernels::gemm_unit::fp32;
    bool bound_ = false;
};

}  // namespace ctformer::runtime
