#include "support/tensors.hpp"

namespace {

// The seeds' table for seq_len 5, d_model 4, to 4 decimals.
const std::vector<double> seeds_table{0,       1,       0,    1,       //
                                      0.8415,  0.5403,  0.01, 1,       //
                                      0.9093,  -0.4161, 0.02, 0.9998,  //
                                      0.1411,  -0.99,   0.03, 0.9996,  //
                                      -0.7568, -0.6536, 0.04, 0.9992};

TEST(PositionalEncoding, SeedsTableToFourDecimals) {
    const auto table = ctf::reference::evaluate(ctf::nn::positional_encoding<5, 4>(), {});
    EXPECT_EQ(table.dims, (ctf::dims_t{5, 4}));
    test::expect_close(table, seeds_table, {.atol = 0.5e-4});
}

TEST(PositionalEncoding, IsAddedToEverySequenceOfTheBatch) {
    auto x = ctf::input<"x", ctf::batch, 5, 4>();
    const ctf::tensor_map in{{"x", test::filled({2, 5, 4}, 1.0f)}};
    const auto y = ctf::reference::evaluate(ctf::nn::add_positional_encoding(x), in);
    EXPECT_EQ(y.dims, (ctf::dims_t{2, 5, 4}));
    std::vector<double> want;
    for (std::size_t i = 0; i < y.size(); ++i) want.push_back(1.0 + seeds_table[i % 20]);
    test::expect_close(y, want, {.atol = 0.5e-4});
}

}  // namespace
