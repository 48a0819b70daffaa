// Row tiles of a compile-time height, as register-blocked kernels take them: the last tile of a range
// may be shorter, and its height is a compile-time constant too.
#pragma once

#include <cstddef>

namespace ctformer::kernels {

namespace detail {
// f.template operator()<Rows>(row) with Rows = count (< MaxRows + 1).
template <std::size_t MaxRows, class F>
void last_tile(std::size_t count, std::size_t row, F& f) {
    if constexpr (MaxRows > 0) {
        if (count == MaxRows) return f.template operator()<MaxRows>(row);
        last_tile<MaxRows - 1>(count, row, f);
    }
}
}  // namespace detail

// f.template operator()<Rows>(row) for rows [begin, end) in tiles of Height rows from begin: Rows is
// Height, or, for the last tile, what is left.
template <std::size_t Height, class F>
void for_tiles(std::size_t begin, std::size_t end, F&& f) {
    std::size_t row = begin;
    for (; row + Height <= end; row += Height) f.template operator()<Height>(row);
    if (row < end) detail::last_tile<Height - 1>(end - row, row, f);
}

}  // namespace ctformer::kernels
