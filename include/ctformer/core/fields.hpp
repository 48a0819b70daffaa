// A list of a struct's fields, each with its name, the values it takes and what it means, from which
// everything that spells the fields is derived: parsing "name=value", printing a value back as a
// word or as C++, a help line, a Markdown table. A struct's defaults are read from a default-made
// object, never written a second time. nn::config and ctformer_add_model's parameters are described
// this way (nn/config.hpp, generator_params.hpp).
//   inline constexpr std::tuple fields{fields::number{"d_model", &config::d_model, 1, 65536, "model width"}, ...};
//   static_assert(fields::covers<config>(fields));  // every member listed, none twice
#pragma once

#include <array>
#include <charconv>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace ctformer {

// A field given a value it does not take, or an unknown one: what() is one line naming it.
struct field_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

namespace fields {

// An int or double field, from low to high; `values` shows the range in help when it depends on
// another field ("1..d_model").
template <class Owner, class T>
struct number {
    std::string_view name;
    T Owner::*member;
    T low, high;
    std::string_view meaning;
    std::string_view values = {};
};

// An enumeration field: its words, and the C++ name of the type ("ctformer::activation").
template <class Owner, class E, std::size_t N>
struct choice {
    std::string_view name;
    E Owner::*member;
    std::array<std::pair<std::string_view, E>, N> words;
    std::string_view cpp_type;
    std::string_view meaning;
};

namespace detail {
// text + separator + item, the separator only between items. (Appended, not "" + ...: GCC 12 warns
// falsely, -Wrestrict, on the concatenation.)
inline void append_item(std::string& text, std::string_view separator, std::string_view item) {
    if (!text.empty()) text += separator;
    text += item;
}

template <class T>
std::string number_text(T value) {
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, value).ptr;  // the shortest that reads back
    return std::string(text, end);
}
}  // namespace detail

// "1..65536", "relu|gelu|gelu_tanh|none".
template <class O, class T>
std::string values(const number<O, T>& f) {
    return f.values.empty() ? detail::number_text(f.low) + ".." + detail::number_text(f.high) : std::string(f.values);
}
template <class O, class E, std::size_t N>
std::string values(const choice<O, E, N>& f) {
    std::string text;
    for (const auto& [word, value] : f.words) detail::append_item(text, "|", word);
    return text;
}

// The value of f in `object`, as a word of "name=value": "64", "1e-12", "gelu".
template <class O, class T>
std::string word(const number<O, T>& f, const std::type_identity_t<O>& object) {
    return detail::number_text(object.*f.member);
}
template <class O, class E, std::size_t N>
std::string word(const choice<O, E, N>& f, const std::type_identity_t<O>& object) {
    for (const auto& [word, value] : f.words)
        if (value == object.*f.member) return std::string(word);
    return "?";
}

// The value of f in `object` as a C++ expression: "64", "1e-12", "ctformer::activation::gelu".
template <class O, class T>
std::string cpp(const number<O, T>& f, const std::type_identity_t<O>& object) {
    return word(f, object);
}
template <class O, class E, std::size_t N>
std::string cpp(const choice<O, E, N>& f, const std::type_identity_t<O>& object) {
    return std::string(f.cpp_type) + "::" + word(f, object);
}

// Sets f in `object` from a word; throws field_error naming the field, the word and what it takes.
template <class O, class T>
void parse(const number<O, T>& f, std::type_identity_t<O>& object, std::string_view word) {
    T value{};
    const auto [end, problem] = std::from_chars(word.data(), word.data() + word.size(), value);
    if (problem != std::errc() || end != word.data() + word.size() || !(value >= f.low && value <= f.high))
        throw field_error(std::string(f.name) + "=" + std::string(word) +
                          (std::is_integral_v<T> ? ": expected a whole number from " : ": expected a number from ") +
                          detail::number_text(f.low) + " to " + detail::number_text(f.high));
    object.*f.member = value;
}
template <class O, class E, std::size_t N>
void parse(const choice<O, E, N>& f, std::type_identity_t<O>& object, std::string_view word) {
    std::string known;
    for (const auto& [w, value] : f.words) {
        if (w == word) {
            object.*f.member = value;
            return;
        }
        detail::append_item(known, ", ", w);
    }
    throw field_error(std::string(f.name) + "=" + std::string(word) + ": expected one of " + known);
}

// g(field) for each field of the list, in order.
template <class List, class G>
constexpr void for_each(const List& list, G&& g) {
    std::apply([&](const auto&... f) { (g(f), ...); }, list);
}

// "seq, d_model, heads, ...".
template <class List>
std::string names(const List& list) {
    std::string text;
    for_each(list, [&](const auto& f) { detail::append_item(text, ", ", f.name); });
    return text;
}

// Sets the field called `name` in `object`; throws field_error for a name the list lacks.
template <class List, class O>
void set(const List& list, O& object, std::string_view name, std::string_view word) {
    bool found = false;
    for_each(list, [&](const auto& f) {
        if (f.name == name) {
            parse(f, object, word);
            found = true;
        }
    });
    if (!found) throw field_error("unknown parameter '" + std::string(name) + "' (known: " + names(list) + ")");
}

// "d_model=512 heads=8 ...": every field of `object` as name=value words.
template <class List, class O>
std::string words(const List& list, const O& object) {
    std::string text;
    for_each(list, [&](const auto& f) { detail::append_item(text, " ", std::string(f.name) + "=" + word(f, object)); });
    return text;
}

// One line per field, "  name=values   meaning (default D)", the meanings aligned at `column`.
template <class List, class O>
std::string help(const List& list, const O& defaults, std::size_t column = 34) {
    std::string text;
    for_each(list, [&](const auto& f) {
        const std::string head = "  " + std::string(f.name) + "=" + values(f);
        text += head + std::string(head.size() < column ? column - head.size() : 1, ' ') + std::string(f.meaning) +
                " (default " + word(f, defaults) + ")\n";
    });
    return text;
}

// The same as a Markdown table: | name | values | default | meaning |.
template <class List, class O>
std::string markdown(const List& list, const O& defaults) {
    std::string text = "| name | values | default | meaning |\n| --- | --- | --- | --- |\n";
    for_each(list, [&](const auto& f) {
        std::string shown;  // a | in a table's cell is escaped, even in code
        for (const char c : values(f)) shown += c == '|' ? std::string("\\|") : std::string(1, c);
        text += "| `" + std::string(f.name) + "` | `" + shown + "` | `" + word(f, defaults) + "` | " +
                std::string(f.meaning) + " |\n";
    });
    return text;
}

// ---- that a list describes every member of its struct, once -------------------------------------

namespace detail {
struct any_value {
    template <class T>
    constexpr operator T() const;  // only named in unevaluated braces
};

// The number of elements an aggregate is initialized from (its members, a base class counting as one).
template <class T, class... A>
constexpr std::size_t member_count() {
    if constexpr (requires { T{A{}..., any_value{}}; }) return member_count<T, A..., any_value>();
    else return sizeof...(A);
}
}  // namespace detail

namespace detail {
template <class P>
struct owner_of;
template <class T, class O>
struct owner_of<T O::*> {
    using type = O;
};
}  // namespace detail

// True when `list` names every member of the aggregate T (`bases` base classes counting as one
// member each, their fields checked by their own lists), no member twice.
template <class T, class List>
constexpr bool covers(const List& list, std::size_t bases = 0) {
    bool distinct = true;
    std::size_t own = 0;
    std::apply([&](const auto&... a) {
        const auto once = [&](const auto& x) {
            own += std::is_same_v<typename detail::owner_of<decltype(x.member)>::type, T>;
            int same = 0;
            const auto count = [&](const auto& y) {
                if constexpr (std::is_same_v<decltype(x.member), decltype(y.member)>) same += x.member == y.member;
            };
            (count(a), ...);
            distinct = distinct && same == 1;
        };
        (once(a), ...);
    }, list);
    return distinct && detail::member_count<T>() == bases + own;
}

}  // namespace fields
}  // namespace ctformer
