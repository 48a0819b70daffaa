// expect: CTF_MATMUL_INNER_EXTENTS_DIFFER
// [10,512]·[256,64]: the inner extents 512 and 256 differ.
#include <ctformer/ctformer.hpp>

int main() {
    auto x = ctf::input<"x", 10, 512>();
#ifdef CTF_FAIL
    auto w = ctf::weight<"w", 256, 64>();
#else
    auto w = ctf::weight<"w", 512, 64>();
#endif
    auto y = ctf::matmul(x, w);
    (void)y;
}
