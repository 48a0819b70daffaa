// expect: CTF_SLIDING_WINDOW_MUST_BE_POSITIVE
// A sliding window is the number of keys each query sees, its own included: at least 1.
#include <ctformer/ctformer.hpp>

int main() {
    auto scores = ctf::input<"scores", 12, 12>();
#ifdef CTF_FAIL
    auto y = ctf::mask(scores, ctf::sliding_window<0>);
#else
    auto y = ctf::mask(scores, ctf::sliding_window<4>);
#endif
    (void)y;
}
