// expect: CTF_TENSOR_NAME_DECLARED_WITH_TWO_SHAPES
// "W" is declared [512,512] and [512,256]: one name must mean one tensor.
#include <ctformer/ctformer.hpp>

int main() {
    auto x = ctf::input<"x", 10, 512>();
    auto w1 = ctf::weight<"W", 512, 512>();
#ifdef CTF_FAIL
    auto w2 = ctf::weight<"W", 512, 256>();
#else
    auto w2 = ctf::weight<"W2", 512, 256>();
#endif
    auto y = ctf::matmul(ctf::matmul(x, w1), w2);
    (void)y;
}
