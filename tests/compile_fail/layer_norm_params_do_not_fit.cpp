// expect: CTF_LAYER_NORM_PARAMS_DO_NOT_FIT_INPUT
// Normalising [10,512] needs gamma and beta of length 512.
#include <ctformer/ctformer.hpp>

int main() {
    auto x = ctf::input<"x", 10, 512>();
#ifdef CTF_FAIL
    auto gamma = ctf::weight<"norm.weight", 256>();
#else
    auto gamma = ctf::weight<"norm.weight", 512>();
#endif
    auto beta = ctf::weight<"norm.bias", 512>();
    auto y = ctf::layer_norm(x, gamma, beta);
    (void)y;
}
