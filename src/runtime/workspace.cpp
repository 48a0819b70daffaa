// The memory runs work in (ctformer/runtime/workspace.hpp), compiled once for every model.
#include <ctformer/runtime/workspace.hpp>

#include <ctformer/core/exceptions.hpp>

namespace ctformer::runtime {
namespace {

// `memory` made to hold `count` elements, reallocated only when it holds fewer.
template <class T>
void grow(hwy::AlignedFreeUniquePtr<T[]>& memory, std::size_t& capacity, std::size_t count, const char* what) {
    if (capacity >= count && memory) return;
    memory = hwy::AllocateAligned<T>(count ? count : 1);
    capacity = memory ? count : 0;
    if (!memory) throw out_of_memory(what, count * sizeof(T));
}

}  // namespace

float* workspace::arena(const plan::program& p, const plan::extent_values& at) {
    if (!layout_ || layout_->first != at) layout_.emplace(at, plan::allocate(p, at));
    grow(arena_, arena_floats_, layout_->second.floats, "the activations");
    return arena_.get();
}

std::vector<std::byte*> workspace::scratch(std::size_t bytes, int threads) {
    if (scratch_.size() < static_cast<std::size_t>(threads)) scratch_.resize(threads), scratch_bytes_.resize(threads);
    std::vector<std::byte*> blocks;
    for (int t = 0; t < threads; ++t) {
        grow(scratch_[t], scratch_bytes_[t], bytes, "per-thread scratch");
        blocks.push_back(scratch_[t].get());
    }
    return blocks;
}

std::unique_ptr<workspace> workspace_pool::take() {
    const std::lock_guard lock(mutex_);
    if (free_.empty()) return std::make_unique<workspace>();
    auto w = std::move(free_.back());
    free_.pop_back();
    return w;
}

void workspace_pool::give_back(std::unique_ptr<workspace> w) {
    const std::lock_guard lock(mutex_);
    free_.push_back(std::move(w));
}

}  // namespace ctformer::runtime
