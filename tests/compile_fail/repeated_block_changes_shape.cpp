// expect: CTF_REPEATED_BLOCK_CHANGES_THE_SHAPE
// Each iteration feeds the next, so the body must keep [B,10,512]; a [256,512] projection does not.
#include <ctformer/ctformer.hpp>

#ifdef CTF_FAIL
constexpr int out = 256;
#else
constexpr int out = 512;
#endif

int main() {
    auto x = ctf::input<"x", ctf::batch, 10, 512>();
    auto y = ctf::repeat<2, "layers.">(x, [](auto h) {
        return ctf::linear(h, ctf::weight<"fc.weight", out, 512>(), ctf::weight<"fc.bias", out>());
    });
    (void)y;
}
