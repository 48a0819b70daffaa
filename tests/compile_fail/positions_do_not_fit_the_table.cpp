// expect: CTF_POSITIONS_DO_NOT_FIT_THE_TABLE
// Sequences of up to 32 tokens need 32 rows of learned positions; the table has 16.
#include <ctformer/ctformer.hpp>

int main() {
    auto ids = ctf::id_input<"ids", ctf::batch, ctf::upto<32>>();
    auto tokens = ctf::nn::embedding<"wte", 100, 16>(ids);
#ifdef CTF_FAIL
    auto y = ctf::nn::add_position_embedding<"wpe", 16>(tokens);
#else
    auto y = ctf::nn::add_position_embedding<"wpe", 32>(tokens);
#endif
    (void)y;
}
