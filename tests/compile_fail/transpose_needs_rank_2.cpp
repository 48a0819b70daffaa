// expect: CTF_TRANSPOSE_NEEDS_RANK_2_OR_MORE
// transpose swaps the last two axes, which a vector [512] does not have.
#include <ctformer/ctformer.hpp>

int main() {
#ifdef CTF_FAIL
    auto x = ctf::input<"x", 512>();
#else
    auto x = ctf::input<"x", 10, 512>();
#endif
    auto y = ctf::transpose(x);
    (void)y;
}
