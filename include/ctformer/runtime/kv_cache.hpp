// The state of token-by-token decoding: for every cached attention step of a program (causal
// self-attention, plan/steps/attention-inl.h) and every iteration of its repeat, the keys and
// values of the positions decoded so far, for `batch` sequences of up to `capacity` positions; and
// how many positions are filled. A decoding run (run_options::cache) appends its tokens' keys and
// values at position(), then advances it; one past the capacity is a cache_full error. Steps that
// read nothing of the decoded positions (cross-attention's K and V projections of an encoder's
// memory) run once, in the prompt's run: their values are kept here for the steps after it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include <hwy/aligned_allocator.h>

#include "../exceptions.hpp"
#include "../huge_pages.hpp"
#include "../plan/program.hpp"

namespace ctformer::runtime {

class kv_cache {
public:
    // The capacity is the maximum of the length the program's result runs along (upto<N>: N).
    // A run's other inputs (an encoder's memory) may have lengths of their own.
    kv_cache(const plan::program& p, std::size_t batch)
        : batch_(batch), stream_(stream_length(p)), capacity_(static_cast<std::size_t>(maximum(stream_))) {
        check_decodes(p);
        std::size_t floats = 0;  // per sequence, then for the batch
        for (const plan::step& s : p.steps) {
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
        floats *= batch_;
        find_steps_run_once(p);
        memory_ = hwy::AllocateAligned<float>(std::max<std::size_t>(floats, 1));
        if (!memory_) throw out_of_memory("the KV cache", floats * sizeof(float));
        advise_huge_pages(memory_.get(), floats * sizeof(float));
        std::fill_n(memory_.get(), std::max<std::size_t>(floats, 1), 0.0f);
        floats_ = floats;
    }

    std::size_t batch() const { return batch_; }
    std::size_t capacity() const { return capacity_; }
    std::size_t position() const { return position_; }  // positions filled, per sequence
    std::size_t tokens(const plan::extent_values& at) const { return at.of(stream_); }  // a run's new ones
    int stream() const { return stream_; }  // the declared length of the decoded positions
    std::size_t bytes() const { return floats_ * sizeof(float); }
    // The bytes of cached keys and values step k (every iteration) reads for one token at `position`
    // of one sequence: those of the positions it sees, its own included (rows padded as they are held).
    double bytes_read(std::size_t k, std::size_t position) const {
        if (!floats_read_[k]) return 0;
        return double(floats_read_[k](std::min(position + 1, capacity_))) * double(repeats_[k]) * sizeof(float);
    }

    // Room for `tokens` more positions, or cache_full.
    void check_room(std::size_t tokens) const {
        if (position_ + tokens > capacity_) throw cache_full(capacity_, position_, tokens);
    }
    void advance(std::size_t tokens) { position_ += tokens; }
    void clear() { position_ = 0; }

    // Whether step k runs in the prompt's run only, its value kept.
    bool runs_once(std::size_t k) const { return once_[k]; }

    // Before a run of `at`: the prompt's sizes the memory of the values kept; a later step's inputs
    // must have the prompt's other lengths (the memory it was computed from).
    void prepare(const plan::program& p, const plan::extent_values& at) {
        if (position_ == 0) {
            prompt_ = at;
            for (std::size_t k = 0; k < p.steps.size(); ++k)
                if (once_[k]) kept_[k].resize(p.slots[p.steps[k].writes].elements(at) * repeats_[k]);
            return;
        }
        for (std::size_t v = 0; v < max_lengths; ++v)
            if (static_cast<int>(v) != length_variable(stream_) && at.lengths[v] != prompt_.lengths[v])
                throw invalid_option("a length of a decoding step's inputs", std::to_string(at.lengths[v]),
                                     std::to_string(prompt_.lengths[v]) + ", the prompt's (the memory its keys and values were made of)");
    }

    // Where step k (one that runs once) keeps its value in `iteration`, from sequence `first` on.
    float* kept(std::size_t k, int iteration, std::size_t first) {
        const std::size_t per_iteration = kept_[k].floats / repeats_[k], per_sequence = per_iteration / batch_;
        return kept_[k].data.get() + static_cast<std::size_t>(std::max(iteration, 0)) * per_iteration + first * per_sequence;
    }

    // Step k's cache in `iteration` of its repeat (-1 outside one), from sequence `first` on; none
    // for a step that caches nothing.
    plan::cache_block block(std::size_t k, int iteration, std::size_t first) const {
        if (!per_sequence_[k]) return {};
        const std::size_t block = per_sequence_[k] * batch_;
        return {memory_.get() + offset_[k] + static_cast<std::size_t>(std::max(iteration, 0)) * block +
                    first * per_sequence_[k],
                capacity_};
    }

private:
    static int stream_length(const plan::program& p) {
        for (int e : p.slots[p.result].extents)
            if (is_length(e)) return e;
        throw error("ctformer: this model cannot decode token by token: its result " + p.slots[p.result].shape_text() +
                    " runs along no run-time length (declare it upto<N>)");
    }

    // A step runs once when nothing it reads (transitively) runs along the decoded positions: not
    // an input of that length or token ids, not a repeat's carried value, and its own value of no
    // such length (a position table's rows).
    void find_steps_run_once(const plan::program& p) {
        std::vector<bool> streamed(p.slots.size());
        const auto along_stream = [&](const plan::slot& v) {
            return std::find(v.extents.begin(), v.extents.end(), stream_) != v.extents.end();
        };
        for (plan::slot_id s = 0; s < p.slots.size(); ++s) {
            const plan::slot& v = p.slots[s];
            streamed[s] = v.kind == plan::slot_kind::carried || v.kind == plan::slot_kind::result ||
                          (v.kind == plan::slot_kind::input && (along_stream(v) || v.element == dtype::i32));
        }
        for (const plan::repeat_block& r : p.repeats) streamed[r.value] = streamed[r.spare] = true;
        for (const plan::step& s : p.steps) {
            bool reads_stream = along_stream(p.slots[s.writes]);
            for (const plan::operand_slot& o : s.reads) reads_stream = reads_stream || streamed[o.slot];
            streamed[s.writes] = streamed[s.writes] || reads_stream;
            once_.push_back(!reads_stream);
        }
        kept_.resize(p.steps.size());
    }

    static void check_decodes(const plan::program& p) {
        const auto cached = [](const plan::step& s) { return s.cache_floats != nullptr; };
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
    std::size_t capacity_, position_ = 0, floats_ = 0;
    std::vector<std::size_t> offset_, per_sequence_;  // per step: its first block, and its floats per sequence
    std::vector<std::size_t> repeats_;                  // per step: its iterations
    std::vector<std::size_t (*)(std::size_t)> floats_read_;  // per step: plan::step::cache_floats_read
    hwy::AlignedFreeUniquePtr<float[]> memory_;
    std::vector<bool> once_;                            // per step: it runs in the prompt's run only
    struct values {
        hwy::AlignedFreeUniquePtr<float[]> data;
        std::size_t floats = 0;
        void resize(std::size_t n) {
            if (n > floats || !data) data = hwy::AllocateAligned<float>(std::max<std::size_t>(n, 1));
            if (!data) throw out_of_memory("the values a decoding keeps", n * sizeof(float));
            floats = n;
        }
    };
    std::vector<values> kept_;                          // per step run once: its values, every iteration
    plan::extent_values prompt_;                        // the prompt's run's extents
};

}  // namespace ctformer::runtime
