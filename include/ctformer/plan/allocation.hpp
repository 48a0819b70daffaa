// Buffer reuse, a pass of its own over the program (Halide's storage folding): each value slot lives
// from the first step that writes it to the last that reads it, and is placed in one workspace arena,
// first fit, in the space of slots already dead. So the arena is the run's peak activation memory.
//
// A repeat's body runs many times: a slot made before the repeat and read inside it lives to the
// repeat's end, and so do the two buffers the iterations alternate between (its value and spare);
// the body's own slots die and are reused within one iteration. Inputs, weights, constants and the
// result belong to the caller and take no arena space.
#pragma once

#include <algorithm>
#include <map>
#include <vector>

#include "program.hpp"

namespace ctformer::plan {

struct lifetime {
    std::size_t first = static_cast<std::size_t>(-1), last = 0;  // steps; first = -1: never written
    bool in_arena = false;
};

inline std::vector<lifetime> lifetimes(const program& p) {
    std::vector<lifetime> life(p.slots.size());
    const auto touch = [&](slot_id s, std::size_t k) {
        life[s].first = std::min(life[s].first, k);
        life[s].last = std::max(life[s].last, k);
    };
    for (std::size_t k = 0; k < p.steps.size(); ++k) {
        for (const operand_slot& o : p.steps[k].reads) life[o.slot].last = std::max(life[o.slot].last, k);
        touch(p.steps[k].writes, k);
    }
    for (const repeat_block& r : p.repeats) {
        touch(r.value, r.first);
        touch(r.spare, r.first);
        touch(r.spare, r.end - 1);
        for (slot_id s = 0; s < p.slots.size(); ++s)
            if (life[s].first < r.first && life[s].last >= r.first) life[s].last = std::max(life[s].last, r.end - 1);
        life[r.argument].last = std::max(life[r.argument].last, r.end - 1);
    }
    for (slot_id s = 0; s < p.slots.size(); ++s) life[s].in_arena = p.slots[s].kind == slot_kind::value;
    return life;
}

// Where each value slot lives for a run of the given extents, and how large the arena is.
struct allocation {
    static constexpr std::size_t align_floats = 32;  // 128-byte aligned starts
    std::vector<std::size_t> offset;                  // in floats, per slot (value slots only)
    std::size_t floats = 0;
    std::size_t bytes() const { return floats * sizeof(float); }
};

inline allocation allocate(const program& p, const extent_values& at) {
    const std::vector<lifetime> life = lifetimes(p);
    allocation a;
    a.offset.assign(p.slots.size(), 0);
    std::map<std::size_t, std::size_t> live;  // offset -> floats, of the slots alive now
    std::vector<std::vector<slot_id>> starting(p.steps.size()), ending(p.steps.size());
    for (slot_id s = 0; s < p.slots.size(); ++s)
        if (life[s].in_arena && life[s].first < p.steps.size()) {
            starting[life[s].first].push_back(s);
            ending[life[s].last].push_back(s);
        }
    for (std::size_t k = 0; k < p.steps.size(); ++k) {
        for (slot_id s : starting[k]) {
            const std::size_t size = std::max<std::size_t>(1, (p.slots[s].elements(at) + allocation::align_floats - 1) /
                                                                  allocation::align_floats) * allocation::align_floats;
            std::size_t place = 0;  // the first gap between live blocks that fits
            for (const auto& [begin, floats] : live) {
                if (begin >= place + size) break;
                place = std::max(place, begin + floats);
            }
            live.emplace(place, size);
            a.offset[s] = place;
            a.floats = std::max(a.floats, place + size);
        }
        for (slot_id s : ending[k]) live.erase(a.offset[s]);
    }
    return a;
}

// How many sequences of a batch of `at` a chunk takes for its activations to stay within `limit`
// bytes (every step treats a batch's sequences apart, so a large batch runs in chunks).
inline std::size_t chunk_sequences(const program& p, const extent_values& at, std::size_t limit) {
    const std::size_t batch = at.batch, per_sequence = allocate(p, at.with_batch(1)).bytes();
    return std::clamp<std::size_t>(per_sequence ? limit / per_sequence : batch, 1, std::max<std::size_t>(batch, 1));
}

// What a run of a batch takes besides its inputs and the weights: the activations of one chunk,
// each thread's scratch, and the output.
// The activations a run may hold at once unless run_options::max_activation_bytes says otherwise:
// a batch that needs more runs in chunks of sequences that fit.
inline constexpr std::size_t default_max_activation_bytes = std::size_t{256} << 20;

struct run_memory {
    std::size_t chunk = 0, activations = 0, scratch_per_thread = 0, output = 0;
    std::size_t total(int threads) const { return activations + scratch_per_thread * threads + output; }
};

inline run_memory memory_of_run(const program& p, const extent_values& at, std::size_t max_activation_bytes) {
    run_memory m;
    m.chunk = chunk_sequences(p, at, max_activation_bytes);
    m.activations = allocate(p, at.with_batch(std::min(at.batch, m.chunk))).bytes();
    m.scratch_per_thread = p.scratch_bytes();
    m.output = p.slots[p.result].elements(at) * sizeof(float);
    return m;
}

}  // namespace ctformer::plan
