// expect: CTF_BATCH_EXTENT_MUST_COME_FIRST
// The run-time batch may only be the leading extent.
#include <ctformer/ctformer.hpp>

int main() {
#ifdef CTF_FAIL
    auto x = ctf::input<"x", 10, ctf::batch, 512>();
#else
    auto x = ctf::input<"x", ctf::batch, 10, 512>();
#endif
    (void)x;
}
