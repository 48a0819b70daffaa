// fuse_positional_encoding:  gemm(...) + PE → gemm<+residual>(..., PE)
// The [L, d_model] table (a compile-time constant, computed once at bind time) is added to every
// sequence in the producing GEMM's epilogue. Added to an input instead, or to a gated GEMM (whose
// rows run in blocks of their own), it stays one `add` step.
#pragma once

#include "../dsl/ops/elementwise.hpp"
#include "fuse_residual.hpp"

namespace ctformer::passes {

struct fuse_positional_encoding {
    static constexpr const char* name = "fuse_positional_encoding";

    template <class E>
        requires is_op<E, add_op> && open_gemm<child_t<E, 0>> && (!epilogue_of<child_t<E, 0>>::gated) &&
                 is_constant<child_t<E, 1>> && same_shape<E, child_t<E, 0>>
    static auto fuse(const E& e) {
        using before = epilogue_of<child_t<E, 0>>;
        return with_epilogue<epilogue<before::bias, before::act, true>>(child<0>(e), child<1>(e));
    }
};

}  // namespace ctformer::passes
