// expect: CTF_COMPILE_FOR_AN_EMULATED_TARGET_PASS_SIMD_FLAGS
// ctf::compile in a file built without SIMD flags, as these cases are: Highway's static target is
// then its scalar emulation, about ten times slower, and compile refuses it unless it is asked for.
#ifndef CTF_FAIL
#define CTFORMER_ALLOW_EMULATED_TARGET
#endif
#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>

int main() {
    constexpr ctf::nn::config cfg{.d_model = 16, .heads = 2, .d_ff = 32};
    auto model = ctf::compile(ctf::nn::multi_head_attention<cfg>(ctf::input<"x", ctf::batch, 4, 16>()));
    (void)model;
}
