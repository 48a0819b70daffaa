// expect: CTF_WEIGHTS_HAVE_NO_RUN_TIME_LENGTH
// A weight's shape is fixed when it is bound; only inputs take a length at run time (upto<N>).
#include <ctformer/ctformer.hpp>

int main() {
#ifdef CTF_FAIL
    auto w = ctf::weight<"W", ctf::upto<512>, 512>();
#else
    auto w = ctf::weight<"W", 512, 512>();
#endif
    (void)w;
}
