// Where each element of a broadcast operand lives (shape/broadcast.hpp): for every element of the
// result, broadcast_index through broadcast_strides against numpy's rule worked out element by
// element here (extents aligned at the right, an extent of 1 or a missing one repeating), and with
// batch_first the operand's first extent the result's first: a mask [B, Lq, Lk] over [B, heads, Lq, Lk].
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include <ctformer/shape/broadcast.hpp>

namespace {

using dims = std::vector<std::size_t>;

std::string text(const dims& d) {
    std::string t;
    for (std::size_t e : d) t += std::to_string(e) + " ";
    return t;
}

// The operand's flat index of the result's element `at`: the result's multi-index, each operand
// extent matched to its result extent, an extent of 1 contributing nothing.
std::size_t numpy_index(std::size_t at, const dims& in, const dims& out, bool batch_first) {
    dims index(out.size());
    for (std::size_t d = out.size(); d-- > 0;) {
        index[d] = at % out[d];
        at /= out[d];
    }
    std::size_t flat = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        const std::size_t to = batch_first && i == 0 ? 0 : out.size() - in.size() + i;
        flat = flat * in[i] + (in[i] == 1 ? 0 : index[to]);
    }
    return flat;
}

void check(const dims& in, const dims& out, bool batch_first) {
    const std::vector<std::size_t> strides = ctformer::broadcast_strides(in, out, batch_first);
    ASSERT_EQ(strides.size(), out.size());
    std::size_t elements = 1;
    for (std::size_t e : out) elements *= e;
    for (std::size_t at = 0; at < elements; ++at)
        ASSERT_EQ(ctformer::broadcast_index(at, out, strides), numpy_index(at, in, out, batch_first))
            << "[" << text(in) << "] over [" << text(out) << "] batch_first " << batch_first << " at " << at;
}

TEST(Broadcast, EveryElementAsNumpyRepeatsIt) {
    check({2, 3, 4, 5}, {2, 3, 4, 5}, false);  // the same shape: the identity
    check({5}, {2, 3, 5}, false);              // a bias row
    check({1}, {4, 5}, false);                 // a scalar
    check({3, 1, 5}, {2, 3, 4, 5}, false);     // a missing extent and an extent of 1
    check({4, 1}, {3, 4, 5}, false);
    check({1, 1, 4, 5}, {2, 3, 4, 5}, false);  // a [1, 1, Lq, Lk] mask
    // the strides themselves: 0 where the operand repeats
    EXPECT_EQ(ctformer::broadcast_strides({3, 1, 5}, {2, 3, 4, 5}, false), (dims{0, 5, 0, 1}));
}

TEST(Broadcast, BatchFirstMatchesTheOperandsFirstExtentWithTheResultsFirst) {
    check({2, 4, 5}, {2, 3, 4, 5}, true);  // a per-sequence mask [B, Lq, Lk] over the heads
    check({2, 1, 5}, {2, 3, 4, 5}, true);  // key padding [B, 1, Lk]
    check({2, 5}, {2, 3, 4, 5}, true);     // [B, Lk]
    check({1, 4, 5}, {2, 3, 4, 5}, true);  // a batch of 1 repeats over the batch
    // the strides themselves: B's stride where the result's batch is, the heads repeated
    EXPECT_EQ(ctformer::broadcast_strides({2, 4, 5}, {2, 3, 4, 5}, true), (dims{20, 0, 5, 1}));
}

}  // namespace
