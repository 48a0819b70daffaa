// expect: CTF_ADDITIVE_MASK_MUST_HAVE_FLOAT_ELEMENTS
// additive adds an fp32 bias to the scores; a boolean mask belongs in attend.
#include <ctformer/ctformer.hpp>

int main() {
    auto scores = ctf::input<"scores", ctf::batch, 8, 10, 12>();
#ifdef CTF_FAIL
    auto bias = ctf::bool_input<"bias", 10, 12>();
#else
    auto bias = ctf::input<"bias", 10, 12>();
#endif
    auto y = ctf::mask(scores, ctf::additive(bias));
    (void)y;
}
