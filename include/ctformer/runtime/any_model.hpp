// A compiled model behind a plain, non-template interface: what generated models and ctformer-run
// hold, so that code using them needs neither Highway nor Boost. One object runs one Highway target,
// chosen when it was made.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "../core/host_tensor.hpp"
#include "../shape/shape.hpp"
#include "run_options.hpp"

namespace ctformer {

class any_model {
public:
    virtual ~any_model() = default;
    // Checks every weight by name and shape, and packs them; strictly, refuses tensors it does not read.
    virtual void bind(const tensor_map& weights, const runtime::bind_options& options) = 0;
    // The inputs by name, token ids (int32) among the ids; output takes the result's shape (or must
    // already have it).
    virtual void run(const tensor_map& inputs, const id_map& ids, host_tensor<float>& output,
                     const runtime::run_options& options) const = 0;
    // A model without token ids.
    void run(const tensor_map& inputs, host_tensor<float>& output, const runtime::run_options& options) const {
        run(inputs, id_map{}, output, options);
    }
    // The tree before and after each fusion pass, and the plan, for a run of `at` (a batch, lengths).
    virtual std::string explain(const extent_values& at) const = 0;
    // Where the time of one run of `at` went, from the records run_options::profile collected in
    // it: each step's time, GFLOP/s, bytes moved and share of the FMA peak of `threads` cores.
    virtual std::string profile(const std::vector<runtime::step_record>& records, const extent_values& at,
                                int threads) const = 0;
    // The bytes a run of `at` on `threads` threads takes besides its inputs and weights.
    virtual std::size_t run_bytes(const extent_values& at, int threads) const = 0;
    // The Highway target it runs on, e.g. "AVX2".
    virtual std::string_view target() const = 0;
};

}  // namespace ctformer
