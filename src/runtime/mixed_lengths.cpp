// Mixed-length batches (ctformer/runtime/mixed_lengths.hpp), compiled once for every model.
#include <ctformer/runtime/mixed_lengths.hpp>

#include <algorithm>

namespace ctformer::runtime {

bool sequence_rows(const plan::slot& v) {
    if (v.extents.size() < 2 || v.extents[0] != batch || !is_length(v.extents[1]) || length_variable(v.extents[1]))
        return false;
    return std::none_of(v.extents.begin() + 2, v.extents.end(), [](int e) { return e < 0; });
}

bool sequence_vectors(const plan::slot& v) {
    return !v.extents.empty() && v.extents[0] == batch && std::none_of(v.extents.begin() + 1, v.extents.end(), [](int e) { return e < 0; });
}

std::string mixed_lengths_refusal(const plan::program& p) {
    if (!sequence_rows(p.slots[p.result]) && !sequence_vectors(p.slots[p.result]))
        return "its result " + p.slots[p.result].shape_text() + " is neither [B, L, ...] nor [B, ...]";
    for (std::size_t k = 0; k < p.steps.size(); ++k)
        if (!p.steps[k].mixed_lengths) return "step " + std::to_string(k) + " (" + p.steps[k].kernel + ") needs one length";
    for (plan::slot_id s = 0; s < p.slots.size(); ++s) {
        const plan::slot& v = p.slots[s];
        const bool run_time = std::any_of(v.extents.begin(), v.extents.end(), [](int e) { return e < 0; });
        if (v.kind == plan::slot_kind::input && run_time && !sequence_rows(v))
            return p.display_name(s) + " " + v.shape_text() + " is not [B, L, ...]";
    }
    return "";
}

std::optional<std::vector<std::size_t>> lengths_of_mask(const host_tensor<float>& mask) {
    if (mask.dims.size() != 2 || mask.dims[1] == 0) return std::nullopt;
    std::vector<std::size_t> lengths;
    for (std::size_t b = 0; b < mask.dims[0]; ++b) {
        const auto row = mask.data.begin() + static_cast<std::ptrdiff_t>(b * mask.dims[1]);
        const auto end = std::find(row, row + static_cast<std::ptrdiff_t>(mask.dims[1]), 0.0f);
        const std::size_t length = static_cast<std::size_t>(end - row);
        if (length == 0 || std::any_of(end, row + static_cast<std::ptrdiff_t>(mask.dims[1]), [](float v) { return v != 0.0f; }))
            return std::nullopt;
        lengths.push_back(length);
    }
    return lengths;
}

namespace {

// The longest length p's inputs may have: the first of theirs that is [B, L, ...].
std::size_t longest(const plan::program& p) {
    for (const plan::slot& v : p.slots)
        if ((v.kind == plan::slot_kind::input || v.kind == plan::slot_kind::result) && sequence_rows(v)) return maximum(v.extents[1]);
    return 0;
}

// The lengths, each from 1 to the longest p's result may be, and p one that runs a packed batch:
// checked before the packed batch is laid out (a length of 2⁶³ must not reach an allocation).
std::span<const std::size_t> checked(const plan::program& p, std::span<const std::size_t> lengths) {
    if (const std::string why = mixed_lengths_refusal(p); !why.empty())
        throw invalid_option("run_options::lengths", std::to_string(lengths.size()) + " lengths",
                             "a model that can run a packed batch, but " + why);
    const std::size_t longest_allowed = longest(p);
    for (std::size_t b = 0; b < lengths.size(); ++b)
        if (lengths[b] == 0 || lengths[b] > longest_allowed)
            throw invalid_option("run_options::lengths[" + std::to_string(b) + "]", std::to_string(lengths[b]),
                                 "1 to " + std::to_string(longest_allowed));
    return lengths;
}

std::size_t row_floats(const std::vector<int>& extents) {
    std::size_t n = 1;
    for (std::size_t i = 2; i < extents.size(); ++i) n *= static_cast<std::size_t>(extents[i]);
    return n;
}

}  // namespace

// An input given packed [T, ...] (read in place) or padded [B, Lmax, ...] (packed here, into
// `into`): where its packed values are.
template <class T>
const T* mixed_batch::take(const plan::slot& v, const host_tensor<T>& t, std::size_t longest_allowed, std::vector<T>& into) {
    const dims_t rest(v.extents.begin() + 2, v.extents.end());
    dims_t packed{ragged_.tokens()};
    packed.insert(packed.end(), rest.begin(), rest.end());
    if (t.dims == packed) return t.data.data();
    const bool padded = t.dims.size() == rest.size() + 2 && t.dims[0] == ragged_.sequences() &&
                        t.dims[1] >= ragged_.longest() && t.dims[1] <= longest_allowed &&
                        std::equal(rest.begin(), rest.end(), t.dims.begin() + 2);
    if (!padded)
        throw shape_mismatch(v.name, to_string(packed) + " (packed) or [" + std::to_string(ragged_.sequences()) + ", " +
                                         std::to_string(ragged_.longest()) + ".." + std::to_string(longest_allowed) +
                                         ", ...] (padded) for the given lengths", to_string(t.dims));
    if (!padded_length_) padded_length_ = t.dims[1];
    padded_inputs_.insert(v.name);
    const std::size_t row = row_floats(v.extents);
    into.resize(ragged_.tokens() * row);
    for (std::size_t b = 0; b < ragged_.sequences(); ++b)
        std::copy_n(t.data.begin() + b * t.dims[1] * row, ragged_.length(b) * row, into.begin() + ragged_.offsets[b] * row);
    return into.data();
}

mixed_batch::mixed_batch(const plan::program& p, std::span<const std::size_t> lengths, const tensor_map& inputs,
                         const id_map& ids, std::span<const std::size_t> starts, std::span<const std::size_t> slots)
    : ragged_(checked(p, lengths), starts, slots), packed_(p.slots.size()), packed_ids_(p.slots.size()), given_(p.slots.size(), nullptr),
      pooled_(!sequence_rows(p.slots[p.result])) {
    const std::size_t longest_allowed = longest(p);
    extents_seen unbatched;
    for (plan::slot_id s = 0; s < p.slots.size(); ++s) {
        const plan::slot& v = p.slots[s];
        if (v.kind != plan::slot_kind::input) continue;
        const bool id = v.element == dtype::i32;
        if (!sequence_rows(v) && id) {
            given_[s] = reinterpret_cast<const float*>(checked_tensor(ids, v.name, v.extents, unbatched).data.data());
        } else if (!sequence_rows(v)) {
            given_[s] = checked_tensor(inputs, v.name, v.extents, unbatched).data.data();
        } else if (id) {
            const auto found = ids.find(v.name);
            if (found == ids.end()) throw missing_tensor(v.name, v.shape_text(), " (token ids, int32)");
            given_[s] = reinterpret_cast<const float*>(take(v, found->second, longest_allowed, packed_ids_[s]));
        } else {
            const auto found = inputs.find(v.name);
            if (found == inputs.end()) throw missing_tensor(v.name, v.shape_text());
            given_[s] = take(v, found->second, longest_allowed, packed_[s]);
        }
    }
    const std::vector<int>& out = p.slots[p.result].extents;
    const std::size_t rest = pooled_ ? 1 : 2;
    output_dims_ = pooled_ ? dims_t{ragged_.sequences()} : padded_length_ ? dims_t{ragged_.sequences(), *padded_length_} : dims_t{ragged_.tokens()};
    output_dims_.insert(output_dims_.end(), out.begin() + rest, out.end());
    if (padded_length_ && !pooled_) packed_[p.result].resize(ragged_.tokens() * row_floats(out));
}

dims_t mixed_batch::index_as_given(const std::string& name, const dims_t& packed) const {
    if (packed.size() < 2) return packed;
    const std::size_t t = packed[1];
    dims_t index{t};
    if (padded_inputs_.contains(name)) {
        const std::size_t b = static_cast<std::size_t>(
            std::upper_bound(ragged_.offsets.begin(), ragged_.offsets.end(), t) - ragged_.offsets.begin() - 1);
        index = {b, t - ragged_.offsets[b]};
    }
    index.insert(index.end(), packed.begin() + 2, packed.end());
    return index;
}

void mixed_batch::finish(plan::slot_id s, host_tensor<float>& output) const {
    if (!padded_length_ || pooled_) return;
    const std::size_t row = packed_[s].size() / ragged_.tokens();
    std::fill(output.data.begin(), output.data.end(), 0.0f);
    for (std::size_t b = 0; b < ragged_.sequences(); ++b)
        std::copy_n(packed_[s].begin() + ragged_.offsets[b] * row, ragged_.length(b) * row,
                    output.data.begin() + b * *padded_length_ * row);
}

}  // namespace ctformer::runtime
