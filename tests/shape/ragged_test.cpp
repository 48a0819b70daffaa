// A batch of sequences of different lengths, packed (shape/ragged.hpp): sequence s its rows
// offsets[s] .. offsets[s + 1] - 1 of the T tokens, each token's position in its own sequence.
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include <ctformer/shape/ragged.hpp>

namespace {

using sizes = std::vector<std::size_t>;

TEST(Ragged, SequencesFollowEachOtherWithTheirOwnPositions) {
    const sizes lengths{3, 1, 0, 5};  // an empty sequence among them
    const ctformer::ragged_batch packed(lengths);
    EXPECT_EQ(packed.offsets, (sizes{0, 3, 4, 4, 9}));
    EXPECT_EQ(packed.positions, (sizes{0, 1, 2, 0, 0, 1, 2, 3, 4}));
    EXPECT_EQ(packed.sequences(), 4u);
    EXPECT_EQ(packed.tokens(), 9u);
    for (std::size_t s = 0; s < lengths.size(); ++s) EXPECT_EQ(packed.length(s), lengths[s]) << "sequence " << s;
    EXPECT_EQ(packed.longest(), 5u);
    // each token's row: its sequence's offset plus its position
    for (std::size_t s = 0; s < lengths.size(); ++s)
        for (std::size_t p = 0; p < lengths[s]; ++p) EXPECT_EQ(packed.positions[packed.offsets[s] + p], p);
}

TEST(Ragged, DecodedSequencesStartPastTheirCachedPositionsInTheirOwnSlots) {
    const sizes lengths{1, 3, 1}, starts{9, 0, 4}, slots{3, 0, 2};
    const ctformer::ragged_batch run(lengths, starts, slots);
    EXPECT_EQ(run.offsets, (sizes{0, 1, 4, 5}));
    EXPECT_EQ(run.positions, (sizes{9, 0, 1, 2, 4}));
    EXPECT_EQ(run.starts, starts);
    EXPECT_EQ(run.slots, slots);
    const ctformer::ragged_batch fresh(lengths);  // by default: from position 0, slots in order
    EXPECT_EQ(fresh.starts, (sizes{0, 0, 0}));
    EXPECT_EQ(fresh.slots, (sizes{0, 1, 2}));
}

TEST(Ragged, OneSequenceAndNone) {
    const sizes one{7};
    const ctformer::ragged_batch single(one);
    EXPECT_EQ(single.sequences(), 1u);
    EXPECT_EQ(single.tokens(), 7u);
    EXPECT_EQ(single.longest(), 7u);
    EXPECT_EQ(single.offsets, (sizes{0, 7}));
    const ctformer::ragged_batch empty(sizes{});
    EXPECT_EQ(empty.sequences(), 0u);
    EXPECT_EQ(empty.tokens(), 0u);
    EXPECT_EQ(empty.longest(), 0u);
    EXPECT_TRUE(empty.positions.empty());
}

}  // namespace
