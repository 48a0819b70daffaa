// expect: CTF_HEADS_DO_NOT_DIVIDE_WIDTH
// 7 heads cannot split rows of width 512 evenly.
#include <ctformer/ctformer.hpp>

int main() {
    auto x = ctf::input<"x", ctf::batch, 10, 512>();
#ifdef CTF_FAIL
    auto y = ctf::split_heads<7>(x);
#else
    auto y = ctf::split_heads<8>(x);
#endif
    (void)y;
}
