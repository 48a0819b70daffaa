// expect: CTF_MATMUL_NEEDS_RANK_2_OR_MORE
// [512]·[512,64]: matmul takes matrices (or batches of them), not a vector.
#include <ctformer/ctformer.hpp>

int main() {
#ifdef CTF_FAIL
    auto x = ctf::input<"x", 512>();
#else
    auto x = ctf::input<"x", 1, 512>();
#endif
    auto w = ctf::weight<"w", 512, 64>();
    auto y = ctf::matmul(x, w);
    (void)y;
}
