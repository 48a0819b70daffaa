// Where a decoding run's KV cache keeps what (runtime/kv_cache.hpp holds the memory): for every
// cached attention step of a program (causal self-attention, plan/steps/attention-inl.h) and every
// iteration of its repeat, the keys and values of `batch` sequences of up to `capacity` positions.
// A plan fact, so that inspect/ can say what a decoding step reads without the cache itself.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "../core/exceptions.hpp"
#include "program.hpp"

namespace ctformer::plan {

class cache_layout {
public:
    // The capacity is the maximum of the length the program's result runs along (upto<N>: N).
    // A run's other inputs (an encoder's memory) may have lengths of their own.
    cache_layout(const program& p, std::size_t batch)
        : batch_(batch), stream_(stream_length(p)), capacity_(static_cast<std::size_t>(maximum(stream_))) {
        check_decodes(p);
        std::size_t floats = 0;  // per sequence, then for the batch
        for (const step& s : p.steps) {
            offset_.push_back(floats);
            per_sequence_.push_back(s.cache_floats ? s.cache_floats(capacity_) : 0);
            floats_read_.push_back(s.cache_floats_read);
            repeats_.push_back(s.repeat < 0 ? 1 : static_cast<std::size_t>(p.repeats[s.repeat].count));
            floats += per_sequence_.back() * repeats_.back();
        }
        const std::size_t most = std::numeric_limits<std::size_t>::max() / sizeof(float) / std::max<std::size_t>(floats, 1);
        if (batch_ == 0 || batch_ > most)
            throw invalid_option("the batch of start_decoding", std::to_string(batch_),
                                 "1 to " + std::to_string(most) + " sequences (each caches " +
                                     std::to_string(floats * sizeof(float)) + " bytes)");
        for (std::size_t& offset : offset_) offset *= batch_;
        floats_ = floats * batch_;
    }

    std::size_t batch() const { return batch_; }
    std::size_t capacity() const { return capacity_; }
    int stream() const { return stream_; }  // the declared length of the decoded positions
    std::size_t tokens(const extent_values& at) const { return at.of(stream_); }  // a run's new ones
    std::size_t floats() const { return floats_; }
    std::size_t bytes() const { return floats_ * sizeof(float); }
    std::size_t repeats(std::size_t k) const { return repeats_[k]; }

    // The bytes of cached keys and values step k (every iteration) reads for one token at `position`
    // of one sequence: those of the positions it sees, its own included (rows padded as they are held).
    double bytes_read(std::size_t k, std::size_t position) const {
        if (!floats_read_[k]) return 0;
        return double(floats_read_[k](std::min(position + 1, capacity_))) * double(repeats_[k]) * sizeof(float);
    }

    // Where step k's cache of `iteration` (-1 outside a repeat) starts, from sequence `first` on, in
    // floats from the cache's start; its floats per sequence (0 for a step that caches nothing).
    std::size_t offset(std::size_t k, int iteration, std::size_t first) const {
        return offset_[k] + static_cast<std::size_t>(std::max(iteration, 0)) * per_sequence_[k] * batch_ +
               first * per_sequence_[k];
    }
    std::size_t per_sequence(std::size_t k) const { return per_sequence_[k]; }

private:
    static int stream_length(const program& p) {
        for (int e : p.slots[p.result].extents)
            if (is_length(e)) return e;
        throw error("ctformer: this model cannot decode token by token: its result " + p.slots[p.result].shape_text() +
                    " runs along no run-time length (declare it upto<N>)");
    }

    static void check_decodes(const program& p) {
        const auto cached = [](const step& s) { return s.cache_floats != nullptr; };
        for (std::size_t k = 0; k < p.steps.size(); ++k)
            if (!p.steps[k].decodes)
                throw error("ctformer: this model cannot decode token by token: step " + std::to_string(k) + " (" +
                            p.steps[k].kernel + " " + p.steps[k].detail +
                            ") needs the whole sequence at once (only causal self-attention keeps a cache)");
        if (std::none_of(p.steps.begin(), p.steps.end(), cached))
            throw error("ctformer: this model cannot decode token by token: it has no causal self-attention to cache");
    }

    std::size_t batch_;
    int stream_;  // the length the result runs along: the decoded positions
    std::size_t capacity_, floats_ = 0;
    std::vector<std::size_t> offset_, per_sequence_;  // per step: its first block, and its floats per sequence
    std::vector<std::size_t> repeats_;                  // per step: its iterations
    std::vector<std::size_t (*)(std::size_t)> floats_read_;  // per step: step::cache_floats_read
};

}  // namespace ctformer::plan
