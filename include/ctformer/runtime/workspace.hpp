// The memory one run works in: one arena for the activations (the plan's allocation places every
// value slot in it, reusing dead ones) and a scratch block per thread, kept for the next run, so a
// model allocates only on its first run or when the batch (or a length) grows. A run owns its workspace;
// concurrent runs use separate ones. A failed allocation throws out_of_memory.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include <hwy/aligned_allocator.h>

#include "../plan/allocation.hpp"
#include "../core/exceptions.hpp"

namespace ctformer::runtime {

class workspace {
public:
    // The arena laid out for `at`: the allocation (computed once per batch and lengths) and its memory.
    float* arena(const plan::program& p, const plan::extent_values& at) {
        if (!layout_ || layout_->first != at) layout_.emplace(at, plan::allocate(p, at));
        grow(arena_, arena_floats_, layout_->second.floats, "the activations");
        return arena_.get();
    }
    const plan::allocation& layout() const { return layout_->second; }

    // One block of `bytes` per thread.
    std::vector<std::byte*> scratch(std::size_t bytes, int threads) {
        if (scratch_.size() < static_cast<std::size_t>(threads)) scratch_.resize(threads), scratch_bytes_.resize(threads);
        std::vector<std::byte*> blocks;
        for (int t = 0; t < threads; ++t) {
            grow(scratch_[t], scratch_bytes_[t], bytes, "per-thread scratch");
            blocks.push_back(scratch_[t].get());
        }
        return blocks;
    }

private:
    template <class T>
    static void grow(hwy::AlignedFreeUniquePtr<T[]>& memory, std::size_t& capacity, std::size_t count, const char* what) {
        if (capacity >= count && memory) return;
        memory = hwy::AllocateAligned<T>(count ? count : 1);
        capacity = memory ? count : 0;
        if (!memory) throw out_of_memory(what, count * sizeof(T));
    }

    std::optional<std::pair<plan::extent_values, plan::allocation>> layout_;
    hwy::AlignedFreeUniquePtr<float[]> arena_;
    std::size_t arena_floats_ = 0;
    std::vector<hwy::AlignedFreeUniquePtr<std::byte[]>> scratch_;
    std::vector<std::size_t> scratch_bytes_;
};

// Workspaces for runs that may overlap: a run takes one (or a new one) and gives it back.
class workspace_pool {
public:
    std::unique_ptr<workspace> take() {
        const std::lock_guard lock(mutex_);
        if (free_.empty()) return std::make_unique<workspace>();
        auto w = std::move(free_.back());
        free_.pop_back();
        return w;
    }
    void give_back(std::unique_ptr<workspace> w) {
        const std::lock_guard lock(mutex_);
        free_.push_back(std::move(w));
    }

private:
    std::mutex mutex_;
    std::vector<std::unique_ptr<workspace>> free_;
};

}  // namespace ctformer::runtime
