// expect: CTF_OPERATION_HAS_NO_KERNEL
// first error: in the library (the plan's lowering), since only a misplaced fused op lacks a kernel
// columns, which fuse_qkv makes for the attention to read its heads through, has no kernel of its
// own: placed where a step must compute it, compile names the gap instead of running something slow.
#define CTFORMER_ALLOW_EMULATED_TARGET
#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>

int main() {
    auto x = ctf::input<"x", ctf::batch, 4, 6>();
#ifdef CTF_FAIL
    auto graph = ctf::make_node<ctf::shape<ctf::batch, 4, 2>>(ctf::columns_op<0, 2>{}, x);
#else
    auto graph = ctf::scale(x, 2.0);
#endif
    auto model = ctf::compile(graph);
    (void)model;
}
