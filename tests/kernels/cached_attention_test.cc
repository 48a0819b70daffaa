// The decoding attention over a KV cache (kernels/cached_attention-inl.h) on every Highway target
// compiled in, against softmax(scale · q·kᵀ) · v computed in double: the query at position p sees
// the keys of positions [0, p], its own included (in a sliding window of W, (p - W, p]). A cache filled run by run: a prompt at position 0
// (one token, or several), one token at a time, several at once, up to a full cache; capacities of
// 1, 3, 17, one key block (64), 64 + 5 and two blocks and more (130), head sizes whose value rows
// are padded to whole vectors (Dv = 5, 40), two heads interleaved in the rows (strided), each its
// own cache of floats(capacity). The cache, the scores and the output are filled with NaN or a
// sentinel first: a slot read before it is appended (a key out of reach, a row's padding), a write
// past the scores' stride or the cache's floats (ASan), or a write outside a head's columns shows.
// Tolerance: values uniform in [-1, 1], so outputs (weighted means of value rows) are within ±1;
// fp32 against double within 1e-5 + 1e-4·|want|, as kernels/attention_test.cc, logits ×30 included.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cached_attention_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>
#include <hwy/tests/hwy_gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <ctformer/kernels/cached_attention-inl.h>

#include "support/compare.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::tests::HWY_NAMESPACE {
namespace kt = ctformer::kernels::HWY_NAMESPACE;
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kUntouched = -12345.0f;  // the output's columns between and after the heads

std::vector<float> uniform(std::size_t n, unsigned seed, float scale = 1.0f) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (float& x : v) x = scale * value(random);
    return v;
}

// The answer at position p of one head whose rows of q, k, v start at column `column` of rows of
// `stride`: softmax over first <= j <= p of scale · q_p·k_j, times v, in double.
std::vector<double> expected_row(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
                                 std::size_t dk, std::size_t dv, std::size_t qk_stride, std::size_t v_stride,
                                 std::size_t head, std::size_t p, double scale, std::size_t first) {
    std::vector<double> score(p + 1, -std::numeric_limits<double>::infinity());
    double most = -std::numeric_limits<double>::infinity();
    for (std::size_t j = first; j <= p; ++j) {
        double dot = 0;
        for (std::size_t e = 0; e < dk; ++e)
            dot += double(q[p * qk_stride + head * dk + e]) * double(k[j * qk_stride + head * dk + e]);
        score[j] = scale * dot;
        most = std::max(most, score[j]);
    }
    double sum = 0;
    for (double& s : score) sum += s = std::exp(s - most);  // exp(-inf) = 0
    std::vector<double> out(dv, 0.0);
    for (std::size_t j = 0; j <= p; ++j)
        for (std::size_t c = 0; c < dv; ++c) out[c] += score[j] / sum * double(v[j * v_stride + head * dv + c]);
    return out;
}

// Two heads of [Dk] queries and keys, [Dv] values, interleaved in rows of all heads (as a Q/K/V
// GEMM's output is read), decoded run by run: each run of `runs` appends its keys and values at the
// cache's next position, then its queries attend over the cache. The runs add up to at most
// `capacity`; every position's output row is checked against the double answer. window: each query
// over its last `window` keys (0: all).
template <std::size_t Dk, std::size_t Dv>
void check_cache(std::size_t capacity, const std::vector<std::size_t>& runs, float logit_scale = 1.0f, std::size_t window = 0) {
    using head = kt::cached_head<Dk, Dv>;
    constexpr std::size_t heads = 2, qk_stride = heads * Dk, v_stride = heads * Dv;
    constexpr std::size_t out_stride = heads * Dv + 3;  // three columns no head writes
    std::size_t length = 0;
    for (std::size_t n : runs) length += n;
    ASSERT_LE(length, capacity);
    const std::vector<float> q = uniform(length * qk_stride, 41, logit_scale), k = uniform(length * qk_stride, 42),
                             v = uniform(length * v_stride, 43);
    const float scale = static_cast<float>(1.0 / std::sqrt(double(Dk)));

    std::vector<float> cache(heads * head::floats(capacity), kNaN);  // the plan's: head i at i · floats(capacity)
    std::vector<float> scores(head::stride(capacity), kNaN);         // the step's scratch: the cache's stride
    std::vector<float> out(length * out_stride, kUntouched);
    std::size_t past = 0;
    for (std::size_t n : runs) {
        for (std::size_t h = 0; h < heads; ++h) {
            const head c(cache.data() + h * head::floats(capacity), capacity);
            c.append({k.data() + past * qk_stride + h * Dk, qk_stride}, {v.data() + past * v_stride + h * Dv, v_stride},
                     past, n);
            kt::attend_cache<Dk, Dv>({q.data() + past * qk_stride + h * Dk, qk_stride}, n, past, c, scale,
                                     {out.data() + past * out_stride + h * Dv, out_stride}, scores.data(), window);
        }
        past += n;
    }

    std::vector<double> want(out.size(), kUntouched);
    for (std::size_t p = 0; p < length; ++p)
        for (std::size_t h = 0; h < heads; ++h) {
            const std::size_t first = window && p + 1 > window ? p + 1 - window : 0;
            const std::vector<double> row = expected_row(q, k, v, Dk, Dv, qk_stride, v_stride, h, p, scale, first);
            std::copy(row.begin(), row.end(), want.begin() + p * out_stride + h * Dv);
        }
    std::string what = "cached attention Dk=" + std::to_string(Dk) + " Dv=" + std::to_string(Dv) +
                       " capacity " + std::to_string(capacity) + " window " + std::to_string(window) + " runs";
    for (std::size_t n : runs) what += " " + std::to_string(n);
    test::expect_close(out, want, {.atol = 1e-5, .rtol = 1e-4}, what);
}

template <std::size_t Dk, std::size_t Dv>
void check_schedules() {
    check_cache<Dk, Dv>(1, {1});                  // position 0 alone, the cache full
    check_cache<Dk, Dv>(3, {1, 1, 1});            // one token at a time from position 0
    check_cache<Dk, Dv>(17, {5, 1, 1, 3, 7});     // a prompt, single tokens, several at once; full
    check_cache<Dk, Dv>(64, {63, 1});             // one whole key block
    check_cache<Dk, Dv>(69, {1, 40, 1, 23, 4});   // a run across the block's end; full at 64 + 5
    check_cache<Dk, Dv>(130, {64, 1, 65});        // past two blocks; full
    check_cache<Dk, Dv>(100, {10, 1, 2});         // most of the capacity never appended
}

}  // namespace

void TestCachedAttentionOverEveryFill() {
    check_schedules<16, 16>();
    check_schedules<3, 5>();    // value rows of a partial vector, padded
    check_schedules<64, 40>();  // 40: a partial vector on AVX-512
}

// Scores of tens (q × 30): weights far from uniform, a few keys carrying each row, as in
// kernels/attention_test.cc (× 100 puts fp32's rounding of the scores at the tolerance).
void TestCachedAttentionLargeLogits() {
    check_cache<16, 16>(69, {33, 1, 35}, 30.0f);
    check_cache<64, 40>(17, {1, 16}, 30.0f);
}

// A sliding window: of one key (the query's own), of a few, of 70 keys over a cache of three blocks
// (the first block unread past position 134), one token at a time and several at once.
void TestCachedAttentionInASlidingWindow() {
    check_cache<16, 16>(17, {5, 1, 1, 3, 7}, 1.0f, 1);
    check_cache<16, 16>(17, {5, 1, 1, 3, 7}, 1.0f, 3);
    check_cache<64, 40>(190, {64, 1, 65, 1, 1, 58}, 1.0f, 70);
    check_cache<3, 5>(130, {40, 1, 30, 59}, 30.0f, 33);
}

// Where append puts key j and value j: the keys transposed in blocks of kKeyBlock (element e of key
// j at keys_at(j)[e · kKeyBlock]), the values as rows of dv_padded; a head's floats hold its stride.
void TestCachedHeadLayout() {
    using head = kt::cached_head<3, 5>;
    constexpr std::size_t capacity = 70;
    EXPECT_EQ(head::stride(capacity), 2 * kernels::kKeyBlock);
    EXPECT_EQ(head::stride(kernels::kKeyBlock), kernels::kKeyBlock);
    EXPECT_EQ(head::floats(capacity), head::stride(capacity) * (3 + head::dv_padded));
    EXPECT_EQ(head::dv_padded % HWY_LANES(float), 0u);
    EXPECT_GE(head::dv_padded, 5u);
    EXPECT_EQ(head::floats_read(10), 10 * (3 + head::dv_padded));
    std::vector<float> cache(head::floats(capacity), kNaN);
    const head c(cache.data(), capacity);
    const std::vector<float> k = uniform(capacity * 3, 44), v = uniform(capacity * 5, 45);
    c.append({k.data(), 3}, {v.data(), 5}, 0, 66);
    c.append({k.data() + 66 * 3, 3}, {v.data() + 66 * 5, 5}, 66, 4);
    for (std::size_t j = 0; j < capacity; ++j) {
        EXPECT_EQ(c.keys_at(j), cache.data() + j / kernels::kKeyBlock * 3 * kernels::kKeyBlock + j % kernels::kKeyBlock);
        for (std::size_t e = 0; e < 3; ++e) EXPECT_EQ(c.keys_at(j)[e * kernels::kKeyBlock], k[j * 3 + e]) << j;
        for (std::size_t e = 0; e < 5; ++e) EXPECT_EQ(c.values[j * head::dv_padded + e], v[j * 5 + e]) << j;
    }
    EXPECT_EQ(c.values, cache.data() + 3 * head::stride(capacity));
}

}  // namespace ctformer::tests::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ctformer::tests {
HWY_BEFORE_TEST(CachedAttentionKernel);
HWY_EXPORT_AND_TEST_P(CachedAttentionKernel, TestCachedAttentionOverEveryFill);
HWY_EXPORT_AND_TEST_P(CachedAttentionKernel, TestCachedAttentionLargeLogits);
HWY_EXPORT_AND_TEST_P(CachedAttentionKernel, TestCachedAttentionInASlidingWindow);
HWY_EXPORT_AND_TEST_P(CachedAttentionKernel, TestCachedHeadLayout);
}  // namespace ctformer::tests
#endif
