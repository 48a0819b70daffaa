// expect: CTF_ATTENTION_INPUTS_DO_NOT_FIT
// Q [8,10,64] and K [8,12,32]: Q·Kᵀ needs queries and keys of one width.
#include <ctformer/ctformer.hpp>

int main() {
    auto q = ctf::input<"q", 8, 10, 64>();
#ifdef CTF_FAIL
    auto k = ctf::input<"k", 8, 12, 32>();
#else
    auto k = ctf::input<"k", 8, 12, 64>();
#endif
    auto v = ctf::input<"v", 8, 12, 64>();
    auto y = ctf::nn::scaled_dot_product_attention(q, k, v);
    (void)y;
}
