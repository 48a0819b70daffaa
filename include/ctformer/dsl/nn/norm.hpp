// The LayerNorm over d_model that the nn:: layers use, with PyTorch's names: norm<cfg, "norm1">(x)
// reads norm1.weight and norm1.bias. On its own it is a stack's final norm, as
// nn.TransformerEncoder(..., norm=LayerNorm) and nn.TransformerDecoder(..., norm=...) apply:
//   auto y = ctf::nn::norm<cfg, "norm">(ctf::nn::decoder<cfg, 6>(tgt, memory));
#pragma once

#include "../ops/layer_norm.hpp"
#include "../tensor.hpp"
#include "config.hpp"

namespace ctformer::nn {

template <config C, fixed_string Name, operand X>
auto norm(X x) {
    return layer_norm(std::move(x), weight<Name + fixed_string(".weight"), C.d_model>(),
                      weight<Name + fixed_string(".bias"), C.d_model>(), C.eps);
}

}  // namespace ctformer::nn
