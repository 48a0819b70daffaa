// expect: CTF_MASK_DOES_NOT_FIT_SCORES
// Scores are [B,8,10,12]; a key-padding mask must be [B,12], one flag per key.
#include <ctformer/ctformer.hpp>

constexpr ctf::nn::config cfg{.d_model = 512, .heads = 8};

int main() {
    auto q = ctf::input<"q", ctf::batch, 10, 512>();
    auto kv = ctf::input<"memory", ctf::batch, 12, 512>();
#ifdef CTF_FAIL
    auto pad = ctf::bool_input<"pad", ctf::batch, 10>();
#else
    auto pad = ctf::bool_input<"pad", ctf::batch, 12>();
#endif
    auto y = ctf::nn::multi_head_attention<cfg>(q, kv, kv, ctf::key_padding(pad));
    (void)y;
}
