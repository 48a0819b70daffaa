// expect: CTF_QUERY_AND_KEY_BATCH_DIFFER
// Batched queries [B,10,512] cannot attend to an unbatched memory [12,512].
#include <ctformer/ctformer.hpp>

constexpr ctf::nn::config cfg{.d_model = 512, .heads = 8};

int main() {
    auto q = ctf::input<"q", ctf::batch, 10, 512>();
#ifdef CTF_FAIL
    auto kv = ctf::input<"memory", 12, 512>();
#else
    auto kv = ctf::input<"memory", ctf::batch, 12, 512>();
#endif
    auto y = ctf::nn::multi_head_attention<cfg>(q, kv, kv);
    (void)y;
}
