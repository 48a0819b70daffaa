// How a number reads: number_text in a printed tree or a plan, to 6 digits ("0.125", "1e-05", "-1");
// exact_text in a message about a value given, in the fewest digits that read back as it
// ("1.0000001", not "1").
#pragma once

#include <charconv>
#include <cstdio>
#include <string>

namespace ctformer {

inline std::string number_text(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

inline std::string exact_text(double value) {
    char text[32];
    return std::string(text, std::to_chars(text, text + sizeof text, value).ptr);
}

}  // namespace ctformer
