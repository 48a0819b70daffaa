// expect: CTF_ENCODER_NEEDS_ONE_LAYER_OR_MORE
// An encoder of 0 layers is no encoder.
#include <ctformer/ctformer.hpp>

constexpr ctf::nn::config cfg{.d_model = 512, .heads = 8};

#ifdef CTF_FAIL
constexpr int layers = 0;
#else
constexpr int layers = 6;
#endif

int main() {
    auto x = ctf::input<"x", ctf::batch, 10, 512>();
    auto y = ctf::nn::encoder<cfg, layers>(x);
    (void)y;
}
