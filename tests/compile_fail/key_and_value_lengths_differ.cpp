// expect: CTF_KEY_AND_VALUE_LENGTHS_DIFFER
// Cross-attention with keys [B,12,512] and values [B,16,512]: each key needs its value.
#include <ctformer/ctformer.hpp>

constexpr ctf::nn::config cfg{.d_model = 512, .heads = 8};

int main() {
    auto q = ctf::input<"q", ctf::batch, 10, 512>();
    auto k = ctf::input<"k", ctf::batch, 12, 512>();
#ifdef CTF_FAIL
    auto v = ctf::input<"v", ctf::batch, 16, 512>();
#else
    auto v = ctf::input<"v", ctf::batch, 12, 512>();
#endif
    auto y = ctf::nn::multi_head_attention<cfg>(q, k, v);
    (void)y;
}
