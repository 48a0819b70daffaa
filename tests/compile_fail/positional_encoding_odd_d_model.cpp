// expect: CTF_POSITIONAL_ENCODING_NEEDS_EVEN_D_MODEL
// sin/cos pairs need an even d_model.
#include <ctformer/ctformer.hpp>

int main() {
#ifdef CTF_FAIL
    auto x = ctf::input<"x", ctf::batch, 10, 511>();
#else
    auto x = ctf::input<"x", ctf::batch, 10, 512>();
#endif
    auto y = ctf::nn::add_positional_encoding(x);
    (void)y;
}
