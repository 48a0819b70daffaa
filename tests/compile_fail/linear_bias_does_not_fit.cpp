// expect: CTF_LINEAR_BIAS_DOES_NOT_FIT_WEIGHT
// W [64,512] makes 64 outputs, so the bias must be [64], not [512].
#include <ctformer/ctformer.hpp>

int main() {
    auto x = ctf::input<"x", 10, 512>();
    auto w = ctf::weight<"fc.weight", 64, 512>();
#ifdef CTF_FAIL
    auto b = ctf::weight<"fc.bias", 512>();
#else
    auto b = ctf::weight<"fc.bias", 64>();
#endif
    auto y = ctf::linear(x, w, b);
    (void)y;
}
