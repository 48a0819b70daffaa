// expect: CTF_LINEAR_WEIGHT_DOES_NOT_FIT_INPUT
// linear takes W as [out, in] (PyTorch layout): for x [10,512], W must be [*,512].
#include <ctformer/ctformer.hpp>

int main() {
    auto x = ctf::input<"x", 10, 512>();
#ifdef CTF_FAIL
    auto w = ctf::weight<"fc.weight", 512, 64>();
#else
    auto w = ctf::weight<"fc.weight", 64, 512>();
#endif
    auto b = ctf::weight<"fc.bias", 64>();
    auto y = ctf::linear(x, w, b);
    (void)y;
}
