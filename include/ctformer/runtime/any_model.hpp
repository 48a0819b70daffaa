// A compiled model behind a plain, non-template interface: what generated models and ctformer-run
// hold, so that code using them needs neither Highway nor Boost. One object runs one Highway target,
// chosen when it was made.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "../host_tensor.hpp"
#include "run_options.hpp"

namespace ctformer {

class any_model {
public:
    virtual ~any_model() = default;
    // Checks every weight by name and shape, and packs them; strictly, refuses tensors it does not read.
    virtual void bind(const tensor_map& weights, const runtime::bind_options& options) = 0;
    // The inputs by name; output takes the result's shape (or must already have it).
    virtual void run(const tensor_map& inputs, host_tensor<float>& output, const runtime::run_options& options) const = 0;
    // The tree before and after each fusion pass, and the plan, for a batch of `batch`.
    virtual std::string explain(std::size_t batch) const = 0;
    // Where the time of one run of `batch` went, from the records run_options::profile collected in
    // it: each step's time, GFLOP/s, bytes moved and share of the FMA peak of `threads` cores.
    virtual std::string profile(const std::vector<runtime::step_record>& records, std::size_t batch,
                                int threads) const = 0;
    // The bytes a run of `batch` sequences on `threads` threads takes besides its inputs and weights.
    virtual std::size_t run_bytes(std::size_t batch, int threads) const = 0;
    // The Highway target it runs on, e.g. "AVX2".
    virtual std::string_view target() const = 0;
};

}  // namespace ctformer
