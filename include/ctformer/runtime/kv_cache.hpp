// The state of token-by-token decoding: the keys and values of the positions decoded so far, where
// the program's cache layout (plan/cache_layout.hpp) says, and how many positions each sequence (a
// slot of the cache) has filled. A decoding run (run_options::cache) appends its tokens' keys and
// values at their sequences' positions, then advances them; one past the capacity is a cache_full
// error. The sequences of a batch decode together at one position, or each at its own: a run of some
// of them (run_options::sequences), of different lengths, runs packed (shape/ragged.hpp). Steps that
// read nothing of the decoded positions (cross-attention's K and V projections of an encoder's
// memory) run once, in the prompt's run: their values are kept here for the steps after it.
// Compiled once, in the ctformer library (src/runtime/kv_cache.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include <hwy/aligned_allocator.h>

#include "../core/exceptions.hpp"
#include "../core/huge_pages.hpp"
#include "../plan/cache_layout.hpp"
#include "../plan/program.hpp"

namespace ctformer::runtime {

class kv_cache {
public:
    kv_cache(const plan::program& p, std::size_t batch);

    const plan::cache_layout& layout() const { return layout_; }
    std::size_t batch() const { return layout_.batch(); }
    std::size_t capacity() const { return layout_.capacity(); }
    std::size_t position(std::size_t sequence) const {  // its positions filled
        if (sequence >= batch())
            throw invalid_option("the sequence of a position", std::to_string(sequence), "0 to " + std::to_string(batch() - 1));
        return positions_[sequence];
    }
    std::size_t position() const { return *std::max_element(positions_.begin(), positions_.end()); }  // the most of any
    bool aligned() const { return std::equal(positions_.begin() + 1, positions_.end(), positions_.begin()); }  // all at one
    const std::vector<std::size_t>& positions() const { return positions_; }
    // Whether the last run was packed: some sequences, or each at its own position.
    bool last_run_packed() const { return last_run_packed_; }
    int stream() const { return layout_.stream(); }     // the declared length of the decoded positions
    std::size_t bytes() const { return layout_.bytes(); }
    std::size_t tokens(const plan::extent_values& at) const { return layout_.tokens(at); }  // a run's new ones

    // The cache's sequences a run names (run_options::sequences), each once; every one when none.
    std::vector<std::size_t> sequences_of(std::span<const std::size_t> named) const;
    // Their positions filled.
    std::vector<std::size_t> positions_of(std::span<const std::size_t> sequences) const;
    // Sequences start over from position 0: those named, or every one when none. If f (their run)
    // throws, they keep the positions they had.
    template <class F>
    auto restarted(std::span<const std::size_t> named, F f) {
        const std::vector<std::size_t> before = positions_;
        for (std::size_t s : sequences_of(named)) positions_[s] = 0;
        try {
            return f();
        } catch (...) {
            positions_ = before;
            throw;
        }
    }

    // Room for the tokens of a run of `at` (every sequence's, or a packed run's own), or cache_full.
    void check_room(const plan::extent_values& at) const;
    // Their positions filled.
    void advance(const plan::extent_values& at);

    // Whether step k runs in the prompt's run only, its value kept.
    bool runs_once(std::size_t k) const { return once_[k]; }

    // Before a run of `at`: the prompt's sizes the memory of the values kept; a later step's inputs
    // must have the prompt's other lengths (the memory it was computed from).
    void prepare(const plan::program& p, const plan::extent_values& at);

    // Where step k (one that runs once) keeps its value in `iteration`, from sequence `first` on.
    float* kept(std::size_t k, int iteration, std::size_t first) {
        const std::size_t per_iteration = kept_[k].floats / layout_.repeats(k), per_sequence = per_iteration / batch();
        return kept_[k].data.get() + static_cast<std::size_t>(std::max(iteration, 0)) * per_iteration + first * per_sequence;
    }

    // Step k's cache in `iteration` of its repeat (-1 outside one), from sequence `first` on; none
    // for a step that caches nothing.
    plan::cache_block block(std::size_t k, int iteration, std::size_t first) const {
        if (!layout_.per_sequence(k)) return {};
        return {memory_.get() + layout_.offset(k, iteration, first), capacity()};
    }

private:
    // A step runs once when nothing it reads (transitively) runs along the decoded positions: not
    // an input of that length or token ids, not a repeat's carried value, and its own value of no
    // such length (a position table's rows).
    void find_steps_run_once(const plan::program& p);

    // f(sequence, its new tokens) for each sequence a run of `at` appends to.
    template <class F>
    void for_each_sequence(const plan::extent_values& at, F f) const {
        if (!at.ragged)
            for (std::size_t s = 0; s < batch(); ++s) f(s, tokens(at));
        else
            for (std::size_t q = 0; q < at.ragged->sequences(); ++q) f(at.ragged->slots[q], at.ragged->length(q));
    }

    plan::cache_layout layout_;
    std::vector<std::size_t> positions_;  // per sequence
    bool last_run_packed_ = false;
    hwy::AlignedFreeUniquePtr<float[]> memory_;
    std::vector<bool> once_;                            // per step: it runs in the prompt's run only
    struct values {
        hwy::AlignedFreeUniquePtr<float[]> data;
        std::size_t floats = 0;
        void resize(std::size_t n);
    };
    std::vector<values> kept_;                          // per step run once: its values, every iteration
    plan::extent_values prompt_;                        // the prompt's run's extents
};

}  // namespace ctformer::runtime
