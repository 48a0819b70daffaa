// expect: CTF_BATCH_EXTENT_INSIDE_A_MATRIX
// first error: in the library (the step that would loop over the matrices), named there
// x [B, 4] times a weight W [4, 3] as it is (not x·Wᵀ, a GEMM): a batched matmul of matrices whose
// rows are the run-time batch, which its kernel takes at compile time. [B, 1, 4] has the rows.
#define CTFORMER_ALLOW_EMULATED_TARGET
#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>

int main() {
#ifdef CTF_FAIL
    auto x = ctf::input<"x", ctf::batch, 4>();
#else
    auto x = ctf::input<"x", ctf::batch, 1, 4>();
#endif
    auto model = ctf::compile(ctf::matmul(x, ctf::weight<"w", 4, 3>()));
    (void)model;
}
