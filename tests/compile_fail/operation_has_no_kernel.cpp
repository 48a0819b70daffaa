// expect: CTF_OPERATION_HAS_NO_KERNEL
// first error: in the library (the plan's lowering), since only a misplaced fused op lacks a kernel
// concat, which fuse_qkv makes of the projections' weights for the one GEMM that packs them, has no
// kernel of its own: placed where a step must compute it, compile names the gap instead of running
// something slow.
#define CTFORMER_ALLOW_EMULATED_TARGET
#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>

int main() {
#ifdef CTF_FAIL
    auto graph = ctf::make_node<ctf::shape<8, 6>>(ctf::concat_op{}, ctf::weight<"a", 4, 6>(), ctf::weight<"b", 4, 6>());
#else
    auto graph = ctf::scale(ctf::input<"x", ctf::batch, 4, 6>(), 2.0);
#endif
    auto model = ctf::compile(graph);
    (void)model;
}
