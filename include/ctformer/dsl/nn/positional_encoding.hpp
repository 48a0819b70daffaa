// The sinusoidal positional encoding of "Attention Is All You Need" and the seeds:
//   PE(pos, 2i) = sin(pos / 10000^(2i / d_model)),  PE(pos, 2i + 1) = cos(pos / 10000^(2i / d_model))
#pragma once

#include <cmath>

#include "../ops/elementwise.hpp"

namespace ctformer::nn {

struct sinusoidal_table {
    static constexpr const char* name = "positional_encoding";
    static double at(int pos, int column, int d_model) {
        const int i = column / 2;
        const double angle = pos / std::pow(10000.0, 2.0 * i / d_model);
        return column % 2 == 0 ? std::sin(angle) : std::cos(angle);
    }
};

template <int D>
using positional_encoding_error =
    first_failure_t<check<(D > 0 && D % 2 == 0), CTF_POSITIONAL_ENCODING_NEEDS_EVEN_D_MODEL<d_model_is<D>>>>;

// The [seq_len, d_model] table as a constant leaf.
template <int SeqLen, int DModel, class Failure = positional_encoding_error<DModel>>
    requires has_error<Failure>
Failure positional_encoding();

template <int SeqLen, int DModel>
    requires no_error<positional_encoding_error<DModel>>
constexpr auto positional_encoding() {
    return make_leaf(constant<sinusoidal_table, shape<SeqLen, DModel>>{});
}

// x + PE for x of shape [..., L, d_model].
template <operand X, class Failure = positional_encoding_error<last(extents_of<X>)>>
    requires has_error<Failure>
Failure add_positional_encoding(X);

template <operand X>
    requires no_error<positional_encoding_error<last(extents_of<X>)>>
auto add_positional_encoding(X x) {
    constexpr auto e = extents_of<X>;
    return add(std::move(x), positional_encoding<last(e, 1), last(e)>());
}

}  // namespace ctformer::nn
