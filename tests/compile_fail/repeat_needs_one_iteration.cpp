// expect: CTF_REPEAT_NEEDS_ONE_ITERATION_OR_MORE
// repeat<0> would apply its body no time at all.
#include <ctformer/ctformer.hpp>

constexpr ctf::nn::config cfg{.d_model = 512, .heads = 8};

#ifdef CTF_FAIL
constexpr int count = 0;
#else
constexpr int count = 2;
#endif

int main() {
    auto x = ctf::input<"x", ctf::batch, 10, 512>();
    auto y = ctf::repeat<count, "layers.">(x, [](auto h) { return ctf::nn::encoder_layer<cfg>(h); });
    (void)y;
}
