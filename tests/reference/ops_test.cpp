// The reference evaluator, one operation at a time, against values worked out by hand.
#include <cmath>
#include <limits>
#include <vector>

#include "support/tensors.hpp"

namespace {

constexpr double tol = 1e-6;
constexpr double inf = std::numeric_limits<double>::infinity();

using test::tensor;

// Same dims, and every element within tol (infinities must match exactly).
void expect_tensor(const ctf::host_tensor<double>& y, const ctf::dims_t& dims,
                   const std::vector<double>& expected) {
    ASSERT_EQ(y.dims, dims);
    test::expect_close(y, expected, {.atol = tol});
}

}  // namespace

TEST(Matmul, TwoByThreeTimesThreeByTwo) {
    auto a = ctf::input<"a", 2, 3>();
    auto b = ctf::weight<"b", 3, 2>();
    ctf::tensor_map in{{"a", tensor({2, 3}, {1, 2, 3, 4, 5, 6})}, {"b", tensor({3, 2}, {7, 8, 9, 10, 11, 12})}};
    // [1·7+2·9+3·11, 1·8+2·10+3·12] = [58, 64];  [4·7+5·9+6·11, 4·8+5·10+6·12] = [139, 154]
    expect_tensor(ctf::reference::evaluate(ctf::matmul(a, b), in), {2, 2}, {58, 64, 139, 154});
}

TEST(Matmul, BatchedLhsBroadcastsTheWeight) {
    auto x = ctf::input<"x", ctf::batch, 2, 2>();
    auto w = ctf::weight<"w", 2, 2>();
    ctf::tensor_map in{{"x", tensor({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})}, {"w", tensor({2, 2}, {1, 2, 0, 1})}};
    // [p, q]·[[1,2],[0,1]] = [p, 2p+q]:  [1,2]->[1,4] [3,4]->[3,10] | [5,6]->[5,16] [7,8]->[7,22]
    expect_tensor(ctf::reference::evaluate(ctf::matmul(x, w), in), {2, 2, 2}, {1, 4, 3, 10, 5, 16, 7, 22});
}

TEST(Transpose, SwapsTheLastTwoAxes) {
    auto a = ctf::input<"a", 2, 3>();
    ctf::tensor_map in{{"a", tensor({2, 3}, {1, 2, 3, 4, 5, 6})}};
    // [[1,2,3],[4,5,6]]ᵀ = [[1,4],[2,5],[3,6]]
    expect_tensor(ctf::reference::evaluate(ctf::transpose(a), in), {3, 2}, {1, 4, 2, 5, 3, 6});
}

TEST(Add, BroadcastsABiasOverRows) {
    auto x = ctf::input<"x", 2, 3>();
    auto b = ctf::weight<"b", 3>();
    ctf::tensor_map in{{"x", tensor({2, 3}, {1, 2, 3, 4, 5, 6})}, {"b", tensor({3}, {10, 20, 30})}};
    // [1+10, 2+20, 3+30], [4+10, 5+20, 6+30]
    expect_tensor(ctf::reference::evaluate(x + b, in), {2, 3}, {11, 22, 33, 14, 25, 36});
}

TEST(Scale, MultipliesEveryElement) {
    auto x = ctf::input<"x", 3>();
    ctf::tensor_map in{{"x", tensor({3}, {1, -2, 3.5f})}};
    // 0.5·[1, -2, 3.5] = [0.5, -1, 1.75]
    expect_tensor(ctf::reference::evaluate(ctf::scale(x, 0.5), in), {3}, {0.5, -1, 1.75});
}

TEST(Relu, ZeroesNegatives) {
    auto x = ctf::input<"x", 4>();
    ctf::tensor_map in{{"x", tensor({4}, {-1.5f, 0, 2, -0.25f})}};
    // max(v, 0)
    expect_tensor(ctf::reference::evaluate(ctf::relu(x), in), {4}, {0, 0, 2, 0});
}

TEST(Gelu, UsesTheErfForm) {
    auto x = ctf::input<"x", 3>();
    ctf::tensor_map in{{"x", tensor({3}, {-1, 0, 1})}};
    // 0.5·v·(1 + erf(v/√2)), erf(1/√2) = 0.6826894921:  ±0.5·(1 ± 0.6826894921), 0
    expect_tensor(ctf::reference::evaluate(ctf::gelu(x), in), {3}, {-0.1586552539, 0, 0.8413447461});
}

TEST(Softmax, OfOneTwoThree) {
    auto x = ctf::input<"x", 1, 3>();
    ctf::tensor_map in{{"x", tensor({1, 3}, {1, 2, 3})}};
    // e^(v-3) / (e^-2 + e^-1 + 1) = [0.1353353, 0.3678794, 1] / 1.5032147
    expect_tensor(ctf::reference::evaluate(ctf::softmax(x), in), {1, 3},
                  {0.0900305732, 0.2447284711, 0.6652409558});
}

TEST(Softmax, FullyMaskedRowGivesZeros) {
    auto s = ctf::input<"s", 2, 3>();
    auto m = ctf::bool_input<"m", 2, 3>();
    ctf::tensor_map in{{"s", tensor({2, 3}, {1, 2, 3, 0, 0, 0})}, {"m", tensor({2, 3}, {0, 0, 0, 1, 0, 1})}};
    // row 0: every key masked -> zeros (not NaN); row 1: two equal scores attended -> 1/2 each
    expect_tensor(ctf::reference::evaluate(ctf::softmax(ctf::mask(s, ctf::attend(m))), in), {2, 3},
                  {0, 0, 0, 0.5, 0, 0.5});
}

TEST(Mask, AttendMaskSetsMaskedScoresToMinusInfinity) {
    auto s = ctf::input<"s", 2, 2>();
    auto m = ctf::bool_input<"m", 2, 2>();
    ctf::tensor_map in{{"s", tensor({2, 2}, {1, 2, 3, 4})}, {"m", tensor({2, 2}, {1, 0, 0.5f, 1})}};
    // non-zero (including 0.5) means attend: only element 1 is masked
    expect_tensor(ctf::reference::evaluate(ctf::mask(s, ctf::attend(m)), in), {2, 2}, {1, -inf, 3, 4});
}

TEST(Mask, CausalSquareThenSoftmax) {
    auto s = ctf::input<"s", 3, 3>();
    ctf::tensor_map in{{"s", tensor({3, 3}, std::vector<float>(9, 0))}};
    // query i sees keys j <= i; equal scores share the weight evenly
    expect_tensor(ctf::reference::evaluate(ctf::softmax(ctf::mask(s, ctf::causal)), in), {3, 3},
                  {1, 0, 0, 0.5, 0.5, 0, 1.0 / 3, 1.0 / 3, 1.0 / 3});
}

TEST(Mask, CausalKeepsVisibleScores) {
    auto s = ctf::input<"s", 2, 2>();
    ctf::tensor_map in{{"s", tensor({2, 2}, {1, 2, 3, 4})}};
    // only (0,1) lies above the diagonal
    expect_tensor(ctf::reference::evaluate(ctf::mask(s, ctf::causal), in), {2, 2}, {1, -inf, 3, 4});
}

TEST(Mask, SlidingWindowSeesTheLastKeys) {
    auto s = ctf::input<"s", 4, 4>();
    ctf::tensor_map in{{"s", tensor({4, 4}, std::vector<float>(16, 0))}};
    // a window of 2: query i sees keys i - 1 and i
    expect_tensor(ctf::reference::evaluate(ctf::softmax(ctf::mask(s, ctf::sliding_window<2>)), in), {4, 4},
                  {1, 0, 0, 0, 0.5, 0.5, 0, 0, 0, 0.5, 0.5, 0, 0, 0, 0.5, 0.5});
}

TEST(Mask, CausalBottomRightWithMoreKeysThanQueries) {
    auto s = ctf::input<"s", 2, 3>();
    ctf::tensor_map in{{"s", tensor({2, 3}, std::vector<float>(6, 0))}};
    // shift Lk - Lq = 1: row 0 sees keys 0..1, row 1 sees keys 0..2
    expect_tensor(ctf::reference::evaluate(ctf::softmax(ctf::mask(s, ctf::causal_bottom_right)), in), {2, 3},
                  {0.5, 0.5, 0, 1.0 / 3, 1.0 / 3, 1.0 / 3});
}

TEST(Mask, CausalTopLeftWithMoreKeysThanQueries) {
    auto s = ctf::input<"s", 2, 3>();
    ctf::tensor_map in{{"s", tensor({2, 3}, std::vector<float>(6, 0))}};
    // top-left: row 0 sees key 0 only, row 1 sees keys 0..1
    expect_tensor(ctf::reference::evaluate(ctf::softmax(ctf::mask(s, ctf::causal)), in), {2, 3},
                  {1, 0, 0, 0.5, 0.5, 0});
}

TEST(Mask, KeyPaddingDiffersPerSequence) {
    auto s = ctf::input<"s", ctf::batch, 2, 3>();
    auto m = ctf::bool_input<"m", ctf::batch, 3>();
    ctf::tensor_map in{{"s", tensor({2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})},
                       {"m", tensor({2, 3}, {1, 1, 0, 1, 0, 0})}};
    // sequence 0 keeps keys 0,1 in both query rows; sequence 1 keeps key 0 only
    expect_tensor(ctf::reference::evaluate(ctf::mask(s, ctf::key_padding(m)), in), {2, 2, 3},
                  {1, 2, -inf, 4, 5, -inf, 7, -inf, -inf, 10, -inf, -inf});
}

TEST(Mask, KeyPaddingThenSoftmax) {
    auto s = ctf::input<"s", ctf::batch, 2, 3>();
    auto m = ctf::bool_input<"m", ctf::batch, 3>();
    ctf::tensor_map in{{"s", tensor({2, 2, 3}, std::vector<float>(12, 0))}, {"m", tensor({2, 3}, {1, 1, 0, 1, 0, 0})}};
    // sequence 0: two keys share 1/2; sequence 1: key 0 takes all
    expect_tensor(ctf::reference::evaluate(ctf::softmax(ctf::mask(s, ctf::key_padding(m))), in), {2, 2, 3},
                  {0.5, 0.5, 0, 0.5, 0.5, 0, 1, 0, 0, 1, 0, 0});
}

TEST(Mask, AdditiveAddsTheBias) {
    auto s = ctf::input<"s", 2, 2>();
    auto b = ctf::input<"bias", 2, 2>();
    ctf::tensor_map in{{"s", tensor({2, 2}, {1, 2, 3, 4})}, {"bias", tensor({2, 2}, {0, -1, 10, 0.5f})}};
    // [1+0, 2-1, 3+10, 4+0.5]
    expect_tensor(ctf::reference::evaluate(ctf::mask(s, ctf::additive(b)), in), {2, 2}, {1, 1, 13, 4.5});
}

TEST(Mask, AdditiveBroadcastsOverBatch) {
    auto s = ctf::input<"s", ctf::batch, 1, 2>();
    auto b = ctf::input<"bias", 1, 2>();
    ctf::tensor_map in{{"s", tensor({2, 1, 2}, {1, 2, 3, 4})}, {"bias", tensor({1, 2}, {0.5f, -2})}};
    // each sequence gets [+0.5, -2]: [1.5, 0], [3.5, 2]
    expect_tensor(ctf::reference::evaluate(ctf::mask(s, ctf::additive(b)), in), {2, 1, 2}, {1.5, 0, 3.5, 2});
}

TEST(LayerNorm, NormalizesEachRowThenAppliesGammaBeta) {
    auto x = ctf::input<"x", 2, 4>();
    auto g = ctf::weight<"gamma", 4>();
    auto b = ctf::weight<"beta", 4>();
    ctf::tensor_map in{{"x", tensor({2, 4}, {1, 2, 3, 4, 2, 2, 2, 2})},
                       {"gamma", tensor({4}, {1, 1, 1, 1})},
                       {"beta", tensor({4}, {0, 0, 0, 0})}};
    // row 0: mean 2.5, var (2.25+0.25+0.25+2.25)/4 = 1.25, √(1.25+1e-5) = 1.1180384609
    //        ±1.5/1.1180384609 = ±1.3416354200, ±0.5/1.1180384609 = ±0.4472118067
    // row 1: constant -> (x - mean) = 0 -> 0
    expect_tensor(ctf::reference::evaluate(ctf::layer_norm(x, g, b), in), {2, 4},
                  {-1.3416354200, -0.4472118067, 0.4472118067, 1.3416354200, 0, 0, 0, 0});
}

TEST(LayerNorm, AppliesGammaAndBetaPerColumn) {
    auto x = ctf::input<"x", 1, 4>();
    auto g = ctf::weight<"gamma", 4>();
    auto b = ctf::weight<"beta", 4>();
    ctf::tensor_map in{{"x", tensor({1, 4}, {1, 2, 3, 4})},
                       {"gamma", tensor({4}, {1, 2, 0.5f, -1})},
                       {"beta", tensor({4}, {0, 1, 0, 2})}};
    // n = [-1.3416354200, -0.4472118067, 0.4472118067, 1.3416354200]
    // n·gamma + beta = [-1.3416354200, -0.8944236134+1, 0.2236059033, -1.3416354200+2]
    expect_tensor(ctf::reference::evaluate(ctf::layer_norm(x, g, b), in), {1, 4},
                  {-1.3416354200, 0.1055763866, 0.2236059033, 0.6583645800});
}

TEST(RmsNorm, DividesEachRowByItsRootMeanSquareThenAppliesGamma) {
    auto x = ctf::input<"x", 2, 2>();
    auto g = ctf::weight<"gamma", 2>();
    ctf::tensor_map in{{"x", tensor({2, 2}, {3, 4, -1, 1})}, {"gamma", tensor({2}, {2, -0.5f})}};
    // row 0: mean square (9 + 16)/2 = 12.5, √(12.5 + 1e-6) = 3.5355340474: 3/… · 2, 4/… · -0.5
    // row 1: mean square 1, √(1 + 1e-6): ±0.9999995000 · gamma; no mean is taken away
    expect_tensor(ctf::reference::evaluate(ctf::rms_norm(x, g), in), {2, 2},
                  {1.6970562070, -0.5656854023, -1.9999990000, -0.4999997500});
}

TEST(Linear, MultipliesByTheTransposedWeight) {
    auto x = ctf::input<"x", 2, 3>();
    auto w = ctf::weight<"W", 2, 3>();  // [out, in]
    ctf::tensor_map in{{"x", tensor({2, 3}, {1, 2, 3, 4, 5, 6})}, {"W", tensor({2, 3}, {1, 0, -1, 2, 1, 0})}};
    // x·Wᵀ: row 0: [1-3, 2+2] = [-2, 4]; row 1: [4-6, 8+5] = [-2, 13]
    expect_tensor(ctf::reference::evaluate(ctf::linear(x, w), in), {2, 2}, {-2, 4, -2, 13});
}

TEST(Linear, AddsTheBias) {
    auto x = ctf::input<"x", 2, 3>();
    auto w = ctf::weight<"W", 2, 3>();
    auto b = ctf::weight<"b", 2>();
    ctf::tensor_map in{{"x", tensor({2, 3}, {1, 2, 3, 4, 5, 6})},
                       {"W", tensor({2, 3}, {1, 0, -1, 2, 1, 0})},
                       {"b", tensor({2}, {0.5f, -1})}};
    // [-2+0.5, 4-1], [-2+0.5, 13-1]
    expect_tensor(ctf::reference::evaluate(ctf::linear(x, w, b), in), {2, 2}, {-1.5, 3, -1.5, 12});
}

TEST(Heads, SplitHeadsPlacesEachSlice) {
    auto x = ctf::input<"x", 2, 4>();
    ctf::tensor_map in{{"x", tensor({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7})}};  // in[l][c] = 4l + c
    // out[h][l][d] = in[l][2h + d]: h0 = [[0,1],[4,5]], h1 = [[2,3],[6,7]]
    expect_tensor(ctf::reference::evaluate(ctf::split_heads<2>(x), in), {2, 2, 2}, {0, 1, 4, 5, 2, 3, 6, 7});
}

TEST(Heads, MergeHeadsConcatenatesHeads) {
    auto x = ctf::input<"x", 2, 2, 2>();
    ctf::tensor_map in{{"x", tensor({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7})}};  // in[h][l][d] = 4h + 2l + d
    // out[l][2h + d] = in[h][l][d]: l0 = [0,1,4,5], l1 = [2,3,6,7]
    expect_tensor(ctf::reference::evaluate(ctf::merge_heads(x), in), {2, 4}, {0, 1, 4, 5, 2, 3, 6, 7});
}

TEST(Heads, MergeHeadsInvertsSplitHeads) {
    auto x = ctf::input<"x", ctf::batch, 2, 4>();
    ctf::tensor_map in{{"x", tensor({2, 2, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})}};
    expect_tensor(ctf::reference::evaluate(ctf::merge_heads(ctf::split_heads<2>(x)), in), {2, 2, 4},
                  {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
}

TEST(Heads, ExpandHeadsRepeatsEachGroup) {
    auto x = ctf::input<"x", 2, 1, 2>();
    ctf::tensor_map in{{"x", tensor({2, 1, 2}, {1, 2, 3, 4})}};  // group 0 = [1,2], group 1 = [3,4]
    // head h reads group h / (4/2): heads 0,1 <- group 0; heads 2,3 <- group 1
    expect_tensor(ctf::reference::evaluate(ctf::expand_heads<4>(x), in), {4, 1, 2}, {1, 2, 1, 2, 3, 4, 3, 4});
}

TEST(Rotary, TurnsEachPairByItsPositionsAngle) {
    auto x = ctf::input<"x", 2, 4>();  // positions 0 and 1, one head of 4: angles p·1 and p·100^(-1/2)
    ctf::tensor_map in{{"x", tensor({2, 4}, {1, 2, 3, 4, 1, 0, 0, 1})}};
    // position 0 turns nothing; position 1: half pairs (0, 2) by 1 rad and (1, 3) by fp32(0.1):
    // (1, 0) → (cos 1, sin 1), (0, 1) → (-sin 0.1, cos 0.1)
    expect_tensor(ctf::reference::evaluate(ctf::rotary<{.head_dim = 4, .theta = 100}>(x), in), {2, 4},
                  {1, 2, 3, 4, 0.5403023059, -0.0998334181, 0.8414709848, 0.9950041651});
    // interleaved: pairs (0, 1) and (2, 3), the same angles
    constexpr ctf::rotary_spec gptj{.head_dim = 4, .theta = 100, .pairing = ctf::rotary_pairing::interleaved};
    expect_tensor(ctf::reference::evaluate(ctf::rotary<gptj>(x), in), {2, 4},
                  {1, 2, 3, 4, 0.5403023059, 0.8414709848, -0.0998334181, 0.9950041651});
    // partial: only the first 2 of each head's dimensions, one pair (0, 1) by 1 rad
    expect_tensor(ctf::reference::evaluate(ctf::rotary<{.head_dim = 4, .rotary_dims = 2, .theta = 100}>(x), in), {2, 4},
                  {1, 2, 3, 4, 0.5403023059, 0.8414709848, 0, 1});
}
