// Shapes are types: shape<batch, 10, 512> is a [B,10,512] tensor whose batch B is known at run time.
// The algebra below works on std::array<int, N> in constexpr functions and turns the result back
// into a shape type with shape_from_t.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <utility>

namespace ctformer {

// The one run-time extent: the batch, allowed only as the leading extent. Diagnostics show it as -1.
inline constexpr int batch = -1;

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
        if (x <= 0 && x != batch) return false;
    return true;
}

// "[B,_10,_512]": static extents carry a leading underscore, the run-time batch is B.
inline std::string extents_text(std::span<const int> extents) {
    std::string text = "[";
    for (std::size_t i = 0; i < extents.size(); ++i) {
        if (i) text += ',';
        if (extents[i] == batch) {
            text += 'B';
        } else {
            text += '_';
            text += std::to_string(extents[i]);
        }
    }
    return text + "]";
}

template <shape_type S>
std::string to_string() {
    return extents_text(S::extents);
}

}  // namespace ctformer
