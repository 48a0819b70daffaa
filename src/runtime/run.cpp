// The executor (ctformer/runtime/run.hpp), compiled once for every model.
#include <ctformer/runtime/run.hpp>

#include <algorithm>
#include <chrono>

namespace ctformer::runtime {

program_run::program_run(const plan::program& p, const bound_weights& weights, const tensor_map& inputs, const id_map& ids,
                         host_tensor<float>& output, const run_options& options, workspace& ws)
    : p_(p), weights_(weights), options_(options), threads_(thread_count(options.threads)) {
    if (!weights.bound() && has_weights()) throw error("ctformer: run() before bind(): the model's weights are not given yet");
    if (!options.cache && !options.sequences.empty())
        throw invalid_option("run_options::sequences", "given", "none outside a decoding run (model::start_decoding)");
    if (options.cache) {
        whole_ = decoding_extents(*options.cache, inputs, ids);
    } else if (!options.lengths.empty()) {
        mixed_ = std::make_unique<mixed_batch>(p, options.lengths, inputs, ids);
        whole_ = mixed_->extents();
    } else {
        whole_ = checked_inputs(inputs, ids);
    }
    if (mixed_ && !options.keep.empty())
        throw invalid_option("run_options::keep", options.keep[0].first, "none in a packed run (lengths, or decoding sequences apart)");
    const dims_t expected = mixed_ ? mixed_->output_dims() : dims_of(p.slots[p.result].extents, whole_);
    if (output.dims.empty()) output = host_tensor<float>(expected);
    if (output.dims != expected) throw shape_mismatch("output", to_string(expected), to_string(output.dims));
    chunk_ = plan::chunk_sequences(p, whole_, options.max_activation_bytes);
    plan::extent_values sized = whole_.with_batch(chunk_);
    sized.position = 0;  // the layout is the same at every position
    arena_ = ws.arena(p, sized);
    offsets_ = &ws.layout().offset;
    scratch_ = ws.scratch(p.scratch_bytes(), threads_);
    outside_.assign(p.slots.size(), nullptr);
    for (plan::slot_id s = 0; s < p.slots.size(); ++s) {
        const plan::slot& v = p.slots[s];
        if (v.kind == plan::slot_kind::input && v.element == dtype::i32 && !mixed_)  // read back as int32 by its step
            outside_[s] = reinterpret_cast<float*>(const_cast<std::int32_t*>(ids.find(v.name)->second.data.data()));
        else if (v.kind == plan::slot_kind::input)
            outside_[s] = const_cast<float*>(mixed_ ? mixed_->input(s) : inputs.find(v.name)->second.data.data());
        if (v.kind == plan::slot_kind::constant) outside_[s] = const_cast<float*>(v.constant);
    }
    outside_[p.result] = mixed_ ? mixed_->result(p.result, output) : output.data.data();
    output_ = &output;
    resolve_keeps();
}

bool program_run::next_chunk() {
    if (first_ >= whole_.batch) return false;
    at_ = whole_.with_batch(std::min(chunk_, whole_.batch - first_));
    where_.assign(p_.slots.size(), nullptr);
    for (plan::slot_id s = 0; s < p_.slots.size(); ++s) {
        const plan::slot& v = p_.slots[s];
        if (v.kind == plan::slot_kind::value) where_[s] = arena_ + (*offsets_)[s];
        else if (outside_[s]) where_[s] = outside_[s] + (batched(v) ? first_ * v.elements(whole_.with_batch(1)) : 0);
    }
    chunk_first_ = first_;
    first_ += at_.batch;
    ++chunks_run_;
    return true;
}

void program_run::step(std::size_t k, int iteration) {
    const plan::step& s = p_.steps[k];
    if ((s.repeat < 0) != (iteration < 0) || (s.repeat >= 0 && iteration >= p_.repeats[s.repeat].count))
        throw error("ctformer: internal error, please report: step " + std::to_string(k) + " run in iteration " +
                    std::to_string(iteration));
    if (s.repeat >= 0 && k == p_.repeats[s.repeat].first) enter(p_.repeats[s.repeat], iteration);
    if (options_.cache && options_.cache->runs_once(k)) {  // a value of the memory, kept from the prompt's run
        where_[s.writes] = options_.cache->kept(k, iteration, chunk_first_);
        if (at_.position > 0) return void(++steps_run_);
    }
    reads_.clear();
    for (const plan::operand_slot& o : s.reads) reads_.push_back(memory(o.slot, iteration));
    const plan::launch_args args{s.reads, reads_.data(), where_[s.writes], weights_.packed(k, iteration), at_, p_.threads_of(k, at_, threads_),
                                 scratch_.data(), options_.cache ? options_.cache->block(k, iteration, chunk_first_)
                                                                 : plan::cache_block{}};
    const auto start = std::chrono::steady_clock::now();
    try {
        s.launch(s, args);
    } catch (const token_id_out_of_range& e) {  // told where in the user's input: the packed batch's
        if (mixed_) throw e.at(mixed_->index_as_given(e.tensor(), e.index()));  // or the chunk's, from chunk_first_
        throw batched_input(e.tensor()) ? e.in_batch_from(chunk_first_) : e;
    }
    if (options_.profile)
        options_.profile->push_back({k, iteration, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()});
    if (const auto kept = keeps_.find({k, iteration}); kept != keeps_.end())
        for (host_tensor<float>* into : kept->second) keep(p_.slots[s.writes], where_[s.writes], *into);
    ++steps_run_;
}

void program_run::finish() const {
    std::size_t expected = 0;
    p_.for_each_run([&](std::size_t, int) { ++expected; });
    if (steps_run_ != expected * chunks_run_ || first_ < whole_.batch)
        throw error("ctformer: internal error, please report: " + std::to_string(steps_run_) + " steps run of " +
                    std::to_string(expected * chunks_run_));
    if (mixed_) mixed_->finish(p_.result, *output_);
    if (options_.cache) options_.cache->advance(whole_);
}

// A decoding run's extents. Every sequence of the cache at one position runs as any batch, at that
// position; some of them (run_options::sequences), of different lengths or at different positions,
// run packed, each from its own position in its own slot.
plan::extent_values program_run::decoding_extents(kv_cache& cache, const tensor_map& inputs, const id_map& ids) {
    const bool packed = !options_.lengths.empty() || !options_.sequences.empty() || !cache.aligned();
    plan::extent_values at;
    if (!packed) {
        at = checked_inputs(inputs, ids);
        if (at.batch != cache.batch())
            throw invalid_option("the batch of a decoding run", std::to_string(at.batch),
                                 std::to_string(cache.batch()) + ", the sequences its cache holds (or name them: run_options::sequences)");
        at.position = cache.position();
    } else {
        if (const std::string why = mixed_lengths_refusal(p_); !why.empty())
            throw invalid_option("a decoding run of sequences at their own positions", "asked",
                                 "a model that can run a packed batch, but " + why);
        const std::vector<std::size_t> sequences = cache.sequences_of(options_.sequences);
        std::vector<std::size_t> lengths = options_.lengths;
        if (lengths.empty()) {
            const plan::extent_values given = checked_inputs(inputs, ids);
            if (given.batch != sequences.size())
                throw invalid_option("the batch of a decoding run", std::to_string(given.batch),
                                     std::to_string(sequences.size()) + ", the sequences it runs");
            lengths.assign(sequences.size(), cache.tokens(given));
        }
        if (lengths.size() != sequences.size())
            throw invalid_option("run_options::lengths in a decoding run", std::to_string(lengths.size()) + " lengths",
                                 "one per sequence it runs: " + std::to_string(sequences.size()));
        mixed_ = std::make_unique<mixed_batch>(p_, lengths, inputs, ids, cache.positions_of(sequences), sequences);
        at = mixed_->extents();
    }
    cache.check_room(at);
    cache.prepare(p_, at);
    return at;
}

// Whether a slot is [B, ...]: a chunk holds its rows of the chunk's sequences.
bool program_run::batched(const plan::slot& v) { return !v.extents.empty() && v.extents[0] == batch; }

bool program_run::batched_input(const std::string& name) const {
    return std::any_of(p_.slots.begin(), p_.slots.end(),
                       [&](const plan::slot& v) { return v.kind == plan::slot_kind::input && v.name == name && batched(v); });
}

// The value of slot v for this chunk, written into its place in the whole batch's tensor.
void program_run::keep(const plan::slot& v, const float* data, host_tensor<float>& into) const {
    const dims_t whole = dims_of(v.extents, whole_);
    if (into.dims != whole) into = host_tensor<float>(whole);
    const std::size_t offset = batched(v) ? chunk_first_ * v.elements(whole_.with_batch(1)) : 0;
    std::copy_n(data, v.elements(at_), into.data.begin() + offset);
}

bool program_run::has_weights() const {
    return std::any_of(p_.slots.begin(), p_.slots.end(), [](const plan::slot& s) { return s.kind == plan::slot_kind::weight; }) ||
           std::any_of(p_.steps.begin(), p_.steps.end(), [](const plan::step& s) { return !s.packed.empty(); });
}

// Every input present and of its declared shape, token ids among the ids; the batch and lengths
// they agree on.
plan::extent_values program_run::checked_inputs(const tensor_map& inputs, const id_map& ids) const {
    extents_seen seen;
    for (const plan::slot& s : p_.slots) {
        if (s.kind != plan::slot_kind::input) continue;
        if (s.element != dtype::i32) {
            checked_tensor(inputs, s.name, s.extents, seen);
            continue;
        }
        if (!ids.contains(s.name) && inputs.contains(s.name))
            throw missing_tensor(s.name, s.shape_text(), ", as token ids: it was given as floats, ids are int32 (an id_map)");
        checked_tensor(ids, s.name, s.extents, seen);
    }
    return seen.values();
}

const float* program_run::memory(plan::slot_id s, int iteration) const {
    return p_.slots[s].kind == plan::slot_kind::weight ? weights_.plain(s, iteration) : where_[s];
}

// Iteration i reads the argument (i = 0) or the previous iteration's output, and writes the other
// of two buffers; the last iteration writes the repeat's value.
void program_run::enter(const plan::repeat_block& r, int i) {
    const auto written_by = [&](int iteration) { return where_[(r.count - 1 - iteration) % 2 == 0 ? r.value : r.spare]; };
    where_[r.input] = i == 0 ? where_[r.argument] : written_by(i - 1);
    where_[r.output] = written_by(i);
}

// options.keep's names, as the steps that write them: "attn_weights", or "layers.3.norm1" for
// a repeat body's value in iteration 3.
void program_run::resolve_keeps() {
    for (const auto& [name, into] : options_.keep) {
        const auto [slot, iteration] = find_value(name);
        if (slot == plan::no_slot) throw missing_tensor(name, "(a bound intermediate of the graph)");
        for (std::size_t k = p_.steps.size(); k-- > 0;)
            if (p_.steps[k].writes == slot) {
                keeps_[{k, iteration}].push_back(into);
                break;
            }
    }
}

std::pair<plan::slot_id, int> program_run::find_value(const std::string& name) const {
    for (plan::slot_id s = 0; s < p_.slots.size(); ++s) {
        const plan::slot& v = p_.slots[s];
        if (v.kind != plan::slot_kind::value && v.kind != plan::slot_kind::carried && v.kind != plan::slot_kind::result) continue;
        if (v.repeat < 0 && v.name == name) return {s, -1};
        if (v.repeat < 0) continue;
        const plan::repeat_block& r = p_.repeats[v.repeat];
        for (int i = 0; i < r.count; ++i)
            if (name == r.prefix_of(i) + v.name) return {s, i};
    }
    return {plan::no_slot, -1};
}

}  // namespace ctformer::runtime
