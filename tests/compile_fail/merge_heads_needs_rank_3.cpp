// expect: CTF_MERGE_HEADS_NEEDS_RANK_3_OR_MORE
// merge_heads takes [..., H, L, D]; [10,512] has no heads axis to merge.
#include <ctformer/ctformer.hpp>

int main() {
#ifdef CTF_FAIL
    auto x = ctf::input<"x", 10, 512>();
#else
    auto x = ctf::input<"x", 8, 10, 64>();
#endif
    auto y = ctf::merge_heads(x);
    (void)y;
}
