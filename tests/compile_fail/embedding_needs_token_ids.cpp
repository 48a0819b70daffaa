// expect: CTF_EMBEDDING_NEEDS_TOKEN_IDS_FROM_AN_ID_INPUT
// Rows of a table are read by integer ids: an fp32 input cannot index one.
#include <ctformer/ctformer.hpp>

int main() {
#ifdef CTF_FAIL
    auto ids = ctf::input<"ids", ctf::batch, 10>();
#else
    auto ids = ctf::id_input<"ids", ctf::batch, 10>();
#endif
    auto y = ctf::nn::embedding<"wte", 100, 16>(ids);
    (void)y;
}
