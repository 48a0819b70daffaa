// Buffer reuse (ctformer/plan/allocation.hpp), compiled once for every model.
#include <ctformer/plan/allocation.hpp>

#include <algorithm>
#include <map>

namespace ctformer::plan {

std::vector<lifetime> lifetimes(const program& p) {
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

allocation allocate(const program& p, const extent_values& at) {
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

std::size_t chunk_sequences(const program& p, const extent_values& at, std::size_t limit) {
    const std::size_t batch = at.batch, per_sequence = allocate(p, at.with_batch(1)).bytes();
    return std::clamp<std::size_t>(per_sequence ? limit / per_sequence : batch, 1, std::max<std::size_t>(batch, 1));
}

run_memory memory_of_run(const program& p, const extent_values& at, std::size_t max_activation_bytes) {
    run_memory m;
    m.chunk = chunk_sequences(p, at, max_activation_bytes);
    m.activations = allocate(p, at.with_batch(std::min(at.batch, m.chunk))).bytes();
    m.scratch_per_thread = p.scratch_bytes();
    m.output = p.slots[p.result].elements(at) * sizeof(float);
    return m;
}

}  // namespace ctformer::plan
