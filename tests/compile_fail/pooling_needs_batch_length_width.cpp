// expect: CTF_POOLING_NEEDS_BATCH_LENGTH_WIDTH
// Pooling takes sequences [B, L, D] to one vector each; [B, 64] has no length to pool over.
#include <ctformer/ctformer.hpp>

int main() {
#ifdef CTF_FAIL
    auto x = ctf::input<"x", ctf::batch, 64>();
#else
    auto x = ctf::input<"x", ctf::batch, ctf::upto<16>, 64>();
#endif
    auto y = ctf::mean_pool(x);
    (void)y;
}
