// expect: CTF_CAUSAL_MASK_NEEDS_RANK_2_OR_MORE
// A causal mask relates queries to keys, so the scores must be [..., Lq, Lk], not a vector [12].
#include <ctformer/ctformer.hpp>

int main() {
#ifdef CTF_FAIL
    auto scores = ctf::input<"scores", 12>();
#else
    auto scores = ctf::input<"scores", 12, 12>();
#endif
    auto y = ctf::mask(scores, ctf::causal);
    (void)y;
}
