// expect: CTF_ROTARY_DOES_NOT_FIT_INPUT
// Heads of 48 do not divide a width of 512.
#include <ctformer/ctformer.hpp>

int main() {
    auto q = ctf::input<"q", ctf::batch, 10, 512>();
#ifdef CTF_FAIL
    constexpr ctf::rotary_spec rope{.head_dim = 48};
#else
    constexpr ctf::rotary_spec rope{.head_dim = 64};
#endif
    auto y = ctf::rotary<rope>(q);
    (void)y;
}
