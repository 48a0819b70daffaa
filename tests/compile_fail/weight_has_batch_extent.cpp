// expect: CTF_WEIGHTS_HAVE_NO_BATCH_EXTENT
// Weights are shared by every sequence of the batch, so they cannot have a run-time batch extent.
#include <ctformer/ctformer.hpp>

int main() {
#ifdef CTF_FAIL
    auto w = ctf::weight<"W", ctf::batch, 512>();
#else
    auto w = ctf::weight<"W", 512, 512>();
#endif
    (void)w;
}
