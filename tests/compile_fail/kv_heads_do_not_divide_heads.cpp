// expect: CTF_KV_HEADS_DO_NOT_DIVIDE_HEADS
// GQA with 3 key/value heads cannot serve 8 query heads.
#include <ctformer/ctformer.hpp>

#ifdef CTF_FAIL
constexpr ctf::nn::config cfg{.d_model = 512, .heads = 8, .kv_heads = 3};
#else
constexpr ctf::nn::config cfg{.d_model = 512, .heads = 8, .kv_heads = 2};
#endif

int main() {
    auto x = ctf::input<"x", ctf::batch, 10, 512>();
    auto y = ctf::nn::encoder_layer<cfg>(x);
    (void)y;
}
