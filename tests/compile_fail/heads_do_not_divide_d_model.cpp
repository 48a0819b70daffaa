// expect: CTF_HEADS_DO_NOT_DIVIDE_D_MODEL
// 7 heads cannot split d_model 512 evenly.
#include <ctformer/ctformer.hpp>

#ifdef CTF_FAIL
constexpr ctf::nn::config cfg{.d_model = 512, .heads = 7};
#else
constexpr ctf::nn::config cfg{.d_model = 512, .heads = 8};
#endif

int main() {
    auto x = ctf::input<"x", ctf::batch, 10, 512>();
    auto y = ctf::nn::multi_head_attention<cfg>(x);
    (void)y;
}
