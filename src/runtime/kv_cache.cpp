// The KV cache of decoding (ctformer/runtime/kv_cache.hpp), compiled once for every model.
#include <ctformer/runtime/kv_cache.hpp>

namespace ctformer::runtime {

kv_cache::kv_cache(const plan::program& p, std::size_t batch) : layout_(p, batch), positions_(batch) {
    find_steps_run_once(p);
    const std::size_t floats = layout_.floats();
    memory_ = hwy::AllocateAligned<float>(std::max<std::size_t>(floats, 1));
    if (!memory_) throw out_of_memory("the KV cache", floats * sizeof(float));
    advise_huge_pages(memory_.get(), floats * sizeof(float));
    std::fill_n(memory_.get(), std::max<std::size_t>(floats, 1), 0.0f);
}

std::vector<std::size_t> kv_cache::sequences_of(std::span<const std::size_t> named) const {
    std::vector<std::size_t> sequences(named.begin(), named.end());
    if (named.empty())
        for (std::size_t s = 0; s < batch(); ++s) sequences.push_back(s);
    std::vector<bool> seen(batch());
    for (std::size_t s : sequences) {
        if (s >= batch())
            throw invalid_option("run_options::sequences", std::to_string(s), "a sequence of the cache's, 0 to " + std::to_string(batch() - 1));
        if (seen[s]) throw invalid_option("run_options::sequences", std::to_string(s) + " twice", "each sequence once");
        seen[s] = true;
    }
    return sequences;
}

std::vector<std::size_t> kv_cache::positions_of(std::span<const std::size_t> sequences) const {
    std::vector<std::size_t> positions;
    for (std::size_t s : sequences) positions.push_back(positions_[s]);
    return positions;
}

void kv_cache::check_room(const plan::extent_values& at) const {
    for_each_sequence(at, [&](std::size_t s, std::size_t tokens) {
        if (positions_[s] + tokens > capacity()) throw cache_full(capacity(), s, positions_[s], tokens);
    });
}

void kv_cache::advance(const plan::extent_values& at) {
    for_each_sequence(at, [&](std::size_t s, std::size_t tokens) { positions_[s] += tokens; });
    last_run_packed_ = at.ragged != nullptr;
}

void kv_cache::prepare(const plan::program& p, const plan::extent_values& at) {
    if (position() == 0) {  // every sequence's first run
        prompt_ = at;
        prompt_.ragged = nullptr;  // the run's, gone with it
        for (std::size_t k = 0; k < p.steps.size(); ++k)
            if (once_[k]) kept_[k].resize(p.slots[p.steps[k].writes].elements(at) * layout_.repeats(k));
        return;
    }
    for (std::size_t v = 0; v < max_lengths; ++v)
        if (static_cast<int>(v) != length_variable(stream()) && at.lengths[v] != prompt_.lengths[v])
            throw invalid_option("a length of a decoding step's inputs", std::to_string(at.lengths[v]),
                                 std::to_string(prompt_.lengths[v]) + ", the prompt's (the memory its keys and values were made of)");
}

void kv_cache::find_steps_run_once(const plan::program& p) {
    std::vector<bool> streamed(p.slots.size());
    const auto along_stream = [&](const plan::slot& v) {
        return std::find(v.extents.begin(), v.extents.end(), stream()) != v.extents.end();
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

void kv_cache::values::resize(std::size_t n) {
    if (n > floats || !data) data = hwy::AllocateAligned<float>(std::max<std::size_t>(n, 1));
    if (!data) throw out_of_memory("the values a decoding keeps", n * sizeof(float));
    floats = n;
}

}  // namespace ctformer::runtime
