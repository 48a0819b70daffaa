// A batch of sequences of different lengths, packed: the T tokens of all sequences as the rows of one
// [T, ...] value, sequence s its rows offsets[s] .. offsets[s + 1] - 1 (FlashAttention's varlen and
// PyTorch's nested tensors hold batches so). A run of one has extents B = 1, L = T: every step over
// rows (GEMMs, LayerNorm, activations) runs over the real tokens only, and attention per sequence.
// In decoding, each sequence is a slot of the KV cache and starts past the positions it holds there:
// the sequences of one run may be at different positions, and any of the cache's slots.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

namespace ctformer {

struct ragged_batch {
    std::vector<std::size_t> offsets{0};  // sequences + 1 entries
    std::vector<std::size_t> positions;   // each token's position in its sequence (the PE table's row)
    std::vector<std::size_t> starts;      // each sequence's first position: 0, or the positions its cache holds
    std::vector<std::size_t> slots;       // each sequence's slot in a decoding's KV cache: 0, 1, ... by default

    // Starts and slots, when given, one per length.
    explicit ragged_batch(std::span<const std::size_t> lengths, std::span<const std::size_t> first = {},
                          std::span<const std::size_t> slot = {})
        : starts(first.begin(), first.end()), slots(slot.begin(), slot.end()) {
        starts.resize(lengths.size());
        if (slots.empty())
            for (std::size_t s = 0; s < lengths.size(); ++s) slots.push_back(s);
        for (std::size_t s = 0; s < lengths.size(); ++s) {
            offsets.push_back(offsets.back() + lengths[s]);
            for (std::size_t p = 0; p < lengths[s]; ++p) positions.push_back(starts[s] + p);
        }
    }
    std::size_t sequences() const { return offsets.size() - 1; }
    std::size_t tokens() const { return offsets.back(); }
    std::size_t length(std::size_t s) const { return offsets[s + 1] - offsets[s]; }
    std::size_t longest() const {
        std::size_t most = 0;
        for (std::size_t s = 0; s < sequences(); ++s) most = std::max(most, length(s));
        return most;
    }
};

}  // namespace ctformer
