// expect: CTF_INPUT_WIDTH_IS_NOT_D_MODEL
// A decoder layer of d_model 64 cannot attend to a memory of width 32.
#include <ctformer/ctformer.hpp>

constexpr ctf::nn::config cfg{.d_model = 64, .heads = 4, .d_ff = 128};

int main() {
#ifdef CTF_FAIL
    auto memory = ctf::input<"memory", ctf::batch, 7, 32>();
#else
    auto memory = ctf::input<"memory", ctf::batch, 7, 64>();
#endif
    auto tgt = ctf::input<"tgt", ctf::batch, 5, 64>();
    auto y = ctf::nn::decoder_layer<cfg>(tgt, memory, ctf::nn::tgt_masks(ctf::causal));
    (void)y;
}
