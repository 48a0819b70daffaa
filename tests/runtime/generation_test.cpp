// The sampler (runtime/generation.hpp) on fixed rows of logits: greedy as temperature 0 and as top-k 1,
// the same tokens from the same seed, and draws whose frequencies match the softmax of the logits at
// the temperature, within top-k and top-p as Hugging Face applies them (a χ² test at the 0.1% level,
// its seed fixed, so the test is deterministic); bad options refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <vector>

#include <ctformer/runtime/generation.hpp>

namespace ctf = ctformer;

namespace {

// χ² of `draws` from `sampling` over `logits` against the probabilities `want` (by token; a token
// absent from want must never be drawn).
double chi_squared(const std::vector<float>& logits, const ctf::sampling& s, const std::map<int, double>& want, int draws) {
    ctf::sampler next(s);
    std::map<int, int> seen;
    for (int i = 0; i < draws; ++i) ++seen[next(logits)];
    double chi2 = 0;
    for (const auto& [token, count] : seen) EXPECT_TRUE(want.contains(token)) << "drew token " << token;
    for (const auto& [token, p] : want) {
        const double expected = p * draws, d = seen[token] - expected;
        chi2 += d * d / expected;
    }
    return chi2;
}

// softmax(logits / t) over `tokens`, renormalised.
std::map<int, double> softmax(const std::vector<float>& logits, double t, const std::vector<int>& tokens) {
    std::map<int, double> p;
    double total = 0;
    for (int i : tokens) total += p[i] = std::exp(logits[static_cast<std::size_t>(i)] / t);
    for (auto& [i, x] : p) x /= total;
    return p;
}

const std::vector<float> logits{2.0f, 1.0f, 0.5f, 0.0f, -0.5f, -1.0f, 1.5f, 0.2f};

TEST(Sampler, GreedyIsTemperatureZeroOrTopKOne) {
    std::mt19937 random(3);
    std::uniform_int_distribution<int> value(-4, 4);  // whole numbers: ties, the first one chosen
    ctf::sampler cold({.temperature = 0}), top1({.top_k = 1, .seed = 9});
    for (int row = 0; row < 200; ++row) {
        std::vector<float> l(17);
        for (float& x : l) x = static_cast<float>(value(random));
        const auto argmax = static_cast<std::int32_t>(std::max_element(l.begin(), l.end()) - l.begin());
        EXPECT_EQ(cold(l), argmax);
        EXPECT_EQ(top1(l), argmax);
    }
}

TEST(Sampler, TheSameSeedGivesTheSameTokens) {
    const auto tokens = [](std::uint64_t seed) {
        ctf::sampler next({.temperature = 1.3, .top_p = 0.9, .seed = seed});
        std::vector<std::int32_t> drawn;
        for (int i = 0; i < 100; ++i) drawn.push_back(next(logits));
        return drawn;
    };
    EXPECT_EQ(tokens(42), tokens(42));
    EXPECT_NE(tokens(42), tokens(43));
}

// χ² critical values at 0.1%: 24.32 for 7 degrees of freedom, 13.82 for 2, 10.83 for 1.
TEST(Sampler, DrawsFollowTheSoftmaxAtTheTemperature) {
    const std::vector<int> all{0, 1, 2, 3, 4, 5, 6, 7};
    EXPECT_LT(chi_squared(logits, {.temperature = 0.7, .seed = 1}, softmax(logits, 0.7, all), 40000), 24.32);
    EXPECT_LT(chi_squared(logits, {.temperature = 1.0, .seed = 2}, softmax(logits, 1.0, all), 40000), 24.32);
    // The temperature matters: draws at 1 are not those at 0.7.
    EXPECT_GT(chi_squared(logits, {.temperature = 1.0, .seed = 1}, softmax(logits, 0.7, all), 40000), 100);
}

TEST(Sampler, TopKKeepsTheKMostLikely) {
    EXPECT_LT(chi_squared(logits, {.temperature = 0.9, .top_k = 3, .seed = 4}, softmax(logits, 0.9, {0, 6, 1}), 30000), 13.82);
}

// Probabilities 0.5, 0.3, 0.15, 0.05: top_p 0.75 keeps the first two (0.5 is under 0.75, 0.8 is not).
TEST(Sampler, TopPKeepsTheNucleus) {
    const std::vector<float> l{std::log(0.15f), std::log(0.5f), std::log(0.05f), std::log(0.3f)};
    EXPECT_LT(chi_squared(l, {.top_p = 0.75, .seed = 5}, {{1, 0.5 / 0.8}, {3, 0.3 / 0.8}}, 30000), 10.83);
    EXPECT_LT(chi_squared(l, {.top_k = 3, .top_p = 0.3, .seed = 6}, {{1, 1.0}}, 1000), 1e-9);  // at least one stays
}

TEST(Sampler, BadOptionsAreRefusedByName) {
    const std::pair<ctf::sampling, const char*> cases[] = {
        {{.temperature = -1}, "sampling temperature = -1"},
        {{.temperature = NAN}, "sampling temperature = nan"},
        {{.top_k = -2}, "sampling top_k = -2"},
        {{.top_p = 0}, "sampling top_p = 0"},
        {{.top_p = 1.5}, "sampling top_p = 1.5"},
    };
    for (const auto& [s, words] : cases) {
        try {
            ctf::sampler next(s);
            ADD_FAILURE() << words << " was taken";
        } catch (const ctf::invalid_option& e) {
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
    }
}

}  // namespace
