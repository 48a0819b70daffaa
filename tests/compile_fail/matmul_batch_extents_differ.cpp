// expect: CTF_MATMUL_BATCH_EXTENTS_DIFFER
// [4,10,64]·[3,64,12]: the batch extents 4 and 3 do not broadcast.
#include <ctformer/ctformer.hpp>

int main() {
    auto a = ctf::input<"a", 4, 10, 64>();
#ifdef CTF_FAIL
    auto b = ctf::input<"b", 3, 64, 12>();
#else
    auto b = ctf::input<"b", 4, 64, 12>();
#endif
    auto y = ctf::matmul(a, b);
    (void)y;
}
