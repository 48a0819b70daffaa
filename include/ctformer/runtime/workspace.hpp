// The memory one run works in: buffers for intermediates and per-thread kernel scratch, handed out
// in the same order on every run and kept for the next, so a model allocates only on its first run
// (or when the batch grows). A run owns its workspace; concurrent runs use separate ones.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include <hwy/aligned_allocator.h>

namespace ctformer::runtime {

template <class T>
T& mine(std::vector<std::unique_ptr<T>>& per_thread, int thread) {
    auto& object = per_thread[thread];
    if (!object) object = std::make_unique<T>();
    return *object;
}

class workspace {
public:
    // At least `count` floats, the same buffer for the same slot on every run.
    float* floats(std::size_t slot, std::size_t count) {
        if (slot >= buffers_.size()) buffers_.resize(slot + 1);
        buffer& b = buffers_[slot];
        if (b.capacity < count) b = {hwy::AllocateAligned<float>(count), count};
        return b.data.get();
    }

    // Room for one T per thread for a slot; call it before the threads start. Thread t makes its own
    // with mine(...) on first use.
    template <class T>
    std::vector<std::unique_ptr<T>>& per_thread(std::size_t slot, int threads) {
        if (slot >= objects_.size()) objects_.resize(slot + 1);
        if (!objects_[slot]) objects_[slot] = std::make_shared<std::vector<std::unique_ptr<T>>>();
        auto& all = *std::static_pointer_cast<std::vector<std::unique_ptr<T>>>(objects_[slot]);
        if (all.size() < static_cast<std::size_t>(threads)) all.resize(threads);
        return all;
    }

private:
    struct buffer {
        hwy::AlignedFreeUniquePtr<float[]> data;
        std::size_t capacity = 0;
    };
    std::vector<buffer> buffers_;
    std::vector<std::shared_ptr<void>> objects_;
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
