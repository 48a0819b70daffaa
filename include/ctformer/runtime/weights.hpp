// The weights a compiled model holds, bound by name from a tensor_map: for every weight slot of the
// program its values (once per iteration of its repeat, under "layers.{i}."), checked against the
// declared shape and copied; for every GEMM step its W (stacked, for fuse_qkv's concat) and bias,
// packed for the program's target.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "../plan/program.hpp"
#include "tensor_check.hpp"

namespace ctformer::runtime {

class bound_weights {
public:
    void bind(const plan::program& p, const tensor_map& given) {
        std::vector<std::vector<std::vector<float>>> plain(p.slots.size());
        for (plan::slot_id s = 0; s < p.slots.size(); ++s)
            if (p.slots[s].kind == plan::slot_kind::weight)
                for (int i = 0; i < iterations(p, p.slots[s].repeat); ++i)
                    plain[s].push_back(checked(given, prefix(p, p.slots[s].repeat, i) + p.slots[s].name, p.slots[s].extents).data);
        std::vector<std::vector<kernels::packed_weight>> packed(p.steps.size());
        for (std::size_t k = 0; k < p.steps.size(); ++k)
            if (!p.steps[k].packed.empty())
                for (int i = 0; i < iterations(p, p.steps[k].repeat); ++i) packed[k].push_back(pack(p, k, i, given));
        plain_ = std::move(plain);
        packed_ = std::move(packed);
        bound_ = true;
    }

    bool bound() const { return bound_; }

    const float* plain(plan::slot_id s, int iteration) const { return plain_[s][std::max(iteration, 0)].data(); }
    const kernels::packed_weight* packed(std::size_t step, int iteration) const {
        return packed_[step].empty() ? nullptr : &packed_[step][std::max(iteration, 0)];
    }

private:
    static int iterations(const plan::program& p, int repeat) { return repeat < 0 ? 1 : p.repeats[repeat].count; }
    static std::string prefix(const plan::program& p, int repeat, int iteration) {
        return repeat < 0 ? "" : p.repeats[repeat].prefix_of(iteration);
    }

    static const host_tensor<float>& checked(const tensor_map& given, const std::string& name, const std::vector<int>& extents) {
        std::optional<std::size_t> no_batch;
        return checked_tensor(given, name, extents, no_batch);
    }

    // Step k's W (its parts stacked along the first axis) and bias, for iteration i, packed.
    static kernels::packed_weight pack(const plan::program& p, std::size_t k, int i, const tensor_map& given) {
        const plan::step& s = p.steps[k];
        std::vector<std::vector<float>> joined;
        for (const plan::packed_use& use : s.packed) {
            std::vector<float>& values = joined.emplace_back();
            for (std::size_t part = 0; part < use.parts.size(); ++part) {
                const host_tensor<float>& t = checked(given, prefix(p, s.repeat, i) + use.parts[part], use.part_extents[part]);
                values.insert(values.end(), t.data.begin(), t.data.end());
            }
        }
        return s.pack(joined[0].data(), joined.size() > 1 ? joined[1].data() : nullptr);
    }

    std::vector<std::vector<std::vector<float>>> plain_;        // per slot, per iteration
    std::vector<std::vector<kernels::packed_weight>> packed_;  // per step, per iteration
    bool bound_ = false;
};

}  // namespace ctformer::runtime
