// expect: CTF_RMS_NORM_GAIN_DOES_NOT_FIT_INPUT
// RMS-normalising [10,512] needs a gain of shape [512], one per column, not [10,512].
#include <ctformer/ctformer.hpp>

int main() {
    auto x = ctf::input<"x", 10, 512>();
#ifdef CTF_FAIL
    auto gamma = ctf::weight<"norm.weight", 10, 512>();
#else
    auto gamma = ctf::weight<"norm.weight", 512>();
#endif
    auto y = ctf::rms_norm(x, gamma);
    (void)y;
}
