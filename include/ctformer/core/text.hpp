// How a number reads in a printed tree, a plan or a message: "0.125", "1e-05", "-1".
#pragma once

#include <cstdio>
#include <string>

namespace ctformer {

inline std::string number_text(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

}  // namespace ctformer
