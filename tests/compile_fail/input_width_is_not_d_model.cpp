// expect: CTF_INPUT_WIDTH_IS_NOT_D_MODEL
// An encoder with d_model 512 cannot read rows of width 256.
#include <ctformer/ctformer.hpp>

constexpr ctf::nn::config cfg{.d_model = 512, .heads = 8};

int main() {
#ifdef CTF_FAIL
    auto x = ctf::input<"x", ctf::batch, 10, 256>();
#else
    auto x = ctf::input<"x", ctf::batch, 10, 512>();
#endif
    auto y = ctf::nn::encoder<cfg, 2>(x);
    (void)y;
}
