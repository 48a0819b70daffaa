// Where each element of a broadcast operand lives: the element strides, per dimension of the
// result, of an operand repeated to the result's shape (numpy's rule: extents aligned at the right,
// an extent of 1 or a missing one repeating with stride 0). With batch_first, the operand's first
// extent is the result's first (the batch) and the rest align at the right: a per-sequence mask
// [B, Lq, Lk] over attention scores [B, heads, Lq, Lk].
#pragma once

#include <cstddef>
#include <vector>

namespace ctformer {

inline std::vector<std::size_t> broadcast_strides(const std::vector<std::size_t>& in, const std::vector<std::size_t>& out,
                                                  bool batch_first) {
    std::vector<std::size_t> strides(out.size(), 0);
    std::size_t stride = 1;
    for (std::size_t i = 0; i < in.size(); ++i) {  // from the last extent back
        const std::size_t from = in.size() - 1 - i;
        const std::size_t to = batch_first && from == 0 ? 0 : out.size() - 1 - i;
        if (in[from] != 1) strides[to] = stride;
        stride *= in[from];
    }
    return strides;
}

// The flat index in the operand of the result's element at flat index `at`.
inline std::size_t broadcast_index(std::size_t at, const std::vector<std::size_t>& out,
                                   const std::vector<std::size_t>& strides) {
    std::size_t index = 0;
    for (std::size_t d = out.size(); d-- > 0;) {
        index += at % out[d] * strides[d];
        at /= out[d];
    }
    return index;
}

}  // namespace ctformer
