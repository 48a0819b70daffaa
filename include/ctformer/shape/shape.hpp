// Shapes are types: shape<batch, 10, 512> is a [B,10,512] tensor whose batch B is known at run time;
// shape<batch, upto<512>, 768> a [B,L,768] tensor whose length L, at most 512, is known at run time too.
// The algebra below works on std::array<int, N> in constexpr functions and turns the result back
// into a shape type with shape_from_t.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <utility>

#include "ragged.hpp"

namespace ctformer {

// The run-time batch, allowed only as the leading extent. Compile-time diagnostics show it as -1;
// run-time messages as B (extent_view).
inline constexpr int batch = -1;

// A run-time length of at most Max: upto<512> is a length variable (Var 0, printed L) that every
// extent declared upto<512> shares; upto<128, 1> a second one (L1), e.g. cross-attention's memory.
// Encoded as -(Var + 1)·10⁶ - Max: compile-time diagnostics show upto<512> as -1000512, upto<128, 1>
// as -2000128; run-time messages as L<=512 and L1<=128 (extent_view).
inline constexpr int max_lengths = 4;
inline constexpr int length_code = 1'000'000;

constexpr int length_extent(int max, int var = 0) { return -(var + 1) * length_code - max; }

template <int Max, int Var = 0>
    requires(Max > 0 && Max < length_code && Var >= 0 && Var < max_lengths)
inline constexpr int upto = length_extent(Max, Var);

constexpr bool is_length(int e) { return e <= -length_code; }
constexpr int length_variable(int e) { return -e / length_code - 1; }
// The largest value an extent takes: a length's maximum, a static extent itself.
constexpr int maximum(int e) { return is_length(e) ? -e % length_code : e; }

template <int... Extents>
struct shape {
    static constexpr std::size_t rank = sizeof...(Extents);
    static constexpr std::array<int, rank> extents{Extents...};
    static constexpr bool batched = rank > 0 && extents[0] == batch;
};

namespace detail {
template <class T>
struct is_shape : std::false_type {};
template <int... E>
struct is_shape<shape<E...>> : std::true_type {};

template <auto Extents, class Indices = std::make_index_sequence<Extents.size()>>
struct shape_from;
template <auto Extents, std::size_t... I>
struct shape_from<Extents, std::index_sequence<I...>> {
    using type = shape<Extents[I]...>;
};
}  // namespace detail

template <class T>
concept shape_type = detail::is_shape<T>::value;

// shape_from_t<std::array{10, 512}> is shape<10, 512>.
template <auto Extents>
using shape_from_t = typename detail::shape_from<Extents>::type;

// ---- constexpr algebra over extents -------------------------------------------------------------

template <std::size_t N>
using extents_t = std::array<int, N>;

template <std::size_t N>
constexpr int last(const extents_t<N>& e, std::size_t from_end = 0) {
    return from_end < N ? e[N - 1 - from_end] : 0;
}

// The first N - Drop extents.
template <std::size_t Drop, std::size_t N>
constexpr extents_t<N - Drop> drop_last(const extents_t<N>& e) {
    extents_t<N - Drop> kept{};
    for (std::size_t i = 0; i < N - Drop; ++i) kept[i] = e[i];
    return kept;
}

template <std::size_t A, std::size_t B>
constexpr extents_t<A + B> concat(const extents_t<A>& a, const extents_t<B>& b) {
    extents_t<A + B> joined{};
    for (std::size_t i = 0; i < A; ++i) joined[i] = a[i];
    for (std::size_t i = 0; i < B; ++i) joined[A + i] = b[i];
    return joined;
}

// True when `part` equals the trailing extents of `whole` (numpy broadcasting without size-1 axes).
template <std::size_t P, std::size_t W>
constexpr bool is_suffix(const extents_t<P>& part, const extents_t<W>& whole) {
    if constexpr (P > W) {
        return false;
    } else {
        for (std::size_t i = 0; i < P; ++i)
            if (part[i] != whole[W - P + i]) return false;
        return true;
    }
}

// Whether one of two extent lists is the trailing part of the other; the longer one is the result.
template <std::size_t A, std::size_t B>
constexpr bool broadcastable(const extents_t<A>& a, const extents_t<B>& b) {
    if constexpr (A >= B) return is_suffix(b, a);
    else return is_suffix(a, b);
}

template <std::size_t A, std::size_t B>
constexpr auto broadcast(const extents_t<A>& a, const extents_t<B>& b) {
    if constexpr (A >= B) return a;
    else return b;
}

// Extents are positive, except the batch, which may only lead.
template <std::size_t N>
constexpr bool batch_only_leads(const extents_t<N>& e) {
    for (std::size_t i = 1; i < N; ++i)
        if (e[i] == batch) return false;
    return true;
}

template <std::size_t N>
constexpr bool all_positive_or_batch(const extents_t<N>& e) {
    for (int x : e)
        if (x <= 0 && x != batch && !is_length(x)) return false;
    return true;
}

template <std::size_t N>
constexpr bool has_length(const extents_t<N>& e) {
    for (int x : e)
        if (is_length(x)) return true;
    return false;
}

// An extent as what it is, not its encoding: a static size, the run-time batch, or a run-time length
// (its variable and maximum). Every run-time message and generated text about extents prints through
// it, so none shows an encoded number (-1, -1000512).
struct extent_view {
    enum class kind { fixed, batch, length };
    kind what = kind::fixed;
    int maximum = 0;   // a static extent's size; a length's maximum; 0 for the batch
    int variable = 0;  // a length's variable: 0 is L, 1 is L1, ...

    static constexpr extent_view of(int e) {
        if (e == batch) return {kind::batch, 0, 0};
        if (ctformer::is_length(e)) return {kind::length, ctformer::maximum(e), length_variable(e)};
        return {kind::fixed, e, 0};
    }
    constexpr bool is_batch() const { return what == kind::batch; }
    constexpr bool is_length() const { return what == kind::length; }
    constexpr bool is_fixed() const { return what == kind::fixed; }

    // "B", "L", "L1", "512".
    std::string name() const {
        if (is_batch()) return "B";
        if (is_fixed()) return std::to_string(maximum);
        std::string text = "L";
        if (variable) text += std::to_string(variable);
        return text;
    }
    // "B", "L<=512", "L1<=128", "512" (ASCII, so tables align).
    std::string to_string() const {
        std::string text = name();
        if (is_length()) {
            text += "<=";
            text += std::to_string(maximum);
        }
        return text;
    }
    // "L, a length from 1 to 512": what a message about a length's value says it is.
    std::string described() const {
        if (is_length()) return name() + ", a length from 1 to " + std::to_string(maximum);
        if (is_batch()) return "B, the batch";
        return name();
    }
    constexpr bool operator==(const extent_view&) const = default;
};

// "L", "L1": a length variable's name; "L<=512", "L1<=128": with its maximum.
inline std::string length_name(int e) { return extent_view::of(e).name(); }
inline std::string length_text(int e) { return extent_view::of(e).to_string(); }

// "[B,_10,_512]", "[B,L<=512,_512]": static extents carry a leading underscore, the run-time batch is
// B, a run-time length its variable and maximum.
inline std::string extents_text(std::span<const int> extents) {
    std::string text = "[";
    for (std::size_t i = 0; i < extents.size(); ++i) {
        if (i) text += ',';
        const extent_view e = extent_view::of(extents[i]);
        if (e.is_fixed()) text += '_';
        text += e.to_string();
    }
    return text + "]";
}

template <shape_type S>
std::string to_string() {
    return extents_text(S::extents);
}

// The run-time extents of one run: the batch and each length variable (0: the variable's maximum,
// which is what sizes the plan's memory and what a step's FLOPs are counted at by default). A
// number alone is a batch: explain(4) is a batch of 4 at the maxima. A mixed-length batch runs
// packed, as B = 1 and L = its tokens, with `ragged` saying where each sequence's rows are. A
// decoding run's tokens start at `position` of their sequences, past the ones in its KV cache.
struct extent_values {
    std::size_t batch = 1;
    std::array<std::size_t, max_lengths> lengths{};
    const ragged_batch* ragged = nullptr;
    std::size_t position = 0;

    extent_values(std::size_t b = 1, std::array<std::size_t, max_lengths> l = {}) : batch(b), lengths(l) {}

    // The value of declared extent e in this run.
    std::size_t of(int e) const {
        if (e == ctformer::batch) return batch;
        if (!is_length(e)) return static_cast<std::size_t>(e);
        const std::size_t length = lengths[length_variable(e)];
        return length ? length : static_cast<std::size_t>(maximum(e));
    }
    // In a packed run, a value over tokens is [1, T, ...]; one without a length (pooled, [B, D]) has
    // a row per sequence.
    std::size_t batch_of(std::span<const int> extents) const {
        const bool pooled = ragged && std::none_of(extents.begin(), extents.end(), [](int e) { return is_length(e); });
        return pooled ? ragged->sequences() : batch;
    }
    // The value of declared extent extents[i] in this run, for a value of these extents.
    std::size_t of(std::span<const int> extents, std::size_t i) const {
        return extents[i] == ctformer::batch ? batch_of(extents) : of(extents[i]);
    }
    std::size_t elements(std::span<const int> extents) const {
        std::size_t n = 1;
        for (std::size_t i = 0; i < extents.size(); ++i) n *= of(extents, i);
        return n;
    }
    // The same lengths, another batch.
    extent_values with_batch(std::size_t b) const {
        extent_values at{b, lengths};
        at.ragged = ragged;
        at.position = position;
        return at;
    }
    bool operator==(const extent_values&) const = default;
};

}  // namespace ctformer
