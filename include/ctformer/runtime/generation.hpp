// Choosing the next token from a row of logits, as Hugging Face's generate() does: temperature, then
// top-k, then top-p (nucleus), then a draw; greedy (the first largest logit) where temperature is 0
// or top_k is 1. The draws come from a seeded mt19937_64 turned into doubles by hand, so the same
// seed and the same logits give the same tokens on every machine, target and thread count.
//
//   ctf::sampler next({.temperature = 0.8, .top_k = 40, .top_p = 0.95, .seed = 7});
//   std::int32_t token = next(last_row_of_logits);
//
// generate(decoding, prompt, options) decodes one prompt with a model's KV cache (model.start_decoding(1)):
// the prompt once, then a step per token, until options.tokens or one of the stop ids (kept, as
// Hugging Face keeps its eos token); generate(decoding, prompts, options) a batch of prompts of
// different lengths together, each at its own position. Token ids in, token ids out: tokenization
// is the caller's.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "../core/exceptions.hpp"
#include "../core/host_tensor.hpp"
#include "../core/text.hpp"
#include "run_options.hpp"

namespace ctformer {

struct sampling {
    double temperature = 1.0;  // the logits divided by it; 0: greedy
    int top_k = 0;             // only the k most likely tokens (0: all; 1: greedy)
    double top_p = 1.0;        // only the most likely tokens whose probabilities reach top_p (1: all)
    std::uint64_t seed = 0;
};

class sampler {
public:
    explicit sampler(const sampling& s) : s_(s), random_(s.seed) {
        if (!(s.temperature >= 0) || !std::isfinite(s.temperature))
            throw invalid_option("sampling temperature", exact_text(s.temperature), "0 (greedy) or more");
        if (s.top_k < 0) throw invalid_option("sampling top_k", std::to_string(s.top_k), "0 (all tokens) or more");
        if (!(s.top_p > 0 && s.top_p <= 1)) throw invalid_option("sampling top_p", exact_text(s.top_p), "in (0, 1]");
    }

    bool greedy() const { return s_.temperature == 0 || s_.top_k == 1; }

    // The next token of one row of logits.
    std::int32_t operator()(std::span<const float> logits) {
        if (greedy()) return static_cast<std::int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
        const std::vector<std::int32_t> order = candidates(logits);
        std::vector<double> weight(order.size());
        const double largest = logits[static_cast<std::size_t>(order[0])];
        for (std::size_t i = 0; i < order.size(); ++i)
            weight[i] = std::exp((logits[static_cast<std::size_t>(order[i])] - largest) / s_.temperature);
        const std::size_t kept = nucleus(weight);
        const double total = std::accumulate(weight.begin(), weight.begin() + static_cast<std::ptrdiff_t>(kept), 0.0);
        double u = uniform() * total;
        for (std::size_t i = 0; i + 1 < kept; ++i) {
            if (u < weight[i]) return order[i];
            u -= weight[i];
        }
        return order[kept - 1];
    }

private:
    // The token ids by logit, largest first (ties: the lower id first), the top_k of them: exactly k,
    // where Hugging Face's top-k keeps every token tied with the k-th too. With neither top-k nor
    // top-p, every id in order, the largest first (a draw needs no sorted vocabulary).
    std::vector<std::int32_t> candidates(std::span<const float> logits) const {
        std::vector<std::int32_t> order(logits.size());
        std::iota(order.begin(), order.end(), 0);
        if (s_.top_k == 0 && s_.top_p >= 1) {
            std::swap(order[0], order[static_cast<std::size_t>(std::max_element(logits.begin(), logits.end()) - logits.begin())]);
            return order;
        }
        const std::size_t k = s_.top_k == 0 ? order.size() : std::min<std::size_t>(static_cast<std::size_t>(s_.top_k), order.size());
        std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(), [&](std::int32_t a, std::int32_t b) {
            const float x = logits[static_cast<std::size_t>(a)], y = logits[static_cast<std::size_t>(b)];
            return x > y || (x == y && a < b);
        });
        order.resize(k);
        return order;
    }

    // How many of the weights, largest first, top_p keeps: a token stays while the probability of
    // those before it is under top_p, so at least one does.
    std::size_t nucleus(const std::vector<double>& weight) const {
        if (s_.top_p >= 1) return weight.size();
        const double total = std::accumulate(weight.begin(), weight.end(), 0.0);
        double before = 0;
        std::size_t kept = 0;
        while (kept < weight.size() && before < s_.top_p * total) before += weight[kept++];
        return kept;
    }

    // A double in [0, 1) from the top 53 bits of a draw: the same on every standard library.
    double uniform() { return static_cast<double>(random_() >> 11) * 0x1.0p-53; }

    sampling s_;
    std::mt19937_64 random_;
};

struct generation {
    int tokens = 32;                   // at most this many new tokens
    sampling sample{.temperature = 0};  // greedy unless asked
    std::vector<std::int32_t> stop{};  // ids that end the sequence (config.json's eos_token_id)
    int threads = 0;                   // each run's (0: every hardware thread)
};

namespace detail {

inline bool stops(const generation& g, std::int32_t token) { return std::find(g.stop.begin(), g.stop.end(), token) != g.stop.end(); }

// The prompts as one run: token ids [n, L] when they have one length, else packed [T] with their lengths.
inline id_tensor prompt_ids(const std::vector<std::vector<std::int32_t>>& prompts, runtime::run_options& options) {
    std::vector<std::int32_t> ids;
    for (std::size_t s = 0; s < prompts.size(); ++s) {
        if (prompts[s].empty()) throw invalid_option("prompt " + std::to_string(s), "no tokens", "at least one token id");
        ids.insert(ids.end(), prompts[s].begin(), prompts[s].end());
        options.lengths.push_back(prompts[s].size());
    }
    const std::size_t length = prompts[0].size();
    if (std::all_of(prompts.begin(), prompts.end(), [&](const auto& p) { return p.size() == length; })) {
        options.lengths.clear();
        return id_tensor({prompts.size(), length}, ids);
    }
    return id_tensor({ids.size()}, ids);
}

}  // namespace detail

// The tokens generated after each of `prompts` by a decoding of as many sequences
// (model.start_decoding(prompts.size())): the prompts as one run of their own lengths, then a step per
// token of the sequences still going, each at its own position, until options.tokens or one of the
// stop ids (kept, as Hugging Face keeps its eos token); a sequence that stops leaves the steps. Each
// sequence draws from its own sampler, seeded alike, so it gets exactly the tokens it gets alone.
template <class Decoding>
std::vector<std::vector<std::int32_t>> generate(Decoding& decoding, const std::vector<std::vector<std::int32_t>>& prompts,
                                                const generation& g) {
    if (prompts.empty()) throw invalid_option("prompts", "none", "at least one");
    runtime::run_options options{.threads = g.threads};
    const id_tensor ids = detail::prompt_ids(prompts, options);
    host_tensor<float> logits = decoding.prefill(ids, options);
    std::vector<std::size_t> going(prompts.size()), rows;  // the sequences of the last run, their rows of logits
    std::iota(going.begin(), going.end(), 0);
    std::size_t end = 0;
    for (const std::vector<std::int32_t>& prompt : prompts) rows.push_back((end += prompt.size()) - 1);  // its last token's
    std::vector<sampler> next(prompts.size(), sampler(g.sample));
    std::vector<std::vector<std::int32_t>> tokens(prompts.size());
    while (g.tokens > 0) {
        const std::size_t vocabulary = logits.dims.back();
        std::vector<std::size_t> still;
        std::vector<std::int32_t> fed;
        for (std::size_t r = 0; r < going.size(); ++r) {
            std::vector<std::int32_t>& out = tokens[going[r]];
            out.push_back(next[going[r]](std::span<const float>(logits.data).subspan(rows[r] * vocabulary, vocabulary)));
            if (static_cast<int>(out.size()) < g.tokens && !detail::stops(g, out.back())) {
                still.push_back(going[r]);
                fed.push_back(out.back());
            }
        }
        if (still.empty()) break;
        runtime::run_options step{.threads = g.threads};
        if (still.size() < prompts.size()) step.sequences = still;
        logits = decoding.step(id_tensor({still.size(), 1}, fed), step);
        going = still;
        rows.resize(still.size());
        std::iota(rows.begin(), rows.end(), 0);
    }
    return tokens;
}

// The tokens generated after one prompt by a decoding of one sequence (its cache starts over).
template <class Decoding>
std::vector<std::int32_t> generate(Decoding& decoding, const std::vector<std::int32_t>& prompt, const generation& g) {
    if (prompt.empty()) throw invalid_option("prompt", "no tokens", "at least one token id");
    return generate(decoding, std::vector<std::vector<std::int32_t>>{prompt}, g).front();
}

}  // namespace ctformer
