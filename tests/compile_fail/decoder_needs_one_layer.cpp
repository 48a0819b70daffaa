// expect: CTF_DECODER_NEEDS_ONE_LAYER_OR_MORE
// A decoder stack of no layers.
#include <ctformer/ctformer.hpp>

constexpr ctf::nn::config cfg{.d_model = 64, .heads = 4, .d_ff = 128};

int main() {
#ifdef CTF_FAIL
    constexpr int layers = 0;
#else
    constexpr int layers = 2;
#endif
    auto tgt = ctf::input<"tgt", ctf::batch, 5, 64>();
    auto memory = ctf::input<"memory", ctf::batch, 7, 64>();
    auto y = ctf::nn::decoder<cfg, layers>(tgt, memory, ctf::nn::tgt_masks(ctf::causal));
    (void)y;
}
