// expect: CTF_EXTENTS_MUST_BE_POSITIVE
// A tensor of 0 rows: every static extent must be 1 or more.
#include <ctformer/ctformer.hpp>

int main() {
#ifdef CTF_FAIL
    auto x = ctf::input<"x", 0, 512>();
#else
    auto x = ctf::input<"x", 10, 512>();
#endif
    (void)x;
}
