// expect: CTF_BOOLEAN_MASK_MUST_HAVE_BOOLEAN_ELEMENTS
// attend takes a boolean mask (true means attend); an fp32 bias belongs in additive.
#include <ctformer/ctformer.hpp>

int main() {
    auto scores = ctf::input<"scores", ctf::batch, 8, 10, 12>();
#ifdef CTF_FAIL
    auto m = ctf::input<"m", 10, 12>();
#else
    auto m = ctf::bool_input<"m", 10, 12>();
#endif
    auto y = ctf::mask(scores, ctf::attend(m));
    (void)y;
}
