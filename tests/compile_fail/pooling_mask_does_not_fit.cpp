// expect: CTF_POOLING_MASK_DOES_NOT_FIT
// The mask of a mean pool says which of the L tokens are real: a bool [B, L] of the sequences' L.
#include <ctformer/ctformer.hpp>

int main() {
    auto x = ctf::input<"x", ctf::batch, ctf::upto<16>, 64>();
#ifdef CTF_FAIL
    auto mask = ctf::bool_input<"mask", ctf::batch, ctf::upto<32>>();
#else
    auto mask = ctf::bool_input<"mask", ctf::batch, ctf::upto<16>>();
#endif
    auto y = ctf::mean_pool(x, mask);
    (void)y;
}
