// expect: CTF_REPEATS_DO_NOT_NEST
// A repeat's body may not itself hold a repeat (nn::encoder is one): repeat the layer instead.
#include <ctformer/ctformer.hpp>

constexpr ctf::nn::config cfg{.d_model = 512, .heads = 8};

int main() {
    auto x = ctf::input<"x", ctf::batch, 10, 512>();
#ifdef CTF_FAIL
    auto y = ctf::repeat<2, "blocks.">(x, [](auto h) { return ctf::nn::encoder<cfg, 3>(h); });
#else
    auto y = ctf::repeat<2, "blocks.">(x, [](auto h) { return ctf::nn::encoder_layer<cfg>(h); });
#endif
    (void)y;
}
