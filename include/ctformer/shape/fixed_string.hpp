// A string usable as a template argument: tensor names are part of a tensor's type.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>

namespace ctformer {

template <std::size_t N>
struct fixed_string {
    char chars[N + 1] = {};

    constexpr fixed_string() = default;
    constexpr fixed_string(const char (&text)[N + 1]) { std::copy_n(text, N + 1, chars); }

    constexpr std::string_view view() const { return {chars, N}; }
    constexpr operator std::string_view() const { return view(); }
};

template <std::size_t N>
fixed_string(const char (&)[N]) -> fixed_string<N - 1>;

template <std::size_t A, std::size_t B>
constexpr fixed_string<A + B> operator+(const fixed_string<A>& a, const fixed_string<B>& b) {
    fixed_string<A + B> joined;
    std::copy_n(a.chars, A, joined.chars);
    std::copy_n(b.chars, B + 1, joined.chars + A);
    return joined;
}

// The decimal digits of a non-negative number, e.g. a layer index in "layers.3.".
template <int Value>
constexpr auto decimal() {
    static_assert(Value >= 0, "ctformer: decimal() takes a non-negative number");
    constexpr std::size_t digits = [] {
        std::size_t n = 1;
        for (int v = Value; v >= 10; v /= 10) ++n;
        return n;
    }();
    fixed_string<digits> text;
    int v = Value;
    for (std::size_t i = digits; i-- > 0; v /= 10) text.chars[i] = static_cast<char>('0' + v % 10);
    return text;
}

}  // namespace ctformer
