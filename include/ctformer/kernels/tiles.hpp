// Row tiles of a compile-time height, as register-blocked kernels take them: the last tile of a range
// may be shorter, and its height is a compile-time constant too.
#pragma once

#include <cstddef>

namespace ctformer::kernels {

// n / d rounded up, and n rounded up to a multiple of `to`: tiles, blocks and padded widths.
constexpr std::size_t divide_up(std::size_t n, std::size_t d) { return (n + d - 1) / d; }
constexpr std::size_t round_up(std::size_t n, std::size_t to) { return divide_up(n, to) * to; }

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

// Rows [0, n) in as few tiles of at most `height` rows as hold them, of heights that differ by one
// at most: 20 rows in tiles of 6 are 5, 5, 5, 5, where tiles of 6 from the first row leave a tile of
// 2, whose few accumulators cannot hide the FMA's latency.
struct even_tiles {
    std::size_t count, base, taller;  // `taller` tiles of base + 1 rows first, then tiles of base
    even_tiles(std::size_t n, std::size_t height)
        : count(divide_up(n, height)), base(count ? n / count : 0), taller(count ? n % count : 0) {}
    std::size_t rows(std::size_t tile) const { return base + (tile < taller ? 1 : 0); }
};

// f.template operator()<Rows>(row) for rows [begin, end) in even_tiles of at most Height rows.
template <std::size_t Height, class F>
void for_even_tiles(std::size_t begin, std::size_t end, F&& f) {
    const even_tiles tiles(end - begin, Height);
    for (std::size_t t = 0, row = begin; t < tiles.count; row += tiles.rows(t++)) detail::last_tile<Height>(tiles.rows(t), row, f);
}

}  // namespace ctformer::kernels
