// The memory one run works in: one arena for the activations (the plan's allocation places every
// value slot in it, reusing dead ones) and a scratch block per thread, kept for the next run, so a
// model allocates only on its first run or when the batch (or a length) grows. A run owns its workspace;
// concurrent runs use separate ones. A failed allocation throws out_of_memory. Compiled once, in the
// ctformer library (src/runtime/workspace.cpp).
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include <hwy/aligned_allocator.h>

#include "../plan/allocation.hpp"

namespace ctformer::runtime {

class workspace {
public:
    // The arena laid out for `at`: the allocation (computed once per batch and lengths) and its memory.
    float* arena(const plan::program& p, const plan::extent_values& at);
    const plan::allocation& layout() const { return layout_->second; }

    // One block of `bytes` per thread.
    std::vector<std::byte*> scratch(std::size_t bytes, int threads);

private:
    std::optional<std::pair<plan::extent_values, plan::allocation>> layout_;
    hwy::AlignedFreeUniquePtr<float[]> arena_;
    std::size_t arena_floats_ = 0;
    std::vector<hwy::AlignedFreeUniquePtr<std::byte[]>> scratch_;
    std::vector<std::size_t> scratch_bytes_;
};

// Workspaces for runs that may overlap: a run takes one (or a new one) and gives it back.
class workspace_pool {
public:
    std::unique_ptr<workspace> take();
    void give_back(std::unique_ptr<workspace> w);

private:
    std::mutex mutex_;
    std::vector<std::unique_ptr<workspace>> free_;
};

}  // namespace ctformer::runtime
