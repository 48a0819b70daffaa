// expect: CTF_TOKEN_IDS_ARE_READ_ONLY_BY_AN_EMBEDDING
// Token ids are integers: a linear layer reads the embedding of them, not the ids.
#include <ctformer/ctformer.hpp>

int main() {
    auto ids = ctf::id_input<"ids", ctf::batch, 10, 16>();
    auto w = ctf::weight<"w", 8, 16>();
#ifdef CTF_FAIL
    auto y = ctf::linear(ids, w);
#else
    auto y = ctf::linear(ctf::nn::embedding<"wte", 100, 16>(ctf::id_input<"other", ctf::batch, 10>()), w);
#endif
    (void)y;
}
