// expect: CTF_EXPANDED_HEADS_NOT_A_MULTIPLE
// 3 key/value groups cannot be repeated evenly up to 8 heads.
#include <ctformer/ctformer.hpp>

int main() {
#ifdef CTF_FAIL
    auto kv = ctf::input<"kv", ctf::batch, 3, 10, 64>();
#else
    auto kv = ctf::input<"kv", ctf::batch, 2, 10, 64>();
#endif
    auto y = ctf::expand_heads<8>(kv);
    (void)y;
}
