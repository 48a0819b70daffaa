// fuse_kv:  fused_attention(q, heads(gemm(m, Wk, bk)), heads(gemm(m, Wv, bv)))
//           → let kv = gemm(m, concat(Wk, Wv), concat(bk, bv))
//             in fused_attention(q, heads(columns(kv)), heads(columns(kv)))
// Cross-attention's K and V projections of one memory become one GEMM against [Wk|Wv], as
// fuse_qkv does for self-attention's three (which it fuses first: then nothing is left here).
#pragma once

#include "fuse_qkv.hpp"

namespace ctformer::passes {

struct fuse_kv {
    static constexpr const char* name = "fuse_kv";

    template <class E>
        requires is_attention<E> && detail::projected_from_one_input<child_t<E, 1>, child_t<E, 2>>
    static auto fuse(const E& e) {
        return detail::fuse_projections<"kv", 1, 2>(e);
    }
};

}  // namespace ctformer::passes
