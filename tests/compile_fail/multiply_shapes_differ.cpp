// expect: CTF_MULTIPLY_SHAPES_DIFFER
// [10,512] * [10,256]: no broadcast makes these one shape.
#include <ctformer/ctformer.hpp>

int main() {
    auto a = ctf::input<"a", 10, 512>();
#ifdef CTF_FAIL
    auto b = ctf::input<"b", 10, 256>();
#else
    auto b = ctf::input<"b", 10, 512>();
#endif
    auto y = a * b;
    (void)y;
}
