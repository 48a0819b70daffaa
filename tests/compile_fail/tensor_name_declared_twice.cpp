// expect: CTF_TENSOR_NAME_DECLARED_TWICE
// "x" is declared both an input and a weight of shape [512,512]: one name must mean one tensor.
#include <ctformer/ctformer.hpp>

int main() {
    auto x = ctf::input<"x", 512, 512>();
#ifdef CTF_FAIL
    auto w = ctf::weight<"x", 512, 512>();
#else
    auto w = ctf::weight<"W", 512, 512>();
#endif
    auto y = ctf::matmul(x, w);
    (void)y;
}
