// The one comparison of every numeric test: got against want, element by element.
//
//   |got - want| <= atol + rtol · |want|
//
// A NaN or an infinity on either side passes only where the other side holds the same (NaN with NaN,
// +inf with +inf), so an output of NaNs fails any comparison with finite values. Each test states
// its tolerance from the size of the values it compares (see the tolerance's comment there).
//
//   test::expect_close(got, want, {.atol = 1e-5, .rtol = 1e-4}, "what");   // a gtest failure if not
//   test::comparison c = test::compare(got, want, tolerance);             // the report, to assert on
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <ctformer/core/host_tensor.hpp>

namespace test {

struct tolerance {
    double atol = 0;  // absolute
    double rtol = 0;  // relative to |want|
};

struct comparison {
    std::size_t compared = 0, mismatches = 0;
    double largest_difference = 0;  // over the finite pairs
    std::string shapes_differ;      // non-empty when the two do not have the same shape
    std::string first_mismatches;   // up to five, "at i: got g, want w"

    bool ok() const { return shapes_differ.empty() && mismatches == 0; }
    std::string summary() const {
        if (!shapes_differ.empty()) return shapes_differ;
        char text[160];
        std::snprintf(text, sizeof text, "%zu of %zu elements out of tolerance; largest difference %.3e",
                      mismatches, compared, largest_difference);
        return text + (first_mismatches.empty() ? "" : "\n" + first_mismatches);
    }
};

namespace detail {
// Whether got may stand for want: equal non-finite values, or finite ones within the tolerance.
inline bool agrees(double got, double want, tolerance t) {
    if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
    if (std::isinf(got) || std::isinf(want)) return got == want;
    return std::abs(got - want) <= t.atol + t.rtol * std::abs(want);
}

template <class T>
const ctformer::dims_t* dims_of(const ctformer::host_tensor<T>& t) {
    return &t.dims;
}
template <class T>
const ctformer::dims_t* dims_of(const T&) {
    return nullptr;
}
}  // namespace detail

// got and want: host_tensor<float or double> or std::vector of them; tensors must also agree in dims.
template <class Got, class Want>
comparison compare(const Got& got, const Want& want, tolerance t) {
    comparison c;
    const ctformer::dims_t *got_dims = detail::dims_of(got), *want_dims = detail::dims_of(want);
    if (got_dims && want_dims && *got_dims != *want_dims)
        c.shapes_differ = "shape " + ctformer::to_string(*got_dims) + ", expected " + ctformer::to_string(*want_dims);
    else if (got.size() != want.size())
        c.shapes_differ = std::to_string(got.size()) + " elements, expected " + std::to_string(want.size());
    if (!c.shapes_differ.empty()) return c;
    c.compared = want.size();
    for (std::size_t i = 0; i < c.compared; ++i) {
        const double g = got[i], w = want[i];
        if (std::isfinite(g) && std::isfinite(w)) c.largest_difference = std::max(c.largest_difference, std::abs(g - w));
        if (detail::agrees(g, w, t)) continue;
        if (c.mismatches++ < 5) {
            char line[120];
            std::snprintf(line, sizeof line, "  at flat index %zu: got %.9g, want %.9g\n", i, g, w);
            c.first_mismatches += line;
        }
    }
    return c;
}

// A test failure naming `what` unless got agrees with want; with a `what`, the largest difference is
// printed either way (ctest shows it with --verbose).
template <class Got, class Want>
void expect_close(const Got& got, const Want& want, tolerance t, const std::string& what = "") {
    const comparison c = compare(got, want, t);
    if (!what.empty())
        std::printf("%-44s largest difference %.2e (tolerance %.0e + %.0e·|want|)\n", what.c_str(),
                    c.largest_difference, t.atol, t.rtol);
    EXPECT_TRUE(c.ok()) << what << (what.empty() ? "" : ": ") << c.summary();
}

// want written out in the test: expect_close(y, {1.1, 4.2}, {.atol = 1e-6}).
template <class Got>
void expect_close(const Got& got, const std::vector<double>& want, tolerance t, const std::string& what = "") {
    expect_close<Got, std::vector<double>>(got, want, t, what);
}

}  // namespace test
