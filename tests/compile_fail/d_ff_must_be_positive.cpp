// expect: CTF_D_FF_MUST_BE_POSITIVE
// The feed-forward network needs a hidden width d_ff of 1 or more.
#include <ctformer/ctformer.hpp>

#ifdef CTF_FAIL
constexpr ctf::nn::config cfg{.d_model = 512, .heads = 8, .d_ff = 0};
#else
constexpr ctf::nn::config cfg{.d_model = 512, .heads = 8, .d_ff = 2048};
#endif

int main() {
    auto x = ctf::input<"x", ctf::batch, 10, 512>();
    auto y = ctf::nn::feed_forward<cfg>(x);
    (void)y;
}
