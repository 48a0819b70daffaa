// fuse_residual:  gemm(...) + r → gemm<+residual>(..., r), and r + gemm(...) likewise (r the shape
// of the sum). The residual is added as the GEMM stores its tile: no separate pass over the sum.
#pragma once

#include "../dsl/ops/elementwise.hpp"
#include "match.hpp"

namespace ctformer::passes {

// A gemm without a residual yet (nor rotary positions, which turn its output after everything else).
template <class G>
concept open_gemm = is_gemm<G> && !epilogue_of<G>::residual && !epilogue_of<G>::rotated;

struct fuse_residual {
    static constexpr const char* name = "fuse_residual";

    template <class G>
    using plus_residual = epilogue<epilogue_of<G>::bias, epilogue_of<G>::act, true, epilogue_of<G>::gated>;

    template <class E>
        requires is_op<E, add_op> && same_shape<E, child_t<E, 0>> && same_shape<E, child_t<E, 1>> &&
                 (open_gemm<child_t<E, 0>> || open_gemm<child_t<E, 1>>)
    static auto fuse(const E& e) {
        if constexpr (open_gemm<child_t<E, 0>>)
            return with_epilogue<plus_residual<child_t<E, 0>>>(child<0>(e), child<1>(e));
        else
            return with_epilogue<plus_residual<child_t<E, 1>>>(child<1>(e), child<0>(e));
    }
};

}  // namespace ctformer::passes
